//! A small collection's postings, decoded once and kept in memory as plain arrays.
//!
//! In a collection of a few thousand documents a query term has a few hundred postings, and
//! finding and decoding them costs nearly as much as adding them: SciFact's claims on one
//! thread at k = 10 (`perf`) spent a fifth of a whole run in term-dictionary (FST) lookups,
//! opening postings and unpacking blocks of 128, against a third in adding. A one-segment index
//! of at most [`MAX_TOKENS`] tokens is therefore also held here, read once from its segment: a
//! hash table from term to number, and each term's documents and frequencies in the order of
//! the segment's postings. A later stage may keep what it derives from them beside them
//! ([`DecodedPostings::derived`]): the BM25 scorer keeps each posting's contribution for its
//! parameters, so that adding a term is one load and one add per posting. Measured (2026-12-03,
//! SciFact's claims listed 20 times over, one thread, the CLI from claims to run file, fastest
//! of 7): 0.12 s instead of 0.17 s at k = 10, 0.75 s instead of 0.81 s at k = 1000, identical
//! run files.
//!
//! Decoding walks the term dictionary and unpacks every block: for SciFact 9.4 ms, more than
//! half of a process that searches one claim. A build therefore also writes the arrays
//! (`decoded.bin`), and opening reads them back; an index built before the file existed is
//! decoded from its segment. Measured (2026-12-03, SciFact, one thread, the CLI, fastest of 15
//! and 11): one claim 9.8 ms instead of 16.6 ms, its claims listed 20 times over at k = 10
//! 67.1 ms instead of 72.5 ms, identical run files; the build 7 ms longer (245 ms) and the
//! index 4.5 MB larger (11 MB). The file, little-endian:
//! ```text
//! "QDECODE1"                 magic and version
//! [u8; 32]                   the segment's id (tantivy's uuid string)
//! u32 terms, u32 postings, u32 text bytes, u32 documents (the segment's max_doc)
//! [u32; terms + 1]           text starts
//! [u8; text bytes]           the terms' texts, one after another (UTF-8)
//! [u32; terms + 1]           postings starts
//! [u32; postings]            documents, increasing within a term, below max_doc
//! [u32; postings]            term frequencies, at least 1
//! ```

use std::any::Any;
use std::hash::BuildHasher;
use std::path::Path;
use std::sync::OnceLock;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;
use tantivy::postings::BlockSegmentPostings;
use tantivy::schema::IndexRecordOption;
use tantivy::InvertedIndexReader;

use crate::analysis::pack;
use crate::error::{Error, Result};

/// The most tokens a collection may hold to be decoded (postings are fewer): 12 bytes a posting
/// with the contributions, 48 MiB at most. SciFact holds 0.85 million tokens in 0.51 million
/// postings (6 MiB), the NFCorpus-sized benchmark collection 0.23 million in 0.21 million; the
/// 165,700-snippet benchmark corpora hold more than twice the limit in words alone, and are
/// searched from tantivy's postings, so their memory while searching stays a tenth of
/// Anserini's.
pub const MAX_TOKENS: u64 = 4 << 20;

/// Whether an index of `segments` segments holding `total_tokens` tokens has its postings
/// decoded: one segment of at most [`MAX_TOKENS`] tokens.
pub(super) fn applies(segments: usize, total_tokens: u64) -> bool {
    segments == 1 && total_tokens <= MAX_TOKENS
}

/// The file's name in the index folder (module doc).
pub(super) const FILE: &str = "decoded.bin";

const MAGIC: &[u8; 8] = b"QDECODE1";

/// One segment's postings as arrays (module doc).
pub struct DecodedPostings {
    /// Every term's text, one after another: term `t`'s is `texts[text_starts[t]..text_starts[t + 1]]`
    /// (one allocation: a `Box<str>` a term, made on reading and freed on exit, was a tenth of
    /// a SciFact process that searched one claim).
    texts: String,
    text_starts: Vec<u32>,
    /// The terms by their texts ([`key`]).
    numbers: HashTable<Entry>,
    /// Term `t`'s postings are `docs[starts[t]..starts[t + 1]]`, with `freqs` beside them.
    starts: Vec<u32>,
    docs: Vec<u32>,
    freqs: Vec<u32>,
    /// What a later stage derives from the postings once, under the key it gave
    /// ([`DecodedPostings::derived`]).
    derived: OnceLock<(u64, Box<dyn Any + Send + Sync>)>,
}

impl DecodedPostings {
    /// Reads every term's postings of `inverted`, a segment of at most [`MAX_TOKENS`] tokens
    /// (more postings than `u32` counts are refused as `None`).
    pub(super) fn read(inverted: &InvertedIndexReader) -> std::io::Result<Option<DecodedPostings>> {
        let terms = inverted.terms();
        let count = terms.num_terms();
        let (mut texts, mut text_starts) = (String::new(), Vec::with_capacity(count + 1));
        // Postings are at most the tokens: reserved once, the arrays are never copied to grow
        // (pages reserved beyond the postings are never touched).
        let most = usize::try_from(inverted.total_num_tokens()).unwrap_or(usize::MAX).min(MAX_TOKENS as usize);
        let (mut starts, mut docs, mut freqs) = (Vec::with_capacity(count + 1), Vec::with_capacity(most), Vec::with_capacity(most));
        let mut stream = terms.stream()?;
        while stream.advance() {
            // Terms of the body field are analysed text: UTF-8 (a key that is not could never
            // be looked up from a query, and is left out).
            let Ok(text) = std::str::from_utf8(stream.key()) else { continue };
            let (Ok(start), Ok(text_start)) = (u32::try_from(docs.len()), u32::try_from(texts.len())) else { return Ok(None) };
            text_starts.push(text_start);
            texts.push_str(text);
            starts.push(start);
            let mut block: BlockSegmentPostings = inverted.read_block_postings_from_terminfo(stream.value(), IndexRecordOption::WithFreqs)?;
            while !block.docs().is_empty() {
                docs.extend_from_slice(block.docs());
                freqs.extend_from_slice(block.freqs());
                block.advance();
            }
        }
        let (Ok(end), Ok(text_end)) = (u32::try_from(docs.len()), u32::try_from(texts.len())) else { return Ok(None) };
        starts.push(end);
        text_starts.push(text_end);
        Ok(Some(Self::from_arrays(texts, text_starts, starts, docs, freqs)))
    }

    /// The postings of these arrays (as [`DecodedPostings`] holds them, checked by the caller),
    /// with the table of their terms.
    fn from_arrays(texts: String, text_starts: Vec<u32>, starts: Vec<u32>, docs: Vec<u32>, freqs: Vec<u32>) -> DecodedPostings {
        let count = starts.len() - 1;
        let mut numbers = HashTable::with_capacity(count);
        for number in 0..count as u32 {
            let rehash = |entry: &Entry| key(term_text(&texts, &text_starts, entry.number)).0;
            let (hash, packed) = key(term_text(&texts, &text_starts, number));
            numbers.insert_unique(hash, Entry { packed, number }, rehash);
        }
        DecodedPostings { texts, text_starts, numbers, starts, docs, freqs, derived: OnceLock::new() }
    }

    /// Writes the postings into `dir` ([`FILE`], the module doc's layout) for the segment `id`
    /// of `max_doc` documents.
    pub(super) fn write(&self, dir: &Path, id: &str, max_doc: u32) -> Result<()> {
        let words = 4 + self.text_starts.len() + self.starts.len() + 2 * self.docs.len();
        let mut bytes = Vec::with_capacity(8 + 32 + 4 * words + self.texts.len());
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&super::bounds::segment_id_field(id));
        // Every count fits a u32: `read` refuses more.
        for count in [self.num_terms(), self.docs.len(), self.texts.len(), max_doc as usize] {
            bytes.extend_from_slice(&(count as u32).to_le_bytes());
        }
        let words = |bytes: &mut Vec<u8>, values: &[u32]| values.iter().for_each(|v| bytes.extend_from_slice(&v.to_le_bytes()));
        words(&mut bytes, &self.text_starts);
        bytes.extend_from_slice(self.texts.as_bytes());
        words(&mut bytes, &self.starts);
        words(&mut bytes, &self.docs);
        words(&mut bytes, &self.freqs);
        crate::io::write_synced(&dir.join(FILE), &bytes)
    }

    /// Reads [`FILE`] from the index folder `dir`, written for the segment `id` of `max_doc`
    /// documents: `None` when the index has none (built before the file existed). A file for
    /// another segment or damaged is refused (every document is checked to be inside the
    /// segment: the accumulator is indexed by them).
    pub(super) fn read_file(dir: &Path, id: &str, max_doc: u32) -> Result<Option<DecodedPostings>> {
        let path = dir.join(FILE);
        let file = match std::fs::File::open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(&path, e)),
        };
        // Mapped, not read into a buffer: the arrays are copied out of it once, and a buffer of
        // the file's size was another 4.5 MB of fresh pages for SciFact, whose faults cost more
        // than the copy. SAFETY: read-only map of a file quantir wrote and never modifies in
        // place (indexes are replaced by renaming whole folders).
        let bytes = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| Error::io(&path, e))?;
        let bad = |found: String| Error::IncompatibleIndex { path: dir.to_path_buf(), what: FILE, found, supported: "the layout of src/index/decoded.rs (\"QDECODE1\")".into() };
        let mut reader = super::bounds::Reader { bytes: &bytes, at: 0 };
        if reader.take(8) != Some(&MAGIC[..]) {
            return Err(bad("a file without the \"QDECODE1\" header".into()));
        }
        let truncated = |at: usize| bad(format!("truncated at byte {at}"));
        let written_for = reader.segment_id().ok_or_else(|| truncated(reader.at))?;
        if written_for != id {
            return Err(bad(format!("postings of segment {written_for}, not of the index's segment {id}")));
        }
        let counts = reader.u32s(4).ok_or_else(|| truncated(reader.at))?;
        let [terms, postings, text_bytes, documents] = [0, 1, 2, 3].map(|i| counts[i] as usize);
        if documents != max_doc as usize {
            return Err(bad(format!("postings of {documents} documents, not of the segment's {max_doc}")));
        }
        let text_starts = reader.u32s(terms + 1).ok_or_else(|| truncated(reader.at))?;
        let texts = reader.take(text_bytes).ok_or_else(|| truncated(reader.at))?;
        let texts = String::from_utf8(texts.to_vec()).map_err(|e| bad(format!("term texts that are not UTF-8 ({e})")))?;
        let starts = reader.u32s(terms + 1).ok_or_else(|| truncated(reader.at))?;
        let docs = reader.u32s(postings).ok_or_else(|| truncated(reader.at))?;
        let freqs = reader.u32s(postings).ok_or_else(|| truncated(reader.at))?;
        if reader.at != bytes.len() {
            return Err(bad(format!("{} bytes after the frequencies", bytes.len() - reader.at)));
        }
        let spans = |starts: &[u32], end: usize| starts.first() == Some(&0) && starts.last() == Some(&(end as u32)) && starts.is_sorted();
        if !spans(&text_starts, text_bytes) || !text_starts.iter().all(|&s| texts.is_char_boundary(s as usize)) {
            return Err(bad("term texts out of order".into()));
        }
        if !spans(&starts, postings) {
            return Err(bad("postings out of order".into()));
        }
        for (number, term) in starts.windows(2).enumerate() {
            let docs = &docs[term[0] as usize..term[1] as usize];
            if !docs.windows(2).all(|pair| pair[0] < pair[1]) || docs.last().is_some_and(|&last| last >= max_doc) {
                let text = term_text(&texts, &text_starts, number as u32);
                return Err(bad(format!("the postings of term {text:?} out of order or outside the segment")));
            }
        }
        if freqs.contains(&0) {
            return Err(bad("a term frequency of 0".into()));
        }
        Ok(Some(Self::from_arrays(texts, text_starts, starts, docs, freqs)))
    }

    /// The number of the term with this (analysed) text, if the segment has it.
    #[inline]
    pub fn number(&self, text: &str) -> Option<u32> {
        let (hash, packed) = key(text);
        let found = self.numbers.find(hash, |entry| entry.packed == packed && (packed != LONG || self.text(entry.number) == text));
        found.map(|entry| entry.number)
    }

    /// [`DecodedPostings::number`] of a short term by its key.
    #[inline]
    pub fn number_of(&self, key: TermKey) -> Option<u32> {
        self.numbers.find(key.hash, |entry| entry.packed == key.packed).map(|entry| entry.number)
    }

    /// Term `number`'s text.
    fn text(&self, number: u32) -> &str {
        term_text(&self.texts, &self.text_starts, number)
    }

    /// Where term `number`'s postings are in [`DecodedPostings::docs`] and the others.
    #[inline]
    pub fn span(&self, number: u32) -> std::ops::Range<usize> {
        self.starts[number as usize] as usize..self.starts[number as usize + 1] as usize
    }

    /// Every posting's document, term after term, each term's in increasing order.
    pub fn docs(&self) -> &[u32] {
        &self.docs
    }

    /// Every posting's term frequency, beside [`DecodedPostings::docs`].
    pub fn freqs(&self) -> &[u32] {
        &self.freqs
    }

    /// Number of terms.
    pub fn num_terms(&self) -> usize {
        self.starts.len() - 1
    }

    /// What `make` derives from the postings (such as each posting's BM25 contribution), made
    /// on first use and kept with the postings under `key` (what it depends on, such as BM25
    /// parameters' bits); `None` when something under another key, or of another type, was kept
    /// first — one is kept, the first asked for.
    pub fn derived<T: Any + Send + Sync>(&self, key: u64, make: impl FnOnce(&DecodedPostings) -> T) -> Option<&T> {
        let (kept, derived) = self.derived.get_or_init(|| (key, Box::new(make(self))));
        (*kept == key).then(|| derived.downcast_ref()).flatten()
    }
}

/// Term `number`'s text in `texts`, which holds every term's one after another from
/// `text_starts` (one start a term, and one past the last term's end).
#[inline]
fn term_text<'t>(texts: &'t str, text_starts: &[u32], number: u32) -> &'t str {
    &texts[text_starts[number as usize] as usize..text_starts[number as usize + 1] as usize]
}

/// A term in [`DecodedPostings::numbers`]: its number and its text [`pack`]ed, or [`LONG`] for
/// a text that does not pack. A short term is found by comparing the packed texts, without
/// reading the texts: searching SciFact's claims, the texts were mostly out of the core's
/// caches, evicted by the accumulator's rows, and reading them was a tenth of a search.
#[derive(Clone, Copy)]
struct Entry {
    packed: [u64; 2],
    number: u32,
}

/// [`Entry::packed`] of a text that does not pack, compared by its text (and of the empty one).
const LONG: [u64; 2] = [0, 0];

/// A term text's hash in [`DecodedPostings::numbers`] and its [`Entry::packed`].
#[inline]
fn key(text: &str) -> (u64, [u64; 2]) {
    match TermKey::of(text) {
        Some(TermKey { hash, packed }) => (hash, packed),
        None => (FxBuildHasher.hash_one(text), LONG),
    }
}

/// A short term's place in the term table (its hash and its text packed), computed apart
/// from the lookup ([`DecodedPostings::number_of`]): a query's terms are keyed as the analyzer
/// emits them and then looked up one after another, so that the table's cache misses overlap
/// instead of each waiting for the analysis of the next word. Searching SciFact's claims, the
/// table is mostly out of the core's caches (evicted by the postings read in between), and
/// looking each term up as it was emitted was a tenth of a search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TermKey {
    hash: u64,
    packed: [u64; 2],
}

impl TermKey {
    /// The key of a term of at most 16 bytes (nearly all); `None` for a longer one, found by
    /// its text ([`DecodedPostings::number`]).
    #[inline]
    pub fn of(text: &str) -> Option<TermKey> {
        pack(text).map(TermKey::packed)
    }

    /// The key of a term packed as the analyzer packs it ([`crate::analysis::Emitted::Packed`]).
    #[inline]
    pub fn packed(packed: u128) -> TermKey {
        let packed = [packed as u64, (packed >> 64) as u64];
        TermKey { hash: FxBuildHasher.hash_one(packed), packed }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The arrays as a comparable value.
    fn arrays(postings: &DecodedPostings) -> (&str, &[u32], &[u32], &[u32], &[u32]) {
        (&postings.texts, &postings.text_starts, &postings.starts, &postings.docs, &postings.freqs)
    }

    /// A build writes `decoded.bin`, which reads back as the postings decoded from the segment
    /// (every term found by its text, and no other text); a file for another segment, cut short, longer, with a
    /// document outside the segment or a frequency of 0 is refused with a hint to rebuild, and
    /// an index without one is decoded from its segment.
    #[test]
    fn the_file_reads_back_as_the_segment_decodes_and_damage_is_refused() {
        use crate::corpus::{Corpus, Document, LoadSummary};
        let dir = tempfile::tempdir().unwrap();
        let text = |i: usize| (0..(i % 19) + 1).map(|j| ["rate", "inflation", "3.5", "percent", "fell", "rose", "naïve", "counterrevolutionaries", "100,000"][(i * 5 + j * j) % 9]).collect::<Vec<_>>().join(" ");
        let documents: Vec<Document> = (0..700).map(|i| Document { id: format!("d{i}"), title: String::new(), text: text(i), url: None, date: None }).collect();
        let corpus = Corpus { summary: LoadSummary { documents: documents.len(), ..Default::default() }, documents };
        let path = dir.path().join("idx");
        crate::index::build(&corpus, Path::new("test"), &path, &crate::index::IndexConfig { threads: 1, ..Default::default() }, &crate::io::NoProgress).unwrap();
        let index = crate::index::Index::open(&path).unwrap();
        let [segment] = index.segments() else { panic!("one writer thread: one segment") };
        let max_doc = segment.norm_ids.len() as u32;
        let generation = index.generation_dir().to_path_buf();
        let from_file = DecodedPostings::read_file(&generation, &segment.id, max_doc).unwrap().expect("the build wrote decoded.bin");
        let from_segment = DecodedPostings::read(&segment.inverted).unwrap().unwrap();
        assert_eq!(arrays(&from_file), arrays(&from_segment));
        assert!(from_file.num_terms() >= 9 && from_file.docs().len() > 2000);
        // Every term found by its text, short ones by their packed text, long ones by the text.
        for number in 0..from_file.num_terms() as u32 {
            assert_eq!(from_file.number(from_file.text(number)), Some(number));
        }
        assert!((0..from_file.num_terms() as u32).any(|n| from_file.text(n).len() > 16), "a term too long to pack");
        for absent in ["", "rat", "rates", "counterrevolutionar", "counterrevolutionaris"] {
            assert_eq!(from_file.number(absent), None, "{absent:?}");
        }
        assert!(index.decoded().unwrap().is_some_and(|decoded| arrays(decoded) == arrays(&from_segment)));

        let file = generation.join(FILE);
        let bytes = std::fs::read(&file).unwrap();
        let refused = |bytes: &[u8], id: &str, max_doc: u32| {
            std::fs::write(&file, bytes).unwrap();
            let message = DecodedPostings::read_file(&generation, id, max_doc).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(message.contains("decoded.bin") && message.contains("hint: rebuild"), "{message:?}");
            message
        };
        for cut in [0, 7, 12, 44, 60, bytes.len() / 2, bytes.len() - 1] {
            refused(&bytes[..cut], &segment.id, max_doc);
        }
        assert!(refused(&[&bytes[..], b"x"].concat(), &segment.id, max_doc).contains("1 bytes after"));
        assert!(refused(&bytes, "0123456789abcdef0123456789abcdef", max_doc).contains("not of the index's segment"));
        assert!(refused(&bytes, &segment.id, max_doc - 1).contains("documents"));
        // The last posting's document, then its frequency (the file's last eight bytes).
        let mut outside = bytes.clone();
        let at = bytes.len() - 4 * (from_file.docs().len() + 1);
        outside[at..at + 4].copy_from_slice(&max_doc.to_le_bytes());
        assert!(refused(&outside, &segment.id, max_doc).contains("outside the segment"));
        let mut zero = bytes.clone();
        let end = zero.len();
        zero[end - 4..].copy_from_slice(&0u32.to_le_bytes());
        assert!(refused(&zero, &segment.id, max_doc).contains("frequency of 0"));
        std::fs::write(&file, &bytes).unwrap();
        assert!(DecodedPostings::read_file(&generation, &segment.id, max_doc).unwrap().is_some());
        std::fs::remove_file(&file).unwrap();
        assert!(DecodedPostings::read_file(&generation, &segment.id, max_doc).unwrap().is_none());
        // The generation's digests list decoded.bin: without it, the index is refused as damaged
        // until its record says the file is not there.
        assert!(matches!(crate::index::Index::open(&path).unwrap_err(), crate::Error::IndexDamaged { damage: crate::error::Damage::Missing, .. }));
        drop(index);
        crate::index::testing::restamp(&path).unwrap();
        let reopened = crate::index::Index::open(&path).unwrap();
        assert!(reopened.decoded().unwrap().is_some_and(|decoded| arrays(decoded) == arrays(&from_segment)));
    }
}
