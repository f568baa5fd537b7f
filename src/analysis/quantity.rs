//! The claim's quantities set against the evidence's.
//!
//! In: a claim and its evidence texts. Out: [`Quantity`]s (value, unit, scale, range,
//! approximation, the year they are of) and, per evidence text, [`Comparison`]s: each claim
//! quantity beside the evidence quantity that matches it best, with their relative difference.
//!
//! A quantity starts at one of the analyzer's numbers ([`number_spans`]: rules 1–3 of
//! `analysis`, so `1,200.50` is 1200.5) and reads the words around it:
//! - **scale**: `thousand`, `million`, `billion`, `trillion` (or glued: `10k`, `2mn`, `1.5bn`,
//!   `3tn`, `$5m`, `$2b`) multiply the value;
//! - **unit**: `%`, `percent`, `per cent`, `pct` → [`Unit::Percent`]; `percentage points` →
//!   [`Unit::PercentagePoints`]; a currency symbol before (`$`, `€`, `£`, `¥`, `₹`) or word after
//!   (`dollars`, `euros`, `pounds`, `yen`, `rupees`) → [`Unit::Currency`]; `N [up to two words] per
//!   M` (`41 homicides per 100,000 people`, `19.6 per 100,000`, `per 1,000 births`, `per
//!   thousand`) → [`Unit::Rate`] per M; a whole number from 1800 to 2099 (`analysis::YEARS`) with none of these →
//!   [`Unit::Year`]; anything else is a [`Unit::Count`] of the word that follows (its noun,
//!   stemmed: `homicides` → `homicid`);
//! - **range**: `between A and B`, `from A to B`, `A to B`, `A-B`, `A–B` are one quantity from A
//!   to B, sharing the second's unit and scale when the first has none (`3 to 4 million`);
//! - **approximation**: `about`, `around`, `approximately`, `roughly`, `some`, `an estimated`,
//!   `nearly`, `almost`, `close to` → about; `more than`, `over`, `above`, `greater than`,
//!   `exceeding` → more than; `at least`; `less than`, `fewer than`, `under`, `below` → less than;
//!   `at most`, `up to`, `no more than` → at most;
//! - **year**: a non-year quantity is of the year written nearest to it in its sentence, if any;
//! - **words**: numbers written as words (`twelve`, `twenty-five`, `nineteen`; `one` only before a
//!   scale, `one hundred`) are read as digits are; fractions (`a third`, `one half`, `two thirds`,
//!   `half of`) are shares;
//! - **share**: a number, then `of`, `out of` or `in` (with `the`, `its`, … between), then a
//!   number no smaller that is no bare year (`12 of its 19 cabinet members`, `one in five`) is one
//!   [`Unit::Share`] quantity.
//!
//! Not quantities: ordinals and decades (`3rd`, `1990s`), numbers glued to a word by a hyphen
//! (`COVID-19`), the day after a month name (`April 24`), and the `M` of a rate.
//!
//! A claim quantity and an evidence quantity are *comparable* when their units are: the same
//! currency; percent with percent; percentage points with percentage points; rates (scaled to the
//! same M); shares and percents (a share as the percentage it is); counts of the same noun (a bare
//! number is compared with nothing) — and amounts of money or counts no more than a thousandfold
//! apart ([`MAGNITUDES_APART`]: `$40,000` and `$1.3 trillion` are not one thing). Years are context,
//! not compared. Of the comparable ones in a passage the best match is the one with the same noun,
//! then the same year, then the smallest relative difference (evidence − claim) / |claim| between
//! range midpoints; ties go to the earlier. Each comparison says whether the evidence
//! [`Agreement::Agrees`] with what the claim states: inside the claim's range, within
//! [`ABOUT`] (10%) of an `about`, on the stated side of `more than`/`at least`/`less than`/`at
//! most`, or else within the precision the claim's number is written to.

use crate::analysis::{number_spans, Analyzer};

/// A currency.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Currency {
    /// `$`, dollars.
    Dollar,
    /// `€`, euros.
    Euro,
    /// `£`, pounds.
    Pound,
    /// `¥`, yen.
    Yen,
    /// `₹`, rupees.
    Rupee,
}

impl Currency {
    fn symbol(self) -> &'static str {
        match self {
            Currency::Dollar => "$",
            Currency::Euro => "€",
            Currency::Pound => "£",
            Currency::Yen => "¥",
            Currency::Rupee => "₹",
        }
    }

    fn of_symbol(c: char) -> Option<Currency> {
        Some(match c {
            '$' => Currency::Dollar,
            '€' => Currency::Euro,
            '£' => Currency::Pound,
            '¥' => Currency::Yen,
            '₹' => Currency::Rupee,
            _ => return None,
        })
    }

    fn of_word(word: &str) -> Option<Currency> {
        Some(match word {
            "dollar" | "dollars" | "usd" => Currency::Dollar,
            "euro" | "euros" | "eur" => Currency::Euro,
            "pound" | "pounds" | "gbp" => Currency::Pound,
            "yen" => Currency::Yen,
            "rupee" | "rupees" => Currency::Rupee,
            _ => return None,
        })
    }
}

/// What a quantity measures (module doc).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Unit {
    /// A share, in percent.
    Percent,
    /// A difference of shares.
    PercentagePoints,
    /// Money.
    Currency {
        /// Which.
        currency: Currency,
    },
    /// So many per `per` (per 100,000 people).
    Rate {
        /// The base.
        per: f64,
    },
    /// So many of `of` (`12 of 19`, `twelve of the nineteen`, `one in three`, `a third`):
    /// compared as the percentage it is.
    Share {
        /// The whole.
        of: f64,
    },
    /// A year.
    Year,
    /// A count (of its noun, if any).
    Count,
}

/// How exactly a quantity is stated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Approx {
    /// As written.
    Exact,
    /// About, nearly, close to.
    About,
    /// More than, over.
    MoreThan,
    /// At least.
    AtLeast,
    /// Less than, under.
    LessThan,
    /// At most, up to.
    AtMost,
}

impl Approx {
    fn word(self) -> &'static str {
        match self {
            Approx::Exact => "",
            Approx::About => "about ",
            Approx::MoreThan => "more than ",
            Approx::AtLeast => "at least ",
            Approx::LessThan => "less than ",
            Approx::AtMost => "at most ",
        }
    }
}

/// A quantity found in a text.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Quantity {
    /// The words it was read from.
    pub text: String,
    /// Character offset of its first character.
    pub start: usize,
    /// Character offset one past its last.
    pub end: usize,
    /// The value, scaled (`1.5 billion` → 1.5e9); a range's low end.
    pub value: f64,
    /// A range's high end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub high: Option<f64>,
    /// What it measures.
    pub unit: Unit,
    /// How exactly it is stated.
    pub approx: Approx,
    /// The year it is of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub year: Option<i32>,
    /// The stemmed word it counts (`homicid`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noun: Option<String>,
}

impl Quantity {
    /// The midpoint of a range, else the value.
    pub fn mid(&self) -> f64 {
        self.high.map_or(self.value, |h| (self.value + h) / 2.0)
    }

    /// The value in a common base for comparison: a rate per one.
    fn base(&self) -> f64 {
        match self.unit {
            Unit::Rate { per } => self.mid() / per,
            Unit::Share { of } => self.mid() / of * 100.0,
            _ => self.mid(),
        }
    }

    /// `v`, in this quantity's units, in the common base of [`Quantity::base`].
    fn to_base(&self, v: f64) -> f64 {
        match self.unit {
            Unit::Rate { per } => v / per,
            Unit::Share { of } => v / of * 100.0,
            _ => v,
        }
    }

    /// Half a unit in the last place the value is written to, scaled as the value is (`3%`: 0.5,
    /// `3.25%`: 0.005, `$1.5 billion`: 0.05 billion, `twelve`: 0.5).
    fn half_last_place(&self) -> f64 {
        let Some(span) = number_spans(&self.text).into_iter().next() else { return 0.5 };
        let Ok(written) = span.value.parse::<f64>() else { return 0.5 };
        let decimals = span.value.split_once('.').map_or(0, |(_, f)| f.len()) as i32;
        let scale = if written != 0.0 && self.value != 0.0 { (self.value / written).abs() } else { 1.0 };
        0.5 * 10f64.powi(-decimals) * scale
    }

    /// Whether `evidence`'s value (its range's midpoint) is within what this quantity states.
    fn agreement(&self, evidence: &Quantity) -> Agreement {
        let e = evidence.base();
        let slack = self.to_base(self.half_last_place()).abs();
        let (low, high) = (self.base(), self.high.map_or(self.base(), |h| self.to_base(h)));
        let within = match (self.high, self.approx) {
            (Some(_), _) => low - slack <= e && e <= high + slack,
            (None, Approx::Exact) => (e - low).abs() <= slack,
            (None, Approx::About) => (e - low).abs() <= (low.abs() * ABOUT).max(slack),
            (None, Approx::MoreThan) => e > low,
            (None, Approx::AtLeast) => e >= low - slack,
            (None, Approx::LessThan) => e < low,
            (None, Approx::AtMost) => e <= low + slack,
        };
        if within {
            Agreement::Agrees
        } else {
            Agreement::Disagrees
        }
    }

    /// As a fact-checker reads it: `about 10%`, `41 per 100,000 (2025)`, `$1.5 billion`.
    pub fn describe(&self) -> String {
        let number = |v: f64| {
            let (scaled, word) = [(1e12, " trillion"), (1e9, " billion"), (1e6, " million")].into_iter().find(|&(s, _)| v.abs() >= s).map_or((v, ""), |(s, w)| (v / s, w));
            format!("{}{word}", grouped(scaled))
        };
        let amount = match self.high {
            Some(h) => format!("{}–{}", number(self.value), number(h)),
            None => number(self.value),
        };
        let body = match self.unit {
            Unit::Percent => format!("{amount}%"),
            Unit::PercentagePoints => format!("{amount} percentage points"),
            Unit::Currency { currency } => format!("{}{amount}", currency.symbol()),
            Unit::Rate { per } => format!("{amount} per {}", grouped(per)),
            Unit::Share { of } => format!("{amount} of {}", grouped(of)),
            Unit::Year => grouped(self.value).replace(',', ""),
            Unit::Count => match &self.noun {
                Some(noun) => format!("{amount} {noun}"),
                None => amount,
            },
        };
        match self.year {
            Some(year) => format!("{}{body} ({year})", self.approx.word()),
            None => format!("{}{body}", self.approx.word()),
        }
    }
}

/// `v` with thousands separators and at most 4 significant decimals.
fn grouped(v: f64) -> String {
    let text = format!("{:.4}", v);
    let (int, frac) = text.split_once('.').unwrap_or((&text, ""));
    let (sign, digits) = int.strip_prefix('-').map_or(("", int), |d| ("-", d));
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    let frac = frac.trim_end_matches('0');
    if frac.is_empty() {
        format!("{sign}{out}")
    } else {
        format!("{sign}{out}.{frac}")
    }
}

/// A claim quantity beside its best match in one evidence text (module doc).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Comparison {
    /// The evidence text's position among those read (from 0).
    pub passage: usize,
    /// The claim's quantity.
    pub claim: Quantity,
    /// The evidence's.
    pub evidence: Quantity,
    /// (evidence − claim) / |claim|, between range midpoints (rates per one); none when the claim's
    /// is 0.
    pub relative_difference: Option<f64>,
    /// Whether the evidence's value is within what the claim states (module doc); absent only in
    /// a predictions file written before quantir judged it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agreement: Option<Agreement>,
    /// "claim: 41 per 100,000 (2025) — evidence: 19.6 per 100,000 (2023), −52%".
    pub summary: String,
}

/// Whether an evidence quantity is within what the claim's states: its range, its
/// approximation (`about`: [`ABOUT`] either way; `more than`, `at least`, …: that side), and
/// otherwise the precision it is written to (`3%` is 2.5% to 3.5%, `3.2%` is 3.15% to 3.25%).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Agreement {
    /// Within.
    Agrees,
    /// Outside.
    Disagrees,
}

/// How far `about` reaches either side of the claim's value, as a share of it.
pub const ABOUT: f64 = 0.1;

const SCALES: [(&str, f64); 5] = [("thousand", 1e3), ("million", 1e6), ("billion", 1e9), ("trillion", 1e12), ("hundred", 1e2)];
const GLUED_SCALES: [(&str, f64); 8] = [("k", 1e3), ("m", 1e6), ("mn", 1e6), ("b", 1e9), ("bn", 1e9), ("tn", 1e12), ("trn", 1e12), ("mln", 1e6)];
const MONTHS: [&str; 21] = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sept", "sep"];
const APPROX: [(&[&str], Approx); 22] = [
    (&["close", "to"], Approx::About),
    (&["an", "estimated"], Approx::About),
    (&["about"], Approx::About),
    (&["around"], Approx::About),
    (&["approximately"], Approx::About),
    (&["roughly"], Approx::About),
    (&["nearly"], Approx::About),
    (&["almost"], Approx::About),
    (&["some"], Approx::About),
    (&["no", "more", "than"], Approx::AtMost),
    (&["more", "than"], Approx::MoreThan),
    (&["greater", "than"], Approx::MoreThan),
    (&["over"], Approx::MoreThan),
    (&["above"], Approx::MoreThan),
    (&["exceeding"], Approx::MoreThan),
    (&["at", "least"], Approx::AtLeast),
    (&["less", "than"], Approx::LessThan),
    (&["fewer", "than"], Approx::LessThan),
    (&["under"], Approx::LessThan),
    (&["below"], Approx::LessThan),
    (&["at", "most"], Approx::AtMost),
    (&["up", "to"], Approx::AtMost),
];

/// Numbers written as words, by value (`one` only before a scale: "no one" is no number).
const SMALL_NUMBERS: [&str; 20] = [
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
];
const TENS: [&str; 8] = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"];
/// Fractions written as words, by their denominator: `a third`, `two thirds`, `half`.
const FRACTIONS: [(&[&str], f64); 5] = [(&["half", "halves"], 2.0), (&["third", "thirds"], 3.0), (&["quarter", "quarters"], 4.0), (&["fifth", "fifths"], 5.0), (&["tenth", "tenths"], 10.0)];
/// The words between a share's part and its whole: `12 of 19`, `12 of its 19`, `12 out of 19`,
/// `1 in 5`.
const SHARE_LINKS: [&[&str]; 3] = [&["of"], &["out", "of"], &["in"]];
const DETERMINERS: [&str; 7] = ["the", "its", "their", "his", "her", "our", "all"];

/// A word of the text: lowercased letters, with its character span.
#[derive(Debug, Clone)]
struct Word {
    text: String,
    start: usize,
    end: usize,
}

fn words(chars: &[char]) -> Vec<Word> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_alphabetic() {
            let start = i;
            while i < chars.len() && (chars[i].is_alphabetic() || (chars[i] == '\'' && i + 1 < chars.len() && chars[i + 1].is_alphabetic())) {
                i += 1;
            }
            out.push(Word { text: chars[start..i].iter().collect::<String>().to_lowercase(), start, end: i });
        } else {
            i += 1;
        }
    }
    out
}

/// The number written in words from `words[i]` on (`twelve`, `twenty-five`, `one hundred`
/// with its scale read later, as after digits): its value and the index of its last word.
fn word_number(chars: &[char], words: &[Word], i: usize) -> Option<(f64, usize)> {
    let small = |w: &Word| SMALL_NUMBERS.iter().position(|n| *n == w.text);
    let joined = |a: &Word, b: &Word| chars[a.end..b.start].iter().all(|&c| c == '-' || c == ' ') && b.start - a.end == 1;
    let w = &words[i];
    if let Some(t) = TENS.iter().position(|n| *n == w.text) {
        let tens = 20.0 + 10.0 * t as f64;
        return match words.get(i + 1).filter(|n| joined(w, n)).and_then(small).filter(|&u| (1..10).contains(&u)) {
            Some(u) => Some((tens + u as f64, i + 1)),
            None => Some((tens, i)),
        };
    }
    let value = small(w)?;
    // "one hundred", "one in five"; not "no one", "one of them".
    let scale_or_in = words.get(i + 1).is_some_and(|n| joined(w, n) && (n.text == "in" || SCALES.iter().any(|(s, _)| *s == n.text)));
    (value != 1 || scale_or_in).then_some((value as f64, i))
}

/// The numbers of `text` written in words, as spans the digits' reading takes in turn.
fn word_spans(chars: &[char], words: &[Word]) -> Vec<crate::analysis::NumberSpan> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        match word_number(chars, words, i) {
            Some((value, last)) => {
                out.push(crate::analysis::NumberSpan { start: words[i].start, end: words[last].end, value: value.to_string() });
                i = last + 1;
            }
            None => i += 1,
        }
    }
    out
}

/// The approximation the words before `start` state (`about`, `more than`, …), a currency
/// symbol allowed between.
fn approx_before(chars: &[char], words: &[Word], start: usize) -> Approx {
    let before_words: Vec<&Word> = words.iter().filter(|w| w.end <= start).collect();
    for (phrase, kind) in APPROX {
        let k = phrase.len();
        if before_words.len() >= k {
            let tail = &before_words[before_words.len() - k..];
            let gap: String = chars[tail[k - 1].end..start].iter().collect();
            if tail.iter().zip(phrase).all(|(w, p)| w.text == *p) && gap.chars().all(|c| c.is_whitespace() || Currency::of_symbol(c).is_some()) {
                return kind;
            }
        }
    }
    Approx::Exact
}

/// Fractions written in words (`a third`, `one half`, `two thirds`, `half of`), as shares.
fn fraction_raws(chars: &[char], words: &[Word]) -> Vec<Raw> {
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let Some(&(_, whole)) = FRACTIONS.iter().find(|(names, _)| names.contains(&w.text.as_str())) else { continue };
        let previous = i.checked_sub(1).map(|p| &words[p]).filter(|p| p.end < w.start && chars[p.end..w.start].iter().all(|&c| c == ' ' || c == '-'));
        let of_follows = words.get(i + 1).is_some_and(|n| n.text == "of");
        let part = match previous.map(|p| p.text.as_str()) {
            // "a third of the budget"; not "a third time".
            Some("a" | "one") if of_follows => Some((1.0, previous.map_or(w.start, |p| p.start))),
            Some("a" | "one") => None,
            Some(word) => match (SMALL_NUMBERS.iter().position(|n| *n == word), previous) {
                (Some(n), Some(p)) if n >= 2 && (n as f64) < whole => Some((n as f64, p.start)),
                _ => None,
            },
            // "half of the voters"; not "the first half".
            None => None,
        };
        let part = part.or_else(|| (w.text == "half" && of_follows && previous.is_none_or(|p| !matches!(p.text.as_str(), "first" | "second" | "last" | "the"))).then_some((1.0, w.start)));
        if let Some((value, start)) = part {
            out.push(Raw { start, end: w.end, value, scaled: false, unit: Some(Unit::Share { of: whole }), noun: None, approx: approx_before(chars, words, start), whole: true, share_link: false });
        }
    }
    out
}

/// A number read, before ranges are joined.
#[derive(Debug, Clone)]
struct Raw {
    start: usize,
    end: usize,
    value: f64,
    scaled: bool,
    unit: Option<Unit>,
    noun: Option<String>,
    approx: Approx,
    whole: bool,
    /// Followed by a share's link to a number (`12 of its 19`): the part of a share.
    share_link: bool,
}

/// Only spaces (or nothing) between `from` and `to`.
fn blank(chars: &[char], from: usize, to: usize) -> bool {
    from <= to && chars[from..to].iter().all(|c| c.is_whitespace())
}

/// The quantities of `text` (module doc), in text order.
pub fn quantities(text: &str) -> Vec<Quantity> {
    let chars: Vec<char> = text.chars().collect();
    let words = words(&chars);
    let mut spans = number_spans(text);
    spans.extend(word_spans(&chars, &words));
    spans.sort_by_key(|s| s.start);
    let word_after = |at: usize| words.iter().position(|w| w.start >= at);
    let stemmer = Analyzer::default();
    let mut raws: Vec<Raw> = Vec::new();
    let mut skip_until = 0;
    for span in &spans {
        if span.start < skip_until {
            continue;
        }
        let Ok(mut value) = span.value.parse::<f64>() else { continue };
        let raw_text: String = chars[span.start..span.end].iter().collect();
        let before = |k: usize| span.start.checked_sub(k).map(|i| chars[i]);
        // COVID-19, F-35: a number glued to a word by a hyphen.
        if matches!(before(1), Some('-')) && before(2).is_some_and(char::is_alphabetic) {
            continue;
        }
        // Letters glued after: ordinals, decades, scales, other units.
        let mut end = span.end;
        while end < chars.len() && chars[end].is_alphabetic() {
            end += 1;
        }
        let glued: String = chars[span.end..end].iter().collect::<String>().to_lowercase();
        let mut scaled = false;
        let mut unit = None;
        if !glued.is_empty() {
            if matches!(glued.as_str(), "s" | "st" | "nd" | "rd" | "th") {
                continue;
            }
            match GLUED_SCALES.iter().find(|(s, _)| *s == glued) {
                Some(&(_, factor)) => {
                    value *= factor;
                    scaled = true;
                }
                None if glued == "pct" => unit = Some(Unit::Percent),
                None => {}
            }
        }
        // The day after a month name.
        let previous = words.iter().rev().find(|w| w.end <= span.start);
        if previous.is_some_and(|w| MONTHS.contains(&w.text.as_str()) && blank(&chars, w.end, span.start)) && value < 32.0 {
            continue;
        }
        // A currency symbol just before.
        let symbol = (1..=2).filter_map(before).find_map(Currency::of_symbol).filter(|_| matches!(before(1), Some(c) if Currency::of_symbol(c).is_some() || c.is_whitespace() && before(2).and_then(Currency::of_symbol).is_some()));
        if let Some(currency) = symbol {
            unit = Some(Unit::Currency { currency });
        }
        // Words after: scale, unit, noun, per M.
        let mut next = word_after(end);
        let mut at = end;
        let take = |next: &mut Option<usize>, at: &mut usize, want: &dyn Fn(&str) -> bool| -> Option<String> {
            let i = (*next)?;
            let w = &words[i];
            let between: String = chars[*at..w.start].iter().collect();
            if !between.chars().all(|c| c.is_whitespace() || c == '-') || !want(&w.text) {
                return None;
            }
            *at = w.end;
            *next = (i + 1 < words.len()).then_some(i + 1);
            Some(w.text.clone())
        };
        if let Some(word) = take(&mut next, &mut at, &|w| SCALES.iter().any(|(s, _)| *s == w) || GLUED_SCALES.iter().any(|(s, _)| *s == w && w.len() > 1)) {
            let factor = SCALES.iter().chain(&GLUED_SCALES).find(|(s, _)| *s == word).map_or(1.0, |&(_, f)| f);
            value *= factor;
            scaled = true;
        }
        if chars.get(at) == Some(&'%') || (chars.get(at) == Some(&' ') && chars.get(at + 1) == Some(&'%')) {
            unit = Some(Unit::Percent);
            at += if chars[at] == '%' { 1 } else { 2 };
            next = word_after(at);
        } else if take(&mut next, &mut at, &|w| w == "percent" || w == "pct").is_some() {
            unit = Some(Unit::Percent);
        } else if take(&mut next, &mut at, &|w| w == "percentage").is_some() {
            take(&mut next, &mut at, &|w| w == "points" || w == "point");
            unit = Some(Unit::PercentagePoints);
        } else if let Some(currency) = take(&mut next, &mut at, &|w| Currency::of_word(w).is_some()).and_then(|w| Currency::of_word(&w)) {
            unit = Some(Unit::Currency { currency });
        } else {
            let (n, a) = (next, at);
            if take(&mut next, &mut at, &|w| w == "per").is_some() && take(&mut next, &mut at, &|w| w == "cent").is_some() {
                unit = Some(Unit::Percent);
            } else {
                (next, at) = (n, a);
            }
        }
        // A share's link to its whole: `of`, `of its`, `out of`, `in`, then a number.
        let share_link = unit.is_none() && !scaled && {
            let (mut n, mut a) = (next, at);
            let linked = SHARE_LINKS.iter().any(|link| {
                let (n0, a0) = (n, a);
                let all = link.iter().all(|want| take(&mut n, &mut a, &|w| w == *want).is_some());
                if !all {
                    (n, a) = (n0, a0);
                }
                all
            });
            if linked {
                take(&mut n, &mut a, &|w| DETERMINERS.contains(&w));
            }
            linked && spans.iter().any(|s| s.start >= a && blank(&chars, a, s.start))
        };
        // A noun, then `per M`.
        let mut noun = None;
        if !share_link && (unit.is_none() || matches!(unit, Some(Unit::Percent))) {
            let a0 = at;
            let mut seen = Vec::new();
            for _ in 0..2 {
                // A number in words is the next quantity, not this one's noun.
                if next.is_some_and(|k| spans.iter().any(|s| s.start == words[k].start)) {
                    break;
                }
                match take(&mut next, &mut at, &|w| w != "per" && w != "and" && w != "to") {
                    Some(w) => seen.push(w),
                    None => break,
                }
            }
            let a1 = at;
            let mut rate = None;
            if take(&mut next, &mut at, &|w| w == "per").is_some() {
                let base = spans.iter().find(|s| s.start >= at && blank(&chars, at, s.start));
                if let Some(base) = base.and_then(|s| s.value.parse::<f64>().ok().map(|v| (s, v))) {
                    rate = Some(base.1);
                    skip_until = base.0.end;
                    at = base.0.end;
                } else if let Some(word) = take(&mut next, &mut at, &|w| SCALES.iter().any(|(s, _)| *s == w) || w == "capita" || w == "person" || w == "head") {
                    rate = Some(SCALES.iter().find(|(s, _)| *s == word).map_or(1.0, |&(_, f)| f));
                }
            }
            match rate {
                Some(per) if unit.is_none() => {
                    unit = Some(Unit::Rate { per });
                    noun = seen.first().cloned();
                }
                _ => {
                    at = if seen.is_empty() || unit.is_some() { a0 } else { a1 };
                    if unit.is_none() {
                        noun = seen.first().cloned();
                    }
                }
            }
        }
        // Approximations before (up to three words), with the currency symbol between.
        let approx = approx_before(&chars, &words, span.start);
        // A number too large for f64 ("1e400", hundreds of digits) is no quantity.
        if !value.is_finite() {
            continue;
        }
        let whole = !raw_text.contains(',') && !raw_text.contains('.') && glued.is_empty();
        let noun = noun.and_then(|n| stemmer.terms(&n).into_iter().next());
        let start = if symbol.is_some() { span.start - 1 } else { span.start };
        raws.push(Raw { start, end: at.max(end), value, scaled, unit, noun, approx, whole, share_link });
    }
    // A fraction in words is one quantity: the number word inside it ("two thirds") is not another.
    let fractions = fraction_raws(&chars, &words);
    raws.retain(|r| !fractions.iter().any(|f| r.start < f.end && f.start < r.end));
    raws.extend(fractions);
    raws.sort_by_key(|r| r.start);
    // The words a quantity read after itself end where the next one starts.
    for k in 1..raws.len() {
        let next_start = raws[k].start;
        let previous = &mut raws[k - 1];
        previous.end = previous.end.min(next_start).max(previous.start + 1);
    }
    join(&chars, &words, raws)
}

/// Joins ranges, marks years, gives each quantity its year.
fn join(chars: &[char], words: &[Word], raws: Vec<Raw>) -> Vec<Quantity> {
    let text_of = |s: usize, e: usize| chars[s.min(e)..e].iter().collect::<String>();
    let between = |a: usize, b: usize| text_of(a, b).trim().to_lowercase();
    let mut out: Vec<Quantity> = Vec::new();
    let mut i = 0;
    while i < raws.len() {
        let first = &raws[i];
        let second = raws.get(i + 1);
        let preceded_by = |word: &str| words.iter().rev().find(|w| w.end <= first.start).is_some_and(|w| w.text == word && blank(chars, w.end, first.start));
        let joint = second.map(|s| between(first.end, s.start));
        let is_range = match (second, joint.as_deref()) {
            (Some(s), Some(j)) => {
                let connected = matches!(j, "-" | "–" | "to") || (j == "and" && preceded_by("between")) || (j == "to" && preceded_by("from"));
                let year_pair = first.whole && s.whole && crate::analysis::is_year(first.value) && crate::analysis::is_year(s.value) && first.unit.is_none() && s.unit.is_none();
                let share = |r: &Raw| matches!(r.unit, Some(Unit::Share { .. }));
                connected && !year_pair && !share(first) && !share(s) && (first.unit.is_none() || first.unit == s.unit)
            }
            _ => false,
        };
        // `12 of 19`: a part, then a whole no smaller that is no bare year.
        let share_of = second.filter(|s| first.share_link && s.unit.is_none() && s.value >= first.value && s.value > 0.0 && !(s.whole && !s.scaled && crate::analysis::is_year(s.value)));
        if let Some(s) = share_of {
            out.push(Quantity { text: text_of(first.start, s.end), start: first.start, end: s.end, value: first.value, high: None, unit: Unit::Share { of: s.value }, approx: first.approx, year: None, noun: s.noun.clone() });
            i += 2;
            continue;
        }
        if is_range {
            let s = second.expect("a range has two ends");
            let mut low = first.value;
            // "3 to 4 million": the first end takes the second's scale, read off its two values —
            // which a second end of 0 ("2015-0tn") cannot give: 0 / 0 made the range NaN.
            let factor = s.value / raw_unscaled(s, chars);
            if !first.scaled && s.scaled && factor.is_finite() && factor != 0.0 {
                low *= factor;
            }
            let unit = s.unit.or(first.unit).unwrap_or(Unit::Count);
            out.push(Quantity { text: text_of(first.start, s.end), start: first.start, end: s.end, value: low, high: Some(s.value), unit, approx: first.approx, year: None, noun: s.noun.clone().or(first.noun.clone()) });
            i += 2;
            continue;
        }
        let year = first.unit.is_none() && first.whole && !first.scaled && crate::analysis::is_year(first.value);
        let unit = if year { Unit::Year } else { first.unit.unwrap_or(Unit::Count) };
        out.push(Quantity { text: text_of(first.start, first.end), start: first.start, end: first.end, value: first.value, high: None, unit, approx: first.approx, year: None, noun: if year { None } else { first.noun.clone() } });
        i += 1;
    }
    // Each quantity's year: the nearest year of its sentence.
    let sentence = |at: usize| {
        let start = (0..at).rev().find(|&k| matches!(chars[k], '.' | '!' | '?' | '\n') && chars.get(k + 1).is_none_or(|c| c.is_whitespace())).map_or(0, |k| k + 1);
        let end = (at..chars.len()).find(|&k| matches!(chars[k], '.' | '!' | '?' | '\n') && chars.get(k + 1).is_none_or(|c| c.is_whitespace())).unwrap_or(chars.len());
        (start, end)
    };
    let years: Vec<(usize, i32)> = out.iter().filter(|q| q.unit == Unit::Year).map(|q| (q.start, q.value as i32)).collect();
    for q in out.iter_mut().filter(|q| q.unit != Unit::Year) {
        let (s, e) = sentence(q.start);
        q.year = years.iter().filter(|(at, _)| (s..e).contains(at)).min_by_key(|(at, _)| at.abs_diff(q.start)).map(|&(_, y)| y);
    }
    out
}

/// The number `raw` was read from, before its scale.
fn raw_unscaled(raw: &Raw, chars: &[char]) -> f64 {
    let text: String = chars[raw.start..raw.end].iter().collect();
    number_spans(&text).first().and_then(|s| s.value.parse::<f64>().ok()).filter(|&v| v != 0.0).unwrap_or(raw.value)
}

/// Amounts of money or counts further apart than this are of different things ($40,000 of a
/// salary and $1.3 trillion of a budget), whatever their units say.
const MAGNITUDES_APART: f64 = 1000.0;

fn comparable(a: &Quantity, b: &Quantity) -> bool {
    let near = || {
        let (x, y) = (a.base().abs(), b.base().abs());
        x == 0.0 || y == 0.0 || x.max(y) / x.min(y) <= MAGNITUDES_APART
    };
    match (a.unit, b.unit) {
        (Unit::Year, _) | (_, Unit::Year) => false,
        (Unit::Currency { currency: x }, Unit::Currency { currency: y }) => x == y && near(),
        (Unit::Rate { .. }, Unit::Rate { .. }) | (Unit::Percent, Unit::Percent) | (Unit::PercentagePoints, Unit::PercentagePoints) => true,
        // A share is the percentage it is.
        (Unit::Share { .. } | Unit::Percent, Unit::Share { .. } | Unit::Percent) => true,
        // A bare number ("when he was 30") is no count of anything to set against another.
        (Unit::Count, Unit::Count) => a.noun.is_some() && a.noun == b.noun && near(),
        _ => false,
    }
}

fn relative(claim: &Quantity, evidence: &Quantity) -> Option<f64> {
    let c = claim.base();
    (c != 0.0).then(|| (evidence.base() - c) / c.abs())
}

/// The claim's quantities beside each evidence text's best match (module doc), passage by
/// passage, claim quantities in text order.
pub fn compare(claim: &[Quantity], evidence: &[Vec<Quantity>]) -> Vec<Comparison> {
    let mut out = Vec::new();
    for (passage, found) in evidence.iter().enumerate() {
        for c in claim.iter().filter(|q| q.unit != Unit::Year) {
            let rank = |e: &Quantity| {
                let noun = c.noun.is_some() && c.noun == e.noun;
                let year = c.year.is_some() && c.year == e.year;
                (!noun, !year, relative(c, e).map_or(f64::INFINITY, f64::abs))
            };
            let best = found.iter().filter(|e| comparable(c, e)).min_by(|a, b| rank(a).partial_cmp(&rank(b)).unwrap_or(std::cmp::Ordering::Equal));
            if let Some(e) = best {
                let relative_difference = relative(c, e);
                let diff = relative_difference.map_or(String::new(), |d| format!(", {}{:.0}%", if d < 0.0 { "−" } else { "+" }, (d * 100.0).abs()));
                out.push(Comparison { passage, claim: c.clone(), evidence: e.clone(), relative_difference, agreement: Some(c.agreement(e)), summary: format!("claim: {} — evidence: {}{diff}", c.describe(), e.describe()) });
            }
        }
    }
    out
}

/// The comparisons of `claim` against `evidence` texts.
pub fn comparisons(claim: &str, evidence: &[String]) -> Vec<Comparison> {
    compare(&quantities(claim), &evidence.iter().map(|e| quantities(e)).collect::<Vec<_>>())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Quantity {
        let q: Vec<Quantity> = quantities(text).into_iter().filter(|q| q.unit != Unit::Year).collect();
        assert_eq!(q.len(), 1, "{text:?}: {q:?}");
        q.into_iter().next().unwrap()
    }

    #[test]
    fn rates_years_and_nouns() {
        let q = one("41 homicides per 100,000 people in 2025");
        assert_eq!((q.value, q.unit, q.year, q.noun.as_deref()), (41.0, Unit::Rate { per: 100_000.0 }, Some(2025), Some("homicid")));
        assert_eq!(q.describe(), "41 per 100,000 (2025)");
        // Real claim (QuanTemp validation): two rates, neither base a quantity of its own.
        let claim = "\"There are over 2,000 crimes recorded per 100,000 population in the U.K.,\" compared to \"466 violent crimes per 100,000\" in the United States.";
        let found = quantities(claim);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!((found[0].value, found[0].approx), (2000.0, Approx::MoreThan));
        assert_eq!(found[1].unit, Unit::Rate { per: 100_000.0 });
        assert_eq!(found[1].noun.as_deref(), Some("violent"));
    }

    #[test]
    fn percent_scale_approximation() {
        let q = one("Says the military accounts for about 10 percent of Florida's economy.");
        assert_eq!((q.value, q.unit, q.approx), (10.0, Unit::Percent, Approx::About));
        assert_eq!(q.describe(), "about 10%");
        let q = one("inflation is down close to 3%");
        assert_eq!((q.value, q.unit, q.approx), (3.0, Unit::Percent, Approx::About));
        let found = quantities("Says \"we had to cut 13 billion dollars in state spending over two years.\"");
        assert_eq!((found[0].value, found[0].unit), (13e9, Unit::Currency { currency: Currency::Dollar }));
        assert_eq!((found[1].value, found[1].noun.as_deref()), (2.0, Some("year")), "two years, in words");
        let q = one("We spend in tax loopholes annually $1.1 trillion.");
        assert_eq!((q.value, q.unit), (1.1e12, Unit::Currency { currency: Currency::Dollar }));
        assert_eq!(q.describe(), "$1.1 trillion");
        let q = one("More than 1.4 million adverse events caused by the vaccines");
        assert_eq!((q.value, q.approx, q.noun.as_deref()), (1.4e6, Approx::MoreThan, Some("advers")));
        assert_eq!(one("a rise of 2 percentage points").unit, Unit::PercentagePoints);
        assert_eq!(one("3 per cent").unit, Unit::Percent);
        assert_eq!(one("up to 10k jobs").value, 1e4);
    }

    /// Found by the `claim_text` fuzz target: a range to a zero with a scale gave a NaN low end, and
    /// a number beyond f64 gave an infinite one.
    #[test]
    fn every_value_is_finite() {
        for text in ["in 2015-0tn udictateur", "from 0 to 0bn dollars", "between 5 and 0 million people", &format!("{} people", "9".repeat(400)), "1e400 jobs"] {
            for q in quantities(text) {
                assert!(q.value.is_finite() && q.high.is_none_or(f64::is_finite), "{text}: {q:?}");
            }
        }
        assert_eq!(quantities("in 2015-0tn udictateur")[0].value, 2015.0);
    }

    #[test]
    fn ranges() {
        let q = one("unemployment between 3 and 4 percent");
        assert_eq!((q.value, q.high, q.unit), (3.0, Some(4.0), Unit::Percent));
        let q = one("caused $1- $2 billion of property damage");
        assert_eq!((q.value, q.high, q.unit), (1e9, Some(2e9), Unit::Currency { currency: Currency::Dollar }));
        let q = one("3 to 4 million people");
        assert_eq!((q.value, q.high), (3e6, Some(4e6)));
        // Two years are two years, not a range.
        let years: Vec<Quantity> = quantities("between the years 1995 and 2010").into_iter().collect();
        assert_eq!(years.iter().map(|q| q.unit).collect::<Vec<_>>(), [Unit::Year, Unit::Year]);
    }

    /// Issue 40: numbers written as words, shares and fractions are read, and compared as the
    /// percentages they are.
    #[test]
    fn words_shares_and_fractions() {
        let q = one("twelve of the nineteen new finnish cabinet members are women");
        assert_eq!((q.value, q.unit), (12.0, Unit::Share { of: 19.0 }), "{q:?}");
        assert_eq!(q.describe(), "12 of 19");
        let q = one("Finland: 12 of its 19 cabinet members are women");
        assert_eq!((q.value, q.unit, q.noun.as_deref()), (12.0, Unit::Share { of: 19.0 }, Some("cabinet")));
        let c = comparisons("Finland: 12 of its 19 cabinet members are women", &["twelve of the nineteen new finnish cabinet members are women".to_string()]);
        assert_eq!(c.len(), 1, "{c:?}");
        assert_eq!(c[0].summary, "claim: 12 of 19 — evidence: 12 of 19, +0%");
        assert_eq!(c[0].agreement, Some(Agreement::Agrees));
        assert_eq!(c[0].relative_difference, Some(0.0));
        assert_eq!(one("twenty-five people").value, 25.0);
        assert_eq!(one("ninety nine balloons").value, 99.0);
        assert_eq!(one("about forty thousand jobs").value, 40_000.0);
        assert_eq!(one("about forty thousand jobs").approx, Approx::About);
        assert_eq!(one("one hundred days").value, 100.0);
        let q = one("one in five adults smokes");
        assert_eq!((q.value, q.unit), (1.0, Unit::Share { of: 5.0 }));
        let q = one("nearly a third of Americans");
        assert_eq!((q.value, q.unit, q.approx), (1.0, Unit::Share { of: 3.0 }, Approx::About));
        assert_eq!(one("two-thirds of voters").unit, Unit::Share { of: 3.0 });
        assert_eq!(one("half of the budget").unit, Unit::Share { of: 2.0 });
        // A share against a percentage: 1 of 3 is 33.3%.
        let c = comparisons("a third of Americans", &["33% of adults".to_string()]);
        assert!((c[0].relative_difference.unwrap() - (33.0 - 100.0 / 3.0) / (100.0 / 3.0)).abs() < 1e-12, "{c:?}");
        // Not numbers, not shares.
        assert!(quantities("no one knows; one of them left in the first half of 2020, a third time").iter().all(|q| q.unit == Unit::Year), "{:?}", quantities("no one knows; one of them left in the first half of 2020, a third time"));
        assert_eq!(one("5 of 2020's cases").unit, Unit::Count, "a year is no whole");
    }

    /// Issue 40: within the claim's own approximation agrees, outside disagrees.
    #[test]
    fn agreement_follows_what_the_claim_states() {
        let agrees = |claim: &str, evidence: &str| {
            let c = comparisons(claim, &[evidence.to_string()]);
            assert_eq!(c.len(), 1, "{claim} / {evidence}: {c:?}");
            c[0].agreement == Some(Agreement::Agrees)
        };
        assert!(agrees("inflation is 3%", "inflation was 3.4%") && !agrees("inflation is 3%", "inflation was 3.6%"));
        assert!(!agrees("inflation is 3.2%", "inflation was 3.4%") && agrees("inflation is 3.25%", "inflation was 3.254%"));
        assert!(agrees("inflation is down close to 3%", "inflation was 3.2%") && !agrees("about 10% of the economy", "12% of the economy"));
        assert!(agrees("more than 1.4 million adverse events", "1.5 million adverse events") && !agrees("more than 1.4 million adverse events", "1.4 million adverse events"));
        assert!(agrees("at least 40 guns", "40 guns") && !agrees("fewer than 40 guns", "40 guns") && agrees("up to 40 guns", "39 guns"));
        assert!(agrees("unemployment between 3 and 4 percent", "unemployment of 3.9 percent") && !agrees("unemployment between 3 and 4 percent", "unemployment of 4.6 percent"));
        assert!(agrees("$1.5 billion", "$1.53 billion") && !agrees("$1.5 billion", "$1.6 billion"));
        assert!(agrees("41 homicides per 100,000 people", "0.41 per 1,000") && !agrees("41 homicides per 100,000 people", "19.6 per 100,000"));
        assert!(agrees("a third of Americans", "33% of adults") && !agrees("12 of its 19 cabinet members", "40% of the cabinet"));
    }

    /// Issue 40: a card compared "$40,000" with "$1.3 trillion" (+3,249,999,900%).
    #[test]
    fn amounts_a_thousandfold_apart_are_not_compared() {
        assert!(comparisons("a salary of $40,000", &["a budget of $1.3 trillion".to_string()]).is_empty());
        assert_eq!(comparisons("a salary of $40,000", &["paid $38,500 a year".to_string()]).len(), 1);
        assert!(comparisons("40 guns", &["40,000 guns".to_string()]).len() == 1 && comparisons("40 guns", &["400,000 guns".to_string()]).is_empty());
    }

    /// Over every bundled QuanTemp snippet and claim: quantities in text order, not overlapping,
    /// finite, each span the text it says; and the words and shares read on real text.
    #[test]
    fn real_texts_read_in_order() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/quantemp-sample");
        let corpus: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("corpus.json")).unwrap()).unwrap();
        let claims = std::fs::read_to_string(dir.join("claims.jsonl")).unwrap();
        let texts: Vec<String> = corpus.as_object().unwrap().values().map(|r| r["snippet"].as_str().unwrap().to_string()).chain(claims.lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["text"].as_str().unwrap().to_string())).collect();
        let (mut shares, mut worded) = (0, 0);
        for text in &texts {
            let chars: Vec<char> = text.chars().collect();
            let found = quantities(text);
            for pair in found.windows(2) {
                assert!(pair[0].end <= pair[1].start, "{text}: {pair:?}");
            }
            for q in &found {
                assert!(q.start < q.end && q.value.is_finite(), "{text}: {q:?}");
                assert_eq!(chars[q.start..q.end].iter().collect::<String>(), q.text);
                shares += usize::from(matches!(q.unit, Unit::Share { .. }));
                worded += usize::from(!q.text.chars().any(|c| c.is_ascii_digit()));
            }
        }
        assert!(texts.len() > 700 && shares > 0 && worded > 10, "{} texts: {shares} shares, {worded} in words", texts.len());
    }

    proptest::proptest! {
        /// Any mixture of number words, digits, links and units reads without a panic, in text
        /// order, finite.
        #[test]
        fn any_mixture_reads(tokens in proptest::collection::vec(proptest::sample::select(vec![
            "one", "two", "twelve", "twenty", "five", "-", "a", "third", "thirds", "half", "of", "the", "its", "in", "out", "hundred",
            "million", "19", "2020", "$", "%", "per", "100,000", "to", "and", "between", "about", "no", "first", "0", "-0", "1.5bn",
        ]), 0..14), glue in proptest::collection::vec(proptest::sample::select(vec![" ", "", "-", ", "]), 14)) {
            let text: String = tokens.iter().zip(&glue).map(|(t, g)| format!("{t}{g}")).collect();
            let found = quantities(&text);
            for pair in found.windows(2) {
                proptest::prop_assert!(pair[0].end <= pair[1].start, "{text:?}: {pair:?}");
            }
            for q in &found {
                proptest::prop_assert!(q.start < q.end && q.value.is_finite() && q.high.is_none_or(f64::is_finite), "{text:?}: {q:?}");
                if let Unit::Share { of } = q.unit {
                    proptest::prop_assert!(of > 0.0 && q.value <= of, "{text:?}: {q:?}");
                }
            }
            let _ = comparisons(&text, std::slice::from_ref(&text));
        }
    }

    #[test]
    fn not_quantities() {
        assert!(quantities("COVID-19 in the 1990s, the 3rd time").is_empty());
        assert!(quantities("published on April 24, 2023").iter().all(|q| q.unit == Unit::Year));
    }

    #[test]
    fn comparisons_align_by_unit_and_year() {
        let claim = "41 homicides per 100,000 people in 2025, up 12% since";
        let evidence = vec!["In 2023 the rate was 19.6 per 100,000 residents; 1,200 people were killed.".to_string(), "The city's budget grew 3% last year.".to_string(), "No numbers here.".to_string()];
        let c = comparisons(claim, &evidence);
        assert_eq!(c.len(), 2, "{c:?}");
        assert_eq!(c[0].passage, 0);
        assert_eq!(c[0].summary, "claim: 41 per 100,000 (2025) — evidence: 19.6 per 100,000 (2023), −52%");
        assert!((c[0].relative_difference.unwrap() - (19.6 - 41.0) / 41.0).abs() < 1e-12);
        assert_eq!((c[1].passage, c[1].evidence.value), (1, 3.0));
        // Rates compare per one: 2 per 1,000 is 200 per 100,000.
        let c = comparisons("200 per 100,000", &["2 per 1,000".to_string()]);
        assert!(c[0].relative_difference.unwrap().abs() < 1e-12);
        // Different currencies and different nouns are not comparable.
        assert!(comparisons("$5 million", &["€5 million".to_string()]).is_empty());
        assert!(comparisons("40 guns", &["40 cars".to_string()]).is_empty());
        // Real claim (the bundled sample): "when he was 30" has no noun to compare by.
        assert!(comparisons("it first aired in May 2004, when he was 30.", &["76 episodes aired; he was 30 then.".to_string()]).is_empty());
        assert_eq!(comparisons("40 guns", &["nearly 38 guns".to_string()])[0].summary, "claim: 40 gun — evidence: about 38 gun, −5%");
    }
}
