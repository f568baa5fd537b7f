//! What an updated generation adds to a built one: each segment's id ranks as of this generation
//! (`ranks.bin`) and the statistics of the documents deleted from its segments but still in their
//! postings (`deleted.json`). See [`super::update`] for how a generation is updated and why this
//! keeps every score exact.
//!
//! ```text
//! ranks.bin      "QRANKS01", u32 segments, then per segment: its id (32 bytes, space-padded),
//!                u32 max_doc, u32 deleted, max_doc × u32 ranks (DELETED for a deleted document)
//! deleted.json   per segment with deleted documents: {"documents": n, "tokens": t,
//!                "terms": {term: documents among the deleted that hold it}}
//! ```
//! A built generation has neither: its ranks are the `rank` column and nothing is deleted.

use std::collections::BTreeMap;
use std::path::Path;

use super::bounds::{segment_id_field, Reader};
use crate::analysis::Analyzer;
use crate::error::{Error, Result};

/// The rank of a deleted document in [`super::SegmentData::ranks`]: no id has it.
pub const DELETED: u32 = u32::MAX;

/// The ranks file.
pub(super) const RANKS_FILE: &str = "ranks.bin";
/// The deleted documents' statistics.
pub(super) const DELETED_FILE: &str = "deleted.json";
const MAGIC: &[u8; 8] = b"QRANKS01";

/// The statistics of one segment's deleted documents: what BM25's N, mean length and document
/// frequencies must not count.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SegmentDeletions {
    /// Deleted documents.
    pub documents: u64,
    /// Their terms, all occurrences: what they add to the segment's `total_num_tokens`.
    pub tokens: u64,
    /// Each term's number of deleted documents holding it.
    pub terms: BTreeMap<String, u64>,
}

impl SegmentDeletions {
    /// Counts one more deleted document, whose indexed text (title and text as
    /// [`crate::corpus::passage`] joins them) is `passage`: analysed again by the analyzer that
    /// indexed it, it gives the same terms and the same count as the segment holds.
    pub fn add(&mut self, analyzer: &Analyzer, passage: &str) {
        let mut seen: Vec<String> = Vec::new();
        analyzer.analyze(passage, &mut |term| {
            self.tokens += 1;
            if !seen.iter().any(|t| t == term) {
                seen.push(term.to_string());
            }
        });
        for term in seen {
            *self.terms.entry(term).or_insert(0) += 1;
        }
        self.documents += 1;
    }
}

/// Every segment's deletions, by segment id, and their sums.
#[derive(Debug, Clone, Default)]
pub struct Deletions {
    segments: BTreeMap<String, SegmentDeletions>,
    documents: u64,
    tokens: u64,
    terms: std::collections::HashMap<String, u64>,
}

impl Deletions {
    /// From each segment's.
    pub fn new(segments: BTreeMap<String, SegmentDeletions>) -> Deletions {
        let mut all = Deletions { documents: 0, tokens: 0, terms: Default::default(), segments };
        for segment in all.segments.values() {
            all.documents += segment.documents;
            all.tokens += segment.tokens;
            for (term, n) in &segment.terms {
                *all.terms.entry(term.clone()).or_insert(0) += n;
            }
        }
        all
    }

    /// Whether nothing is deleted.
    pub fn is_empty(&self) -> bool {
        self.documents == 0
    }

    /// Deleted documents in all.
    pub fn documents(&self) -> u64 {
        self.documents
    }

    /// Their tokens in all.
    pub fn tokens(&self) -> u64 {
        self.tokens
    }

    /// Deleted documents holding `term`.
    pub fn doc_freq(&self, term: &str) -> u64 {
        self.terms.get(term).copied().unwrap_or(0)
    }

    /// One segment's.
    pub fn segment(&self, id: &str) -> Option<&SegmentDeletions> {
        self.segments.get(id)
    }

    /// Reads `deleted.json` from the generation folder `dir` (none: nothing deleted).
    pub(super) fn read(index: &Path, dir: &Path) -> Result<Deletions> {
        let path = dir.join(DELETED_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Deletions::default()),
            Err(e) => return Err(Error::io(&path, e)),
        };
        let segments: BTreeMap<String, SegmentDeletions> = serde_json::from_str(&text).map_err(|e| Error::IndexDamaged {
            index: index.to_path_buf(),
            file: path.clone(),
            damage: crate::error::Damage::Malformed { expected: format!("each segment's deleted documents, terms and tokens ({e})") },
        })?;
        Ok(Deletions::new(segments))
    }

    /// Writes `deleted.json` into `dir` for the segments with deletions (nothing when none has).
    pub(super) fn write(segments: &BTreeMap<String, SegmentDeletions>, dir: &Path) -> Result<()> {
        let kept: BTreeMap<&String, &SegmentDeletions> = segments.iter().filter(|(_, s)| s.documents > 0).collect();
        if kept.is_empty() {
            return Ok(());
        }
        let json = serde_json::to_vec(&kept).expect("deletions serialise");
        crate::io::write_synced(&dir.join(DELETED_FILE), &json)
    }
}

/// Writes `ranks.bin` into `dir`: each segment (id, ranks), in tantivy's order.
pub(super) fn write_ranks(dir: &Path, segments: &[(String, Vec<u32>)]) -> Result<()> {
    let mut bytes = Vec::with_capacity(12 + segments.iter().map(|(_, r)| 40 + 4 * r.len()).sum::<usize>());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&(segments.len() as u32).to_le_bytes());
    for (id, ranks) in segments {
        bytes.extend_from_slice(&segment_id_field(id));
        bytes.extend_from_slice(&(ranks.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&(ranks.iter().filter(|&&r| r == DELETED).count() as u32).to_le_bytes());
        ranks.iter().for_each(|r| bytes.extend_from_slice(&r.to_le_bytes()));
    }
    crate::io::write_synced(&dir.join(RANKS_FILE), &bytes)
}

/// Reads `ranks.bin` from the generation folder `dir` of the index at `index`: `None` in a built
/// generation (its ranks are the `rank` column).
pub(super) fn read_ranks(index: &Path, dir: &Path) -> Result<Option<BTreeMap<String, Vec<u32>>>> {
    let path = dir.join(RANKS_FILE);
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(&path, e)),
    };
    let bad = |expected: String| Error::IndexDamaged { index: index.to_path_buf(), file: path.clone(), damage: crate::error::Damage::Malformed { expected } };
    let mut reader = Reader { bytes: &bytes, at: 0 };
    if reader.take(8) != Some(MAGIC.as_slice()) {
        return Err(bad("the \"QRANKS01\" header".into()));
    }
    let truncated = |at: usize| bad(format!("each segment's ranks (the file ends at byte {at})"));
    let count = reader.u32().ok_or_else(|| truncated(reader.at))?;
    let mut segments = BTreeMap::new();
    for _ in 0..count {
        let id = reader.segment_id().ok_or_else(|| truncated(reader.at))?;
        let max_doc = reader.u32().ok_or_else(|| truncated(reader.at))? as usize;
        let deleted = reader.u32().ok_or_else(|| truncated(reader.at))? as usize;
        let ranks = reader.u32s(max_doc).ok_or_else(|| truncated(reader.at))?;
        if ranks.iter().filter(|&&r| r == DELETED).count() != deleted {
            return Err(bad(format!("{deleted} deleted documents in segment {id}, as its header says")));
        }
        segments.insert(id, ranks);
    }
    if reader.at != bytes.len() {
        return Err(bad(format!("nothing after the last segment ({} bytes more)", bytes.len() - reader.at)));
    }
    Ok(Some(segments))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_read_back_and_damage_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let segments = vec![("0123456789abcdef0123456789abcdef".to_string(), vec![3, DELETED, 0]), ("fedcba9876543210fedcba9876543210".to_string(), vec![1, 2])];
        write_ranks(dir.path(), &segments).unwrap();
        let read = read_ranks(dir.path(), dir.path()).unwrap().unwrap();
        assert_eq!(read.into_iter().collect::<Vec<_>>(), { let mut s = segments.clone(); s.sort(); s });
        let bytes = std::fs::read(dir.path().join(RANKS_FILE)).unwrap();
        for cut in [0, 9, 30, bytes.len() - 1] {
            std::fs::write(dir.path().join(RANKS_FILE), &bytes[..cut]).unwrap();
            let message = read_ranks(dir.path(), dir.path()).unwrap_err().to_string();
            assert!(message.contains("ranks.bin"), "{message}");
        }
        std::fs::remove_file(dir.path().join(RANKS_FILE)).unwrap();
        assert!(read_ranks(dir.path(), dir.path()).unwrap().is_none());
    }

    #[test]
    fn a_deleted_document_counts_its_terms_once_and_every_token() {
        let mut deleted = SegmentDeletions::default();
        let analyzer = Analyzer::default();
        deleted.add(&analyzer, "inflation inflation fell");
        deleted.add(&analyzer, "inflation rose");
        assert_eq!(deleted.documents, 2);
        assert_eq!(deleted.tokens, 5);
        let inflation = deleted.terms.iter().find(|(t, _)| t.starts_with("inflat")).map(|(_, &n)| n);
        assert_eq!(inflation, Some(2));
        let all = Deletions::new(BTreeMap::from([("a".to_string(), deleted.clone()), ("b".to_string(), deleted)]));
        assert_eq!((all.documents(), all.tokens()), (4, 10));
    }
}
