//! Word rules (rules 5–9 of the module doc): unit words, stopwords, stemming.

use std::cell::RefCell;
use std::sync::Arc;

use rust_stemmers::{Algorithm, Stemmer};
use rustc_hash::FxHashMap;

/// Lucene's `EnglishAnalyzer.ENGLISH_STOP_WORDS_SET`, which Anserini's default analyzer drops.
pub const STOPWORDS: [&str; 33] = [
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no", "not", "of", "on",
    "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was", "will", "with",
];

/// Whether `word` is one of [`STOPWORDS`] (a `match`, which compiles to a length switch and a
/// few comparisons, not 33 string compares).
fn is_stopword(word: &str) -> bool {
    matches!(
        word,
        "a" | "an" | "and" | "are" | "as" | "at" | "be" | "but" | "by" | "for" | "if" | "in" | "into" | "is" | "it" | "no"
            | "not" | "of" | "on" | "or" | "such" | "that" | "the" | "their" | "then" | "there" | "these" | "they" | "this"
            | "to" | "was" | "will" | "with"
    )
}

/// The term of each word already seen on this thread (`None` for a stopword). Rules 5–9 cost
/// string comparisons and a Snowball run per word, and natural text repeats its words, so each
/// thread (tantivy's indexing workers, rayon's search workers) keeps its own map and pays one
/// hash probe per repeat; the map is cleared when it grows past [`TERM_CACHE_LIMIT`] entries.
const TERM_CACHE_LIMIT: usize = 200_000;

thread_local! {
    static TERMS: RefCell<FxHashMap<Box<str>, Option<Box<str>>>> = RefCell::new(FxHashMap::default());
}

/// The term for a lowercased word of letters (rules 5–9), or `None` for a stopword.
fn word_term(stemmer: &Stemmer, word: &str) -> Option<Box<str>> {
    let word = unit_word(word).unwrap_or(word);
    if is_stopword(word) {
        None
    } else {
        Some(stemmer.stem(word).into())
    }
}

/// Whole words replaced by their spelled-out unit (rules 5–7), before stemming.
fn unit_word(word: &str) -> Option<&'static str> {
    Some(match word {
        "pct" => "percent",
        "usd" => "dollar",
        "eur" => "euro",
        "gbp" => "pound",
        "bn" => "billion",
        "mn" => "million",
        "tn" | "trn" => "trillion",
        _ => return None,
    })
}

/// The stemmer, shared.
#[derive(Clone)]
pub(super) struct Words {
    // One stemmer (rust-stemmers' English is stateless), shared by every clone.
    stemmer: Arc<Stemmer>,
}

impl Words {
    pub fn new() -> Self {
        Words { stemmer: Arc::new(Stemmer::create(Algorithm::English)) }
    }
}

/// Receives the scanner's pieces and emits terms; holds back `per` to see whether `cent` follows.
pub(crate) struct Sink<'a> {
    words: &'a Words,
    emit: &'a mut dyn FnMut(&str),
    held_per: bool,
}

impl<'a> Sink<'a> {
    pub fn new(words: &'a Words, emit: &'a mut dyn FnMut(&str)) -> Self {
        Sink { words, emit, held_per: false }
    }

    /// A term that is emitted as it is (numbers, words with digits).
    pub fn verbatim(&mut self, term: &str) {
        self.release_per();
        (self.emit)(term);
    }

    /// A lowercased word of letters.
    pub fn word(&mut self, word: &str) {
        if self.held_per {
            self.held_per = false;
            if word == "cent" {
                (self.emit)("percent");
                return;
            }
            (self.emit)("per");
        }
        if word == "per" {
            self.held_per = true;
            return;
        }
        let emit = &mut self.emit;
        let stemmer = &self.words.stemmer;
        TERMS.with(|cache| {
            let mut cache = cache.borrow_mut();
            if let Some(term) = cache.get(word) {
                if let Some(term) = term {
                    emit(term);
                }
                return;
            }
            let term = word_term(stemmer, word);
            if let Some(term) = &term {
                emit(term);
            }
            if cache.len() >= TERM_CACHE_LIMIT {
                cache.clear();
            }
            cache.insert(word.into(), term);
        });
    }

    /// Emits anything held back; call once at the end of a text.
    pub fn flush(&mut self) {
        self.release_per();
    }

    fn release_per(&mut self) {
        if self.held_per {
            self.held_per = false;
            (self.emit)("per");
        }
    }
}
