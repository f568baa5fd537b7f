//! The numeric-aware English analyzer, used identically at index and at query time.
//!
//! In: any text. Out: a sequence of index terms. The rules, in the order they apply:
//!
//! **Numbers** (`numeric.rs`) stay whole:
//! 1. A number is a run of ASCII digits with at most one decimal point between digits:
//!    `7.25` → `7.25` (tantivy's `en_stem` would split it into `7` and `25`). A leading point is
//!    read as a zero: `.5` → `0.5`.
//! 2. Thousands separators are dropped: a comma followed by exactly three digits (and no fourth)
//!    joins: `1,200` → `1200`, `100,000` → `100000`, `2,495` → `2495`; so does a comma followed by
//!    two digits and another comma (Indian grouping: `1,00,000` → `100000`). Any other comma
//!    separates (`1,2` → `1`, `2`; the European decimal comma `3,5` is *not* recognised).
//! 3. A fraction's trailing zeros are dropped, so equal values match: `1.50` → `1.5`, `3.0` → `3`.
//!    Leading zeros are kept (`007`); signs are dropped (`-3.2` → `3.2`).
//! 4. Letters glued to a number: decades and ordinals stay one term (`1990s`, `90s`, `3rd`,
//!    `21st`); magnitudes are spelled out (`10k` → `10` `thousand`, `1.5bn` → `1.5` `billion`,
//!    `2mn` → `2` `million`, `3tn` → `3` `trillion`); any other suffix is split off as a word
//!    (`10mg` → `10` `mg`).
//!
//! **Units match their spelled-out forms**:
//! 5. `%`, `pct` and `per cent` become the term `percent`: `3%`, `3 pct`, `3 per cent` and
//!    `3 percent` all analyse to `3` `percent`.
//! 6. A currency symbol before a number becomes its word: `$1.5 billion` → `dollar` `1.5`
//!    `billion`, like `1.5 billion dollars`; `€` euro, `£` pound, `¥` yen, `₹` rupee; the codes
//!    `usd`, `eur`, `gbp` likewise. The words then go through rule 9, so `dollars` and `$` meet.
//! 7. The magnitude abbreviations `bn`, `mn`, `tn` standing alone become `billion`, `million`,
//!    `trillion`.
//!
//! **Words** (`english.rs`):
//! 8. A word is a run of letters and digits, lowercased. Inner apostrophes join (`don't` →
//!    `dont`), a possessive `'s` is dropped (`Obama's` → `obama`). Hyphens and other punctuation
//!    separate (`COVID-19` → `covid` `19`).
//! 9. Words made of letters only lose Lucene's 33 English stopwords (the set Anserini's default
//!    analyzer drops, so BM25 scores are comparable) and are stemmed with the Snowball English
//!    (Porter2) stemmer. Words with digits in them are kept as written: `Q3 2021` → `q3`
//!    `2021`, `H1N1` → `h1n1`.
//!
//! Hard cases, each a unit test below: "41 homicides per 100,000 people" → `41 homicid per
//! 100000 peopl`; "$1.5 billion" → `dollar 1.5 billion`; "inflation down close to 3" →
//! `inflat down close 3`.
//!
//! [`ANALYZER_VERSION`] changes whenever any rule does; an index records the version it was
//! built with, and opening it with another is an error, because a query analysed differently
//! from the documents matches garbage.
//!
//! [`quantity`] reads the same numbers as quantities (value, unit, scale, range, approximation,
//! year) and compares a claim's with its evidence's: what the verifier, the iterative planner and
//! the page's comparisons use.

mod english;
mod numeric;
pub mod quantity;

pub(crate) use english::pack;
pub use english::Emitted;
pub use english::STOPWORDS;
pub use numeric::{number_spans, NumberSpan};

/// The years a bare four-digit whole number is read as (1800–2099): the planner asks about them,
/// the verifier compares them as years, not as counts. One rule, used by both.
pub const YEARS: std::ops::RangeInclusive<u32> = 1800..=2099;

/// Whether `value` is a whole number in [`YEARS`].
pub fn is_year(value: f64) -> bool {
    value.fract() == 0.0 && (f64::from(*YEARS.start())..=f64::from(*YEARS.end())).contains(&value)
}

/// Version of the rules above. Bump it on any change that alters a term.
pub const ANALYZER_VERSION: u32 = 1;

/// The analyzer's name as recorded in an index manifest.
pub const ANALYZER_NAME: &str = "quantir-numeric-en";

/// Turns text into index terms. Cheap to clone; holds the stemmer.
#[derive(Clone)]
pub struct Analyzer {
    words: english::Words,
}

impl std::fmt::Debug for Analyzer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Analyzer").field("name", &ANALYZER_NAME).field("version", &ANALYZER_VERSION).finish()
    }
}

impl Default for Analyzer {
    fn default() -> Self {
        Analyzer { words: english::Words::new() }
    }
}

impl Analyzer {
    /// Calls `emit` with each term of `text`, in order.
    pub fn analyze(&self, text: &str, emit: &mut dyn FnMut(&str)) {
        let mut buffer = [0u8; 16];
        self.analyze_emitted(text, &mut |term| emit(term.text(&mut buffer)));
    }

    /// [`Analyzer::analyze`] with the terms as the analyzer has them: a caller that keys short
    /// terms by their packing (a decoded index's term table, [`crate::index::TermKey`]) takes
    /// them without unpacking and packing them again (measured below).
    pub fn analyze_emitted(&self, text: &str, emit: &mut dyn FnMut(Emitted<'_>)) {
        let mut sink = english::Sink::new(&self.words, emit);
        numeric::scan(text, &mut sink);
        sink.flush();
    }

    /// The terms of `text`, collected.
    pub fn terms(&self, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        self.analyze(text, &mut |t| out.push(t.to_string()));
        out
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn years_are_whole_numbers_from_1800_to_2099() {
        for (value, year) in [(1799.0, false), (1800.0, true), (2024.0, true), (2099.0, true), (2100.0, false), (2024.5, false), (f64::NAN, false)] {
            assert_eq!(super::is_year(value), year, "{value}");
        }
    }

    use super::*;

    fn terms(text: &str) -> String {
        Analyzer::default().terms(text).join(" ")
    }

    #[test]
    fn hard_cases_from_the_issue() {
        assert_eq!(terms("41 homicides per 100,000 people"), "41 homicid per 100000 peopl");
        assert_eq!(terms("$1.5 billion"), "dollar 1.5 billion");
        assert_eq!(terms("inflation down close to 3"), "inflat down close 3");
        assert_eq!(terms("inflation is down close to 3%"), "inflat down close 3 percent");
        assert_eq!(terms("2,495"), "2495");
        assert_eq!(terms("the 1990s"), "1990s");
        assert_eq!(terms("Q3 2021"), "q3 2021");
    }

    #[test]
    fn numbers_stay_whole() {
        assert_eq!(terms("minimum wage of 7.25 dollars"), "minimum wage 7.25 dollar");
        assert_eq!(terms("3.2% growth"), "3.2 percent growth");
        assert_eq!(terms("version 1.2.3"), "version 1.2 3");
        assert_eq!(terms("it rose 7.25."), "rose 7.25");
        assert_eq!(terms(".5 points"), "0.5 point");
        assert_eq!(terms("-3.2 degrees"), "3.2 degre");
    }

    #[test]
    fn thousands_separators_are_normalised() {
        assert_eq!(terms("1,200"), terms("1200"));
        assert_eq!(terms("1,200,000.50"), "1200000.5");
        assert_eq!(terms("1,00,000 rupees"), "100000 rupe");
        assert_eq!(terms("1,2 and 1,2345"), "1 2 1 2345");
        assert_eq!(terms("in 2019, 2020"), "2019 2020");
    }

    #[test]
    fn fractions_lose_trailing_zeros_only() {
        assert_eq!(terms("1.50"), "1.5");
        assert_eq!(terms("3.0"), "3");
        assert_eq!(terms("007"), "007");
        assert_eq!(terms("10.05"), "10.05");
    }

    #[test]
    fn percent_forms_match() {
        let want = "3 percent";
        for text in ["3%", "3 %", "3 percent", "3 per cent", "3 pct", "3 Percent"] {
            assert_eq!(terms(text), want, "{text}");
        }
        assert_eq!(terms("per capita"), "per capita");
    }

    /// The terms as a sorted bag: BM25 does not see order.
    fn bag(text: &str) -> Vec<String> {
        let mut terms = Analyzer::default().terms(text);
        terms.sort();
        terms
    }

    #[test]
    fn currency_forms_match() {
        assert_eq!(bag("$5"), bag("5 dollars"));
        assert_eq!(bag("USD 5"), bag("5 dollars"));
        assert_eq!(bag("€20"), bag("20 euros"));
        assert_eq!(bag("$1.5 billion"), bag("1.5 billion dollars"));
        assert_eq!(terms("£3bn"), "pound 3 billion");
        assert_eq!(terms("$1.5bn"), "dollar 1.5 billion");
        assert_eq!(terms("1.5 bn"), "1.5 billion");
        assert_eq!(terms("US$10k"), "us dollar 10 thousand");
    }

    #[test]
    fn glued_suffixes() {
        assert_eq!(terms("the 90s and the 3rd and 21st"), "90s 3rd 21st");
        assert_eq!(terms("10mg"), "10 mg");
        assert_eq!(terms("1990S"), "1990s");
    }

    #[test]
    fn number_spans_use_character_offsets() {
        let spans = number_spans("Prices: €1,200.50 and 3% in 2021, not q3");
        let values: Vec<(usize, usize, &str)> = spans.iter().map(|s| (s.start, s.end, s.value.as_str())).collect();
        assert_eq!(values, [(9, 17, "1200.5"), (22, 23, "3"), (28, 32, "2021")]);
    }

    /// Words wait in batches ([`english`]'s `PENDING`, 16) before their terms are found: a
    /// text of many batches gives each word's own term in order, with `per cent` joined across
    /// a batch's end and long words, numbers and stopwords between short words.
    #[test]
    fn batched_words_keep_their_order_and_rules() {
        let alone = |word: &str| Analyzer::default().terms(word);
        let mut words: Vec<String> = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar"
            .split(' ')
            .map(str::to_string)
            .collect();
        words.extend(["per", "cent", "counterrevolutionaries", "the", "papa", "3", "per", "quebec", "internationalisations", "per"].map(str::to_string));
        for round in 0..3 {
            words.extend((0..40).map(|i| ["romeo", "sierra", "tango", "uniform", "victor", "whiskey", "xray"][(i + round) % 7].to_string()));
        }
        let mut want: Vec<String> = Vec::new();
        for (i, word) in words.iter().enumerate() {
            match word.as_str() {
                "per" if words.get(i + 1).is_some_and(|next| next == "cent") => want.push("percent".into()),
                "cent" if words[i - 1] == "per" => {}
                _ => want.extend(alone(word)),
            }
        }
        assert_eq!(Analyzer::default().terms(&words.join(" ")), want);
        assert_eq!(want[15], "percent", "per cent across the first batch's end");
    }

    #[test]
    fn words() {
        assert_eq!(terms("Obama's plan"), "obama plan");
        assert_eq!(terms("don’t"), "dont");
        assert_eq!(terms("COVID-19 cases"), "covid 19 case");
        assert_eq!(terms("H1N1 and covid19"), "h1n1 covid19");
        assert_eq!(terms("The Running of the Bulls"), "run bull");
        assert_eq!(terms(""), "");
        assert_eq!(terms("!!! ... ,,,"), "");
    }
}
