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

use std::any::Any;
use std::sync::OnceLock;

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;
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
    /// Every term's text, one after another: term `t`'s is `texts[text_starts[t]..text_starts[t + 1]]`
    /// (one allocation: a `Box<str>` a term, made on reading and freed on exit, was a tenth of
    /// a SciFact process that searched one claim).
    texts: String,
    text_starts: Vec<u32>,
    /// The term numbers, hashed by their texts ([`hash`]).
    numbers: HashTable<u32>,
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
        let (mut texts, mut text_starts, mut numbers) = (String::new(), Vec::with_capacity(count + 1), HashTable::with_capacity(count));
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
            let number = starts.len() as u32;
            text_starts.push(text_start);
            texts.push_str(text);
            // Only earlier terms are in the table (each one's text ends where the next starts).
            let rehash = |&n: &u32| hash(term_text(&texts, &text_starts, n));
            numbers.insert_unique(hash(text), number, rehash);
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
        Ok(Some(DecodedPostings { texts, text_starts, numbers, starts, docs, freqs, derived: OnceLock::new() }))
    }

    /// The number of the term with this (analysed) text, if the segment has it.
    #[inline]
    pub fn number(&self, text: &str) -> Option<u32> {
        self.numbers.find(hash(text), |&number| self.text(number) == text).copied()
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

/// A term text's hash in [`DecodedPostings::numbers`].
fn hash(text: &str) -> u64 {
    FxBuildHasher.hash_one(text)
}
