//! Word rules (rules 5–9 of the module doc): unit words, stopwords, stemming.

use std::cell::RefCell;
use std::sync::Arc;

use rust_stemmers::{Algorithm, Stemmer};
use rustc_hash::FxHashMap;

/// A term as [`super::Analyzer::analyze_emitted`] gives it: a short term as the analyzer's cache holds
/// it, packed (its bytes in order in one integer, zeros after them), or as text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Emitted<'t> {
    /// A term of at most 16 bytes, packed.
    Packed(u128),
    /// Any term, as text.
    Text(&'t str),
}

impl<'t> Emitted<'t> {
    /// The term's text (a packed one unpacked into `buffer`).
    pub fn text<'b>(self, buffer: &'b mut [u8; 16]) -> &'b str
    where
        't: 'b,
    {
        match self {
            Emitted::Packed(packed) => unpack(packed, buffer),
            Emitted::Text(text) => text,
        }
    }
}

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

/// The term of each word already seen on this thread (none for a stopword). Rules 5–9 cost
/// string comparisons and a Snowball run per word, and natural text repeats its words, so each
/// thread (tantivy's indexing workers, rayon's search workers) keeps its own map and pays one
/// hash probe per repeat; the map is cleared when it grows past [`TERM_CACHE_LIMIT`] entries.
const TERM_CACHE_LIMIT: usize = 200_000;

/// A word's term as cached.
enum Cached {
    /// A stopword: no term.
    Stop,
    /// A term of at most 16 bytes, [`pack`]ed.
    Short(u128),
    Long(Box<str>),
}

/// The cache: words of at most 16 bytes (nearly all) are keyed by their [`pack`]ing, so a probe
/// hashes and compares one integer instead of following a pointer to compare bytes (those
/// comparisons were a third of the analyzer's time when indexing, 2026-12-02). In front of the
/// maps, [`FRONT_SLOTS`] slots hold the last short word found in the map at each hash: the
/// frequent words of a text stay in them, packed in a quarter of a megabyte, where a probe of
/// the map (48-byte entries among the rare words') mostly missed the core's cache. Building the
/// scale corpus's index, the analyzer's share of the CPU time went from 16–17% to 13–15%
/// (2026-12-03).
#[derive(Default)]
struct TermCache {
    front: Option<Box<[Front]>>,
    short: FxHashMap<u128, Cached>,
    long: FxHashMap<Box<str>, Cached>,
}

/// The front slots, made on first use.
fn front_slots(front: &mut Option<Box<[Front]>>) -> &mut [Front] {
    front.get_or_insert_with(|| vec![Front::default(); FRONT_SLOTS].into_boxed_slice())
}

/// Direct-mapped slots in front of the maps (a power of two).
const FRONT_SLOTS: usize = 1 << 13;

/// A front slot: a [`pack`]ed short word and its packed term, 0 for a stopword (a term is never
/// empty); a word of 0 marks an empty slot (a word is never empty either).
#[derive(Clone, Copy, Default)]
#[repr(align(32))]
struct Front {
    word: u128,
    term: u128,
}

/// The front slot of a packed word.
fn front_slot(packed: u128) -> usize {
    let mixed = ((packed as u64) ^ ((packed >> 64) as u64).rotate_left(29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (mixed >> (64 - FRONT_SLOTS.trailing_zeros())) as usize
}

thread_local! {
    static TERMS: RefCell<TermCache> = RefCell::new(TermCache::default());
}

/// A text of at most 16 bytes as one integer, its bytes in order and zeros after them; one to
/// one for texts without a zero byte (words and terms have none: letters only). Also the key
/// of a short term in a decoded index's term table ([`crate::index::DecodedPostings`]).
#[inline]
pub(crate) fn pack(text: &str) -> Option<u128> {
    let bytes = text.as_bytes();
    (bytes.len() <= 16 && !bytes.contains(&0)).then(|| {
        let mut packed = [0u8; 16];
        packed[..bytes.len()].copy_from_slice(bytes);
        u128::from_le_bytes(packed)
    })
}

/// The text [`pack`] made `packed` from, written into `buffer`.
pub(super) fn unpack(packed: u128, buffer: &mut [u8; 16]) -> &str {
    *buffer = packed.to_le_bytes();
    let len = 16 - (packed.leading_zeros() / 8) as usize;
    if packed & ASCII_HIGH_BITS == 0 {
        // SAFETY: every byte is below 0x80, ASCII, which is UTF-8 (nearly every term; the
        // check of the others was a fortieth of an index build's CPU time).
        return unsafe { std::str::from_utf8_unchecked(&buffer[..len]) };
    }
    std::str::from_utf8(&buffer[..len]).expect("a packed term is the UTF-8 it was packed from")
}

/// The high bit of each of a packed text's bytes: none set for ASCII.
const ASCII_HIGH_BITS: u128 = u128::from_le_bytes([0x80; 16]);

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

/// Short words a [`Sink`] holds before finding their terms. Each word's front slot is
/// prefetched when the word arrives and read when the batch is resolved, so that the slots'
/// cache misses overlap instead of each waiting for the scanning of the next word: searching
/// SciFact's claims, the slots are mostly out of the core's caches (evicted by the postings
/// read in between), and that miss was half of the analysis.
const PENDING: usize = 16;

/// [`pack`] of a word known at compile time (at most 16 bytes, no zero byte).
const fn packed(word: &str) -> u128 {
    let (bytes, mut packed, mut i) = (word.as_bytes(), 0u128, 0);
    while i < bytes.len() {
        packed |= (bytes[i] as u128) << (8 * i);
        i += 1;
    }
    packed
}

const PER: u128 = packed("per");
const CENT: u128 = packed("cent");

/// A word as the sink resolves it: one of at most 16 bytes [`pack`]ed, a longer one as text.
#[derive(Clone, Copy)]
enum Word<'w> {
    Short(u128),
    Long(&'w str),
}

/// Receives the scanner's pieces and emits terms; holds back `per` to see whether `cent` follows.
pub(crate) struct Sink<'a> {
    words: &'a Words,
    emit: &'a mut dyn FnMut(Emitted<'_>),
    held_per: bool,
    /// Short words whose terms are not found yet, in order: `pending[..waiting]`.
    pending: [u128; PENDING],
    waiting: usize,
    /// This thread's front slots, for prefetching only (a prefetch reads nothing the program
    /// sees and cannot fault).
    front: *const Front,
}

impl<'a> Sink<'a> {
    pub fn new(words: &'a Words, emit: &'a mut dyn FnMut(Emitted<'_>)) -> Self {
        let front = TERMS.with(|cache| front_slots(&mut cache.borrow_mut().front).as_ptr());
        Sink { words, emit, held_per: false, pending: [0; PENDING], waiting: 0, front }
    }

    /// A term that is emitted as it is (numbers, words with digits).
    pub fn verbatim(&mut self, term: &str) {
        self.resolve();
        self.release_per();
        (self.emit)(Emitted::Text(term));
    }

    /// A lowercased word of letters: a short one waits for its batch ([`PENDING`]), a long
    /// one (rare) is resolved at once, after the words before it.
    pub fn word(&mut self, word: &str) {
        let Some(key) = pack(word) else {
            self.resolve();
            self.resolve_word(Word::Long(word));
            return;
        };
        if self.waiting == PENDING {
            self.resolve();
        }
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a prefetch has no effect the program can see and never faults.
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            _mm_prefetch::<_MM_HINT_T0>(self.front.wrapping_add(front_slot(key)).cast())
        };
        self.pending[self.waiting] = key;
        self.waiting += 1;
    }

    /// Emits the terms of the waiting words, in order: first each word's term is looked up in
    /// the front slots and the map of short words, one word after another, so that the map's
    /// cache misses overlap too (a tenth of an index build's CPU time was that miss); then
    /// the terms are emitted, a word that was not found resolved on its own
    /// ([`Sink::resolve_word`]: a long term, or a word not seen yet on this thread).
    fn resolve(&mut self) {
        let waiting = std::mem::take(&mut self.waiting);
        if waiting == 0 {
            return;
        }
        // Each word's packed term (0 for a stopword), or `None` where it is resolved on its own.
        let mut found = [None; PENDING];
        TERMS.with(|cache| {
            let mut cache = cache.borrow_mut();
            let cache = &mut *cache;
            for (&key, found) in self.pending[..waiting].iter().zip(&mut found) {
                let slot = &mut front_slots(&mut cache.front)[front_slot(key)];
                if slot.word != key {
                    let term = match cache.short.get(&key) {
                        Some(Cached::Stop) => 0,
                        Some(Cached::Short(term)) => *term,
                        Some(Cached::Long(_)) | None => continue,
                    };
                    *slot = Front { word: key, term };
                }
                *found = Some(slot.term);
            }
        });
        let pending = self.pending;
        for (&key, found) in pending[..waiting].iter().zip(found) {
            match found {
                Some(term) => {
                    if !self.held_back(Some(key)) && term != 0 {
                        (self.emit)(Emitted::Packed(term));
                    }
                }
                None => self.resolve_word(Word::Short(key)),
            }
        }
    }

    /// The per-cent rule (5) before a word, [`pack`]ed as `key` where it is short: a held
    /// `per` is released, or joined with this word if it is `cent`; a `per` is held. Whether
    /// the word was taken so (it then has no term of its own).
    fn held_back(&mut self, key: Option<u128>) -> bool {
        if self.held_per {
            self.held_per = false;
            if key == Some(CENT) {
                (self.emit)(Emitted::Text("percent"));
                return true;
            }
            (self.emit)(Emitted::Text("per"));
        }
        if key == Some(PER) {
            self.held_per = true;
            return true;
        }
        false
    }

    /// Emits the term of `word` (rules 5–9).
    fn resolve_word(&mut self, word: Word<'_>) {
        let key = match word {
            Word::Short(key) => Some(key),
            Word::Long(_) => None,
        };
        if self.held_back(key) {
            return;
        }
        let emit = &mut self.emit;
        let stemmer = &self.words.stemmer;
        TERMS.with(|cache| {
            let mut cache = cache.borrow_mut();
            let cache = &mut *cache;
            // The batch's lookup ([`Sink::resolve`]) missed the front slot: the slot is only
            // refilled here, from the map.
            let front = key.map(|key| &mut front_slots(&mut cache.front)[front_slot(key)]);
            let mut buffer = [0u8; 16];
            let text = match word {
                Word::Short(key) => unpack(key, &mut buffer),
                Word::Long(text) => text,
            };
            let found = match key {
                Some(key) => cache.short.get(&key),
                None => cache.long.get(text),
            };
            if let Some(cached) = found {
                match cached {
                    Cached::Stop => {}
                    Cached::Short(term) => emit(Emitted::Packed(*term)),
                    Cached::Long(term) => emit(Emitted::Text(term)),
                }
                if let (Some(slot), Some(key)) = (front, key) {
                    match cached {
                        Cached::Stop => *slot = Front { word: key, term: 0 },
                        Cached::Short(term) => *slot = Front { word: key, term: *term },
                        Cached::Long(_) => {}
                    }
                }
                return;
            }
            let cached = match word_term(stemmer, text) {
                None => Cached::Stop,
                Some(term) => {
                    emit(Emitted::Text(&term));
                    match pack(&term) {
                        Some(packed) => Cached::Short(packed),
                        None => Cached::Long(term),
                    }
                }
            };
            if cache.short.len() + cache.long.len() >= TERM_CACHE_LIMIT {
                cache.short.clear();
                cache.long.clear();
            }
            match key {
                Some(key) => cache.short.insert(key, cached),
                None => cache.long.insert(text.into(), cached),
            };
        });
    }

    /// Emits anything held back; call once at the end of a text.
    pub fn flush(&mut self) {
        self.resolve();
        self.release_per();
    }

    fn release_per(&mut self) {
        if self.held_per {
            self.held_per = false;
            (self.emit)(Emitted::Text("per"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_is_one_to_one_up_to_sixteen_bytes() {
        let mut buffer = [0u8; 16];
        for text in ["a", "inflat", "sixteen_bytes_ab", "é", "naïveté", "日本語です"] {
            let packed = pack(text).unwrap_or_else(|| panic!("{text} fits"));
            assert_eq!(unpack(packed, &mut buffer), text);
        }
        assert_eq!(pack("seventeen_bytes_a"), None);
        assert_eq!(pack("a\0"), None, "a zero byte would be lost in the padding");
        assert_ne!(pack("ab"), pack("ba"));
        assert_eq!((Some(PER), Some(CENT)), (pack("per"), pack("cent")), "the compile-time packing is pack's");
    }

    /// Cache hits give the terms the first (uncached) analysis gave, for short and long words,
    /// stopwords and unit words, also after the cache is cleared.
    #[test]
    fn a_cached_word_gives_its_first_term() {
        let words = Words::new();
        let text = ["the", "pct", "inflation", "internationalisations", "counterrevolutionaries", "rates", "per", "cent", "per", "capita"];
        let analyze = || {
            let mut terms = Vec::new();
            let mut emit = |t: Emitted<'_>| terms.push(t.text(&mut [0; 16]).to_string());
            let mut sink = Sink::new(&words, &mut emit);
            text.iter().for_each(|w| sink.word(w));
            sink.flush();
            terms
        };
        TERMS.with(|cache| *cache.borrow_mut() = TermCache::default());
        let first = analyze();
        assert_eq!(first, ["percent", "inflat", "internationalis", "counterrevolutionari", "rate", "percent", "per", "capita"]);
        assert_eq!(analyze(), first, "from the maps");
        TERMS.with(|cache| assert!(!cache.borrow().long.is_empty() && !cache.borrow().short.is_empty()));
        let in_front = || TERMS.with(|cache| cache.borrow().front.as_ref().map_or(0, |slots| slots.iter().filter(|s| s.word != 0).count()));
        assert!(in_front() >= 5, "the short words found in the maps moved to the front slots");
        assert_eq!(analyze(), first, "from the front slots");
    }
}
