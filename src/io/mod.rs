//! Domain-free plumbing: reading text files with positions, JSON errors with `file:line:col`,
//! atomic folder replacement, content digests ([`Digest`]) and the [`Progress`] trait that long
//! jobs report to.
//!
//! Nothing here knows about documents, claims or indexes.

mod atomic_dir;
mod digest;
mod records;
mod text;

pub use atomic_dir::{start_writeback, write_jsonl, write_replacing, write_replacing_with, write_synced, AtomicDir};
pub use digest::{Digest, Hasher, HashingWriter};
pub use records::{read_at, Layout, OwnedRecord, RecordReader, DEFAULT_MAX_RECORD_BYTES};

/// The wait before retry `attempt` (1 for the first retry): `base · 2^attempt`, at most `cap`,
/// saturating for any attempt (the one backoff rule of the LLM client and the OpenSearch client).
pub fn backoff(base: std::time::Duration, attempt: u32, cap: std::time::Duration) -> std::time::Duration {
    base.saturating_mul(1u32.checked_shl(attempt).unwrap_or(u32::MAX)).min(cap)
}
pub(crate) use text::{read_bounded, utf8};
pub use text::{json_error, position_at, read_utf8, read_utf8_digested, strip_bom, JsonlLines, MappedText, Positions, Record};

/// A point where a crash test stops a writer to kill it there: when the environment variable
/// `QUANTIR_PAUSE_AT` names `point`, the process says so on stderr and waits to be killed
/// (`tests/integration/update.rs`). Nothing otherwise.
pub fn pause_point(point: &str) {
    if std::env::var_os("QUANTIR_PAUSE_AT").is_some_and(|v| v == point) {
        eprintln!("quantir: paused at {point}");
        loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        }
    }
}

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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    #[test]
    fn backoff_doubles_saturates_and_is_capped() {
        let cap = Duration::from_secs(60);
        assert_eq!(super::backoff(Duration::from_millis(500), 0, cap), Duration::from_millis(500));
        assert_eq!(super::backoff(Duration::from_millis(500), 3, cap), Duration::from_secs(4));
        // Issue 12: `2u32.pow(attempt)` overflowed at --llm-retries 32.
        for attempt in [31, 32, 40, u32::MAX] {
            assert_eq!(super::backoff(Duration::from_millis(500), attempt, cap), cap);
        }
    }
}
