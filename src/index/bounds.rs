//! Per-term score bounds (`bounds.bin`), written at build time for exact pruning.
//!
//! A term's BM25 contribution to a document, w · tf / (tf + k1 · (1 − b + b · len / avglen)),
//! grows with tf and falls with the length for every k1 ≥ 0 and b ∈ [0, 1]. So the best
//! contribution a term can make, whatever the parameters, is made by one of its postings that no
//! other posting beats on both counts — a higher tf in a document at most as long. Those
//! postings' (length code, tf) pairs are the term's *frontier*; at search time the largest
//! contribution over them is the term's exact maximum for the parameters in use (the f32
//! operations of the contribution are each monotonic, so it bounds the rounded values too).
//! Most terms' frontier is one pair, and few exceed four.
//!
//! The file, little-endian:
//! ```text
//! "QBOUNDS1"                               magic and version
//! u32 segments
//! per segment, in tantivy's order:
//!   [u8; 32] segment id (tantivy's uuid string)
//!   u32 terms, u32 pairs
//!   [u64; terms] keys: where each term's postings start in the postings file, increasing
//!   [u32; terms + 1] starts: the pairs of the o-th term are [starts[o], starts[o + 1])
//!   [u8; pairs]  length codes, increasing within a term
//!   [u32; pairs] tfs, increasing within a term
//! ```
//! A term is found by where its postings start (its `TermInfo`, which search has already
//! looked up), so that bounds cost no second dictionary lookup. An index built before the file
//! existed has none; search then bounds a term by its weight.

use std::path::Path;

use tantivy::postings::{BlockSegmentPostings, TermInfo};
use tantivy::schema::IndexRecordOption;
use tantivy::InvertedIndexReader;

use crate::error::{Error, Result};

/// The file's name in the index folder.
pub(super) const FILE: &str = "bounds.bin";

const MAGIC: &[u8; 8] = b"QBOUNDS1";

/// One segment's term frontiers, by term ordinal.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct TermBounds {
    keys: Vec<u64>,
    starts: Vec<u32>,
    codes: Vec<u8>,
    tfs: Vec<u32>,
}

impl TermBounds {
    /// The frontier of the term whose postings are `info`: (length code, tf) pairs, shortest
    /// length first, each with a tf that no pair of a length at most as short reaches. Empty for
    /// a term the segment does not hold.
    pub fn frontier(&self, info: &TermInfo) -> impl Iterator<Item = (u8, u32)> + '_ {
        let range = match self.keys.binary_search(&(info.postings_range.start as u64)) {
            Ok(o) => self.starts[o] as usize..self.starts[o + 1] as usize,
            Err(_) => 0..0,
        };
        self.codes[range.clone()].iter().copied().zip(self.tfs[range].iter().copied())
    }

    /// Number of terms.
    pub fn num_terms(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// The frontiers of every term of `inverted`, whose documents have the length codes
    /// `norm_ids`: one pass over all postings.
    pub(super) fn compute(inverted: &InvertedIndexReader, norm_ids: &[u8]) -> std::io::Result<TermBounds> {
        let terms = inverted.terms();
        let mut bounds = TermBounds { keys: Vec::with_capacity(terms.num_terms()), starts: Vec::with_capacity(terms.num_terms() + 1), ..TermBounds::default() };
        bounds.starts.push(0);
        // Per length code, the best tf seen in the current term; `seen` marks the codes met.
        let mut best = [0u32; 256];
        let mut stream = terms.stream()?;
        // One reader reset for each term, not one made per term.
        let mut reader: Option<BlockSegmentPostings> = None;
        while stream.advance() {
            let mut seen = [0u64; 4];
            bounds.keys.push(stream.value().postings_range.start as u64);
            let block = match &mut reader {
                Some(block) => {
                    inverted.reset_block_postings_from_terminfo(stream.value(), block)?;
                    block
                }
                None => reader.insert(inverted.read_block_postings_from_terminfo(stream.value(), IndexRecordOption::WithFreqs)?),
            };
            while !block.docs().is_empty() {
                for (&doc, &tf) in block.docs().iter().zip(block.freqs()) {
                    let code = norm_ids.get(doc as usize).copied().unwrap_or(0) as usize;
                    let bit = 1u64 << (code % 64);
                    if seen[code / 64] & bit == 0 {
                        seen[code / 64] |= bit;
                        best[code] = tf;
                    } else {
                        best[code] = best[code].max(tf);
                    }
                }
                block.advance();
            }
            // Shortest length first: a pair is on the frontier when its tf beats every shorter one's.
            let mut record = 0;
            for (word, &bits) in seen.iter().enumerate() {
                let mut bits = bits;
                while bits != 0 {
                    let code = word * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    if best[code] > record {
                        record = best[code];
                        bounds.codes.push(code as u8);
                        bounds.tfs.push(record);
                    }
                }
            }
            bounds.starts.push(u32::try_from(bounds.codes.len()).map_err(|_| std::io::Error::other("more than 2^32 frontier pairs in one segment"))?);
        }
        Ok(bounds)
    }
}

/// Writes `bounds.bin` into `dir` for the segments `segments` (id, bounds), in tantivy's order.
pub(super) fn write(dir: &Path, segments: &[(String, TermBounds)]) -> Result<()> {
    let mut bytes = Vec::new();
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&(segments.len() as u32).to_le_bytes());
    for (id, bounds) in segments {
        bytes.extend_from_slice(&segment_id_field(id));
        bytes.extend_from_slice(&(bounds.num_terms() as u32).to_le_bytes());
        bytes.extend_from_slice(&(bounds.codes.len() as u32).to_le_bytes());
        bounds.keys.iter().for_each(|k| bytes.extend_from_slice(&k.to_le_bytes()));
        bounds.starts.iter().for_each(|s| bytes.extend_from_slice(&s.to_le_bytes()));
        bytes.extend_from_slice(&bounds.codes);
        bounds.tfs.iter().for_each(|t| bytes.extend_from_slice(&t.to_le_bytes()));
    }
    crate::io::write_synced(&dir.join(FILE), &bytes)
}

/// Reads `bounds.bin` from the index folder `dir`: `None` when the index has none (built before
/// the file existed); each segment's id with its bounds otherwise.
pub(super) fn read(dir: &Path) -> Result<Option<Vec<(String, TermBounds)>>> {
    let path = dir.join(FILE);
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(&path, e)),
    };
    let bad = |found: String| Error::IncompatibleIndex { path: dir.to_path_buf(), what: FILE, found, supported: "the layout of src/index/bounds.rs (\"QBOUNDS1\")".into() };
    let mut reader = Reader { bytes: &bytes, at: 0 };
    if reader.take(8).ok_or_else(|| bad("shorter than its header".into()))? != MAGIC {
        return Err(bad("a file without the \"QBOUNDS1\" header".into()));
    }
    let truncated = |at: usize| bad(format!("truncated at byte {at}"));
    let count = reader.u32().ok_or_else(|| truncated(reader.at))?;
    let mut segments = Vec::new();
    for _ in 0..count {
        let id = reader.segment_id().ok_or_else(|| truncated(reader.at))?;
        let terms = reader.u32().ok_or_else(|| truncated(reader.at))? as usize;
        let pairs = reader.u32().ok_or_else(|| truncated(reader.at))? as usize;
        let keys: Vec<u64> = (0..terms).map(|_| reader.u64()).collect::<Option<_>>().ok_or_else(|| truncated(reader.at))?;
        let starts: Vec<u32> = (0..=terms).map(|_| reader.u32()).collect::<Option<_>>().ok_or_else(|| truncated(reader.at))?;
        let codes = reader.take(pairs).ok_or_else(|| truncated(reader.at))?.to_vec();
        let tfs: Vec<u32> = (0..pairs).map(|_| reader.u32()).collect::<Option<_>>().ok_or_else(|| truncated(reader.at))?;
        if starts.first() != Some(&0) || starts.last() != Some(&(pairs as u32)) || !starts.is_sorted() || !keys.is_sorted() {
            return Err(bad(format!("segment {id} with terms out of order")));
        }
        segments.push((id, TermBounds { keys, starts, codes, tfs }));
    }
    if reader.at != bytes.len() {
        return Err(bad(format!("{} bytes after the last segment", bytes.len() - reader.at)));
    }
    Ok(Some(segments))
}

/// A segment's id (tantivy's 32-character uuid string) as an index file stores it: 32 bytes,
/// padded with spaces ([`Reader::segment_id`] reads it back).
pub(super) fn segment_id_field(id: &str) -> [u8; 32] {
    let mut field = [b' '; 32];
    let n = id.len().min(32);
    field[..n].copy_from_slice(&id.as_bytes()[..n]);
    field
}

/// Little-endian values read one after another from an index file's bytes (`bounds.bin`,
/// `decoded.bin`); `None` past the end.
pub(super) struct Reader<'a> {
    pub bytes: &'a [u8],
    pub at: usize,
}

impl<'a> Reader<'a> {
    pub fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let slice = self.bytes.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(slice)
    }

    fn u64(&mut self) -> Option<u64> {
        self.take(8).map(|b| u64::from_le_bytes(b.try_into().expect("eight bytes")))
    }

    pub fn u32(&mut self) -> Option<u32> {
        self.take(4).map(|b| u32::from_le_bytes(b.try_into().expect("four bytes")))
    }

    /// A segment id written by [`segment_id_field`].
    pub fn segment_id(&mut self) -> Option<String> {
        self.take(32).map(|field| String::from_utf8_lossy(field).trim_end().to_string())
    }

    /// `n` values of four bytes.
    pub fn u32s(&mut self, n: usize) -> Option<Vec<u32>> {
        Some(self.take(n.checked_mul(4)?)?.chunks_exact(4).map(|b| u32::from_le_bytes(b.try_into().expect("four bytes"))).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_reads_back_as_written_and_damage_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let bounds = TermBounds { keys: vec![0, 40], starts: vec![0, 2, 3], codes: vec![3, 9, 0], tfs: vec![7, 2, 1] };
        let info = |start: usize| TermInfo { doc_freq: 1, postings_range: start..start + 1, positions_range: 0..0 };
        write(dir.path(), &[("0123456789abcdef0123456789abcdef".into(), bounds.clone())]).unwrap();
        let read_back = read(dir.path()).unwrap().unwrap();
        assert_eq!(read_back, vec![("0123456789abcdef0123456789abcdef".to_string(), bounds.clone())]);
        assert_eq!(bounds.frontier(&info(0)).collect::<Vec<_>>(), [(3, 7), (9, 2)]);
        assert_eq!(bounds.frontier(&info(40)).collect::<Vec<_>>(), [(0, 1)]);
        assert_eq!(bounds.frontier(&info(20)).count(), 0);
        let bytes = std::fs::read(dir.path().join(FILE)).unwrap();
        for cut in [0, 7, 12, 44, bytes.len() - 1] {
            std::fs::write(dir.path().join(FILE), &bytes[..cut]).unwrap();
            let message = read(dir.path()).unwrap_err().to_string();
            assert!(message.contains("bounds.bin") && message.contains("hint: rebuild"), "{message}");
        }
        std::fs::write(dir.path().join(FILE), [&bytes[..], b"x"].concat()).unwrap();
        assert!(read(dir.path()).unwrap_err().to_string().contains("1 bytes after"));
        std::fs::remove_file(dir.path().join(FILE)).unwrap();
        assert_eq!(read(dir.path()).unwrap(), None);
    }

    /// Over a real index: every term's frontier is made of its own postings' pairs, each one
    /// longer and higher in tf than the one before, and dominates every posting (a pair at
    /// most as long with at least its tf).
    #[test]
    fn every_posting_is_dominated_by_its_terms_frontier() {
        use crate::corpus::{Corpus, Document, LoadSummary};
        let dir = tempfile::tempdir().unwrap();
        let text = |i: usize| (0..(i % 23) + 1).map(|j| ["rate", "inflation", "3", "percent", "fell", "rose", "the", "gdp"][(i * 7 + j * j) % 8]).collect::<Vec<_>>().join(" ");
        let documents: Vec<Document> = (0..1500).map(|i| Document { id: format!("d{i}"), title: String::new(), text: text(i), url: None, date: None }).collect();
        let corpus = Corpus { summary: LoadSummary { documents: documents.len(), ..Default::default() }, documents };
        let path = dir.path().join("idx");
        crate::index::build(&corpus, Path::new("test"), &path, &crate::index::IndexConfig { threads: 2, ..Default::default() }, &crate::io::NoProgress).unwrap();
        let index = crate::index::Index::open(&path).unwrap();
        let mut checked = 0;
        for segment in index.segments() {
            let bounds = segment.bounds.as_ref().expect("a new index has bounds");
            let mut stream = segment.inverted.terms().stream().unwrap();
            while stream.advance() {
                let frontier: Vec<(u8, u32)> = bounds.frontier(stream.value()).collect();
                assert!(frontier.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1), "{frontier:?}");
                let mut block = segment.inverted.read_block_postings_from_terminfo(stream.value(), IndexRecordOption::WithFreqs).unwrap();
                let mut pairs = Vec::new();
                while !block.docs().is_empty() {
                    pairs.extend(block.docs().iter().zip(block.freqs()).map(|(&d, &tf)| (segment.norm_ids[d as usize], tf)));
                    block.advance();
                }
                for &(code, tf) in &pairs {
                    assert!(frontier.iter().any(|&(c, t)| c <= code && t >= tf), "({code}, {tf}) not dominated by {frontier:?}");
                }
                assert!(frontier.iter().all(|pair| pairs.contains(pair)), "{frontier:?} not among {pairs:?}");
                checked += pairs.len();
            }
        }
        assert!(checked > 2000, "{checked} postings checked");
    }
}
