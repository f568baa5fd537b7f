//! [`Progress`] drawn with indicatif on stderr (hidden when stderr is not a terminal).

use std::sync::Mutex;

use indicatif::{ProgressBar, ProgressStyle};
use quantir::io::Progress;

/// A progress bar per phase.
#[derive(Default)]
pub struct Bar {
    bar: Mutex<Option<ProgressBar>>,
}

impl Progress for Bar {
    fn start(&self, phase: &str, total: Option<u64>) {
        let bar = match total {
            Some(n) => ProgressBar::new(n).with_style(
                ProgressStyle::with_template("{msg:>9} [{bar:30}] {pos}/{len} {per_sec} eta {eta}")
                    .expect("valid template")
                    .progress_chars("=> "),
            ),
            None => ProgressBar::new_spinner(),
        };
        bar.set_message(phase.to_string());
        *self.bar.lock().expect("progress lock") = Some(bar);
    }

    fn advance(&self, done: u64) {
        if let Some(bar) = self.bar.lock().expect("progress lock").as_ref() {
            bar.inc(done);
        }
    }

    fn finish(&self) {
        if let Some(bar) = self.bar.lock().expect("progress lock").take() {
            bar.finish_and_clear();
        }
    }
}
