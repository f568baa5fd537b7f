//! A small collection's postings, decoded once and kept in memory as plain arrays.
//!
//! In a collection of a few thousand documents a query term has a few hundred postings, and
//! finding and decoding them costs nearly as much as adding them: SciFact's claims on one
//! thread at k = 10 (`perf`) spent a fifth of a whole run in term-dictionary (FST) lookups,
//! opening postings and unpacking blocks of 128, against a third in adding. A one-segment index
//! of at most [`MAX_TOKENS`] tokens is therefore also held here, read once from its segment: a
//! hash table from term to number, and each term's documents and frequencies in the order of
//! the segment's postings. A later stage may keep one array of per-posting values beside them
//! ([`DecodedPostings::values`]): the BM25 scorer keeps each posting's contribution for its
//! parameters, so that adding a term is one load and one add per posting. Measured (2026-12-03,
//! SciFact's claims listed 20 times over, one thread, the CLI from claims to run file, fastest
//! of 7): 0.12 s instead of 0.17 s at k = 10, 0.75 s instead of 0.81 s at k = 1000, identical
//! run files.

use std::sync::OnceLock;

use rustc_hash::FxHashMap;
use tantivy::postings::BlockSegmentPostings;
use tantivy::schema::IndexRecordOption;
use tantivy::InvertedIndexReader;

/// The most tokens a collection may hold to be decoded (postings are fewer): 12 bytes a posting
/// with the contributions, 48 MiB at most. SciFact holds 0.85 million tokens in 0.51 million
/// postings (6 MiB), the NFCorpus-sized benchmark collection 0.23 million in 0.21 million; the
/// 165,700-snippet benchmark corpora hold more than twice the limit in words alone, and are
/// searched from tantivy's postings, so their memory while searching stays a tenth of
/// Anserini's.
pub const MAX_TOKENS: u64 = 4 << 20;

/// One segment's postings as arrays (module doc).
pub struct DecodedPostings {
    /// A term's text → its number.
    numbers: FxHashMap<Box<str>, u32>,
    /// Term `t`'s postings are `docs[starts[t]..starts[t + 1]]`, with `freqs` beside them.
    starts: Vec<u32>,
    docs: Vec<u32>,
    freqs: Vec<u32>,
    /// One value per posting that a later stage computes once, under the key it gave
    /// ([`DecodedPostings::values`]).
    values: OnceLock<(u64, Vec<f32>)>,
}

impl DecodedPostings {
    /// Reads every term's postings of `inverted`, a segment of at most [`MAX_TOKENS`] tokens
    /// (more postings than `u32` counts are refused as `None`).
    pub(super) fn read(inverted: &InvertedIndexReader) -> std::io::Result<Option<DecodedPostings>> {
        let terms = inverted.terms();
        let mut numbers = FxHashMap::default();
        numbers.reserve(terms.num_terms());
        let (mut starts, mut docs, mut freqs) = (Vec::with_capacity(terms.num_terms() + 1), Vec::new(), Vec::new());
        let mut stream = terms.stream()?;
        while stream.advance() {
            // Terms of the body field are analysed text: UTF-8 (a key that is not could never
            // be looked up from a query, and is left out).
            let Ok(text) = std::str::from_utf8(stream.key()) else { continue };
            let Ok(start) = u32::try_from(docs.len()) else { return Ok(None) };
            numbers.insert(text.into(), starts.len() as u32);
            starts.push(start);
            let mut block: BlockSegmentPostings = inverted.read_block_postings_from_terminfo(stream.value(), IndexRecordOption::WithFreqs)?;
            while !block.docs().is_empty() {
                docs.extend_from_slice(block.docs());
                freqs.extend_from_slice(block.freqs());
                block.advance();
            }
        }
        let Ok(end) = u32::try_from(docs.len()) else { return Ok(None) };
        starts.push(end);
        Ok(Some(DecodedPostings { numbers, starts, docs, freqs, values: OnceLock::new() }))
    }

    /// The number of the term with this (analysed) text, if the segment has it.
    #[inline]
    pub fn number(&self, text: &str) -> Option<u32> {
        self.numbers.get(text).copied()
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

    /// One value per posting, made by `make` on first use and kept with the postings under
    /// `key` (what the values depend on, such as BM25 parameters' bits); `None` when values
    /// under another key were kept first — one set is kept, the first asked for.
    pub fn values(&self, key: u64, make: impl FnOnce(&DecodedPostings) -> Vec<f32>) -> Option<&[f32]> {
        let (kept, values) = self.values.get_or_init(|| (key, make(self)));
        (*kept == key).then_some(values.as_slice())
    }
}
