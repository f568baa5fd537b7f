//! Word rules (rules 5–9 of the module doc): unit words, stopwords, stemming.

use rust_stemmers::{Algorithm, Stemmer};
use std::sync::Arc;

/// Lucene's `EnglishAnalyzer.ENGLISH_STOP_WORDS_SET`, which Anserini's default analyzer drops.
pub const STOPWORDS: [&str; 33] = [
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no", "not", "of", "on",
    "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was", "will", "with",
];

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
        let word = unit_word(word).unwrap_or(word);
        if STOPWORDS.contains(&word) {
            return;
        }
        let stemmed = self.words.stemmer.stem(word);
        (self.emit)(&stemmed);
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
