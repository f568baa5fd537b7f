//! Domain-free plumbing: reading text files with positions, JSON errors with `file:line:col`,
//! atomic folder replacement and the [`Progress`] trait that long jobs report to.
//!
//! Nothing here knows about documents, claims or indexes.

mod atomic_dir;
mod text;

pub use atomic_dir::{write_replacing, write_synced, AtomicDir};
pub use text::{json_error, position_at, read_utf8, strip_bom, JsonlLines, MappedText, Positions, Record};

/// Where long jobs report how far they are. The library never draws: the CLI implements this
/// with a progress bar, tests and the server with [`NoProgress`].
pub trait Progress: Sync {
    /// A new phase begins, with `total` units of work when known.
    fn start(&self, phase: &str, total: Option<u64>);
    /// `done` more units were finished.
    fn advance(&self, done: u64);
    /// The current phase is over.
    fn finish(&self);
}

/// A [`Progress`] that shows nothing.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn start(&self, _phase: &str, _total: Option<u64>) {}
    fn advance(&self, _done: u64) {}
    fn finish(&self) {}
}
