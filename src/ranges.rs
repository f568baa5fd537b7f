//! The ranges of every count a user gives — the one place the CLI's flags, the server's requests
//! and the Python package's keyword arguments take them from, and the library checks them at its
//! entry points, so no front end can pass what another refuses (`threads=10**6` spawned threads
//! until the process was killed; `top=0` gave a verdict from no evidence).

use crate::error::{Error, Result};

/// A count's allowed values, inclusive, with the name users know it by (the CLI flag without its
/// dashes, the Python keyword, the JSON field).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Count {
    /// The setting's name.
    pub name: &'static str,
    /// The least value allowed.
    pub min: u64,
    /// The greatest value allowed.
    pub max: u64,
}

impl Count {
    const fn new(name: &'static str, min: u64, max: u64) -> Count {
        Count { name, min, max }
    }

    /// A count with no greatest value (`k`: a k beyond the collection is the collection).
    const fn at_least(name: &'static str, min: u64) -> Count {
        Count { name, min, max: u64::MAX }
    }

    /// `value` when it lies in the range, else [`Error::Range`].
    pub fn check(&self, value: u64) -> Result<usize> {
        if (self.min..=self.max).contains(&value) {
            Ok(usize::try_from(value).unwrap_or(usize::MAX))
        } else {
            Err(self.refusal(value))
        }
    }

    /// The [`Error::Range`] refusing `found`, a value outside this range (also one no `u64`
    /// holds, such as a negative count given to the server or Python).
    pub fn refusal(&self, found: impl std::fmt::Display) -> Error {
        Error::Range { name: self.name, min: self.min.to_string(), max: (self.max != u64::MAX).then(|| self.max.to_string()), found: found.to_string() }
    }
}

/// A number's allowed values, inclusive (NaN and infinities never).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Number {
    /// The setting's name.
    pub name: &'static str,
    /// The least value allowed.
    pub min: f64,
    /// The greatest value allowed.
    pub max: f64,
}

impl Number {
    /// `value` when it lies in the range, else [`Error::Range`].
    pub fn check(&self, value: f64) -> Result<f64> {
        if value.is_finite() && (self.min..=self.max).contains(&value) {
            Ok(value)
        } else {
            Err(Error::Range { name: self.name, min: self.min.to_string(), max: Some(self.max.to_string()), found: value.to_string() })
        }
    }
}

/// Worker threads (0: one per core).
pub const THREADS: Count = Count::new("threads", 0, 1024);
/// Documents kept per claim (no greatest: the collection is the most there is).
pub const K: Count = Count::at_least("k", 1);
/// Documents each sub-query retrieves before fusion (no greatest, as `k`).
pub const DEPTH: Count = Count::at_least("depth", 1);
/// The depth every front end defaults to (QuanTemp++'s setting).
pub const DEFAULT_DEPTH: usize = 100;
/// Hits a search shows when not told (`quantir search`, the server, Python's `search`): a page
/// of evidence, where a run keeps 1000 for evaluation.
pub const DEFAULT_SEARCH_K: usize = 10;
/// Candidates an HNSW search explores.
pub const EF: Count = Count::new("ef", 1, 100_000);
/// Evidence texts a verifier reads per claim.
pub const TOP: Count = Count::new("top", 1, 100);
/// ONNX Runtime sessions encoding at once.
pub const ENCODER_WORKERS: Count = Count::new("encoder_workers", 1, 256);
/// Texts per encoder call.
pub const BATCH_SIZE: Count = Count::new("batch_size", 1, 4096);
/// Tokens per text for the encoder (room for its start and end tokens).
pub const MAX_LENGTH: Count = Count::new("max_length", 2, 8192);
/// HNSW neighbours per node (hnsw_rs's most).
pub const HNSW_M: Count = Count::new("hnsw_m", 2, 256);
/// HNSW candidate list while building.
pub const HNSW_EF_CONSTRUCTION: Count = Count::new("hnsw_ef_construction", 1, 100_000);
/// Segments of a tier an index update merges together.
pub const MERGE_FACTOR: Count = Count::new("merge_factor", 2, 1000);
/// Seconds allowed per LLM request, retries included.
pub const LLM_TIMEOUT: Count = Count::new("llm_timeout", 1, 3600);
/// Retries after a failed LLM request.
pub const LLM_RETRIES: Count = Count::new("llm_retries", 0, 20);
/// Claims sent to the LLM at once.
pub const LLM_CONCURRENCY: Count = Count::new("llm_concurrency", 1, 256);
/// The longest record of a corpus read, in MiB (`--max-record-mib`; a record's offset length is
/// kept in 32 bits).
pub const MAX_RECORD_MIB: Count = Count::new("max_record_mib", 1, 4095);
/// MMR's β and threshold.
pub const MMR_BETA: Number = Number { name: "mmr_beta", min: 0.0, max: 1.0 };
/// MMR's threshold on min-max normalised scores.
pub const MMR_THRESHOLD: Number = Number { name: "mmr_threshold", min: 0.0, max: 1.0 };

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_inclusive_and_name_themselves() {
        assert_eq!(THREADS.check(0).unwrap(), 0);
        assert_eq!(THREADS.check(1024).unwrap(), 1024);
        let err = THREADS.check(1_000_000).unwrap_err();
        assert_eq!(err.to_string(), "threads: expected 0 to 1024, found 1000000");
        assert!(TOP.check(0).is_err());
        assert_eq!(K.check(0).unwrap_err().to_string(), "k: expected at least 1, found 0");
        assert_eq!(K.check(u64::MAX).unwrap(), usize::MAX);
        assert!(MMR_BETA.check(f64::NAN).is_err());
        assert!(MMR_BETA.check(1.0).is_ok());
    }
}
