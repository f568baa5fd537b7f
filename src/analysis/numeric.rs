//! The scanner: splits text into numbers, words and unit symbols (rules 1–6 of the module doc).

use super::english::Sink;

/// Currency symbols and the word each stands for (rule 6).
fn currency_word(c: char) -> Option<&'static str> {
    Some(match c {
        '$' => "dollar",
        '€' => "euro",
        '£' => "pound",
        '¥' => "yen",
        '₹' => "rupee",
        _ => return None,
    })
}

/// Magnitude suffixes glued to a number, spelled out (rule 4).
fn magnitude_word(suffix: &str) -> Option<&'static str> {
    Some(match suffix {
        "k" => "thousand",
        "mn" => "million",
        "bn" => "billion",
        "tn" | "trn" => "trillion",
        _ => return None,
    })
}

/// Suffixes that stay glued to their number: decades and ordinals (rule 4).
fn keeps_suffix(suffix: &str) -> bool {
    matches!(suffix, "s" | "st" | "nd" | "rd" | "th")
}

/// Appends `c` lowercased, with a fast path for ASCII.
fn push_lower(out: &mut String, c: char) {
    if c.is_ascii() {
        out.push(c.to_ascii_lowercase());
    } else {
        out.extend(c.to_lowercase());
    }
}

fn is_apostrophe(c: char) -> bool {
    c == '\'' || c == '’'
}

thread_local! {
    /// The characters of the text being scanned, kept between calls to save an allocation each.
    static CHARS: std::cell::RefCell<Vec<char>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Scans `text` and feeds its terms to `sink`.
pub(super) fn scan(text: &str, sink: &mut Sink) {
    CHARS.with(|buffer| {
        // A sink may not analyse another text meanwhile: `Sink` only emits terms.
        let mut chars = buffer.take();
        chars.clear();
        chars.extend(text.chars());
        scan_chars(&chars, sink);
        buffer.replace(chars);
    });
}

fn scan_chars(chars: &[char], sink: &mut Sink) {
    let n = chars.len();
    let digit_at = |i: usize| i < n && chars[i].is_ascii_digit();
    let mut number = String::new();
    let mut word = String::new();
    let mut i = 0;
    while i < n {
        let c = chars[i];
        if c.is_ascii_digit() || (c == '.' && digit_at(i + 1) && (i == 0 || !chars[i - 1].is_alphanumeric())) {
            number.clear();
            i = scan_number(chars, i, &mut number);
            // Letters glued to the number.
            let start = i;
            while i < n && chars[i].is_alphabetic() {
                i += 1;
            }
            word.clear();
            chars[start..i].iter().for_each(|&c| push_lower(&mut word, c));
            if word.is_empty() {
                sink.verbatim(&number);
            } else if keeps_suffix(&word) && !number.contains('.') {
                number.push_str(&word);
                sink.verbatim(&number);
            } else if let Some(magnitude) = magnitude_word(&word) {
                sink.verbatim(&number);
                sink.word(magnitude);
            } else {
                sink.verbatim(&number);
                sink.word(&word);
            }
        } else if c.is_alphanumeric() {
            word.clear();
            let mut has_digit = false;
            while i < n {
                let c = chars[i];
                if c.is_alphanumeric() {
                    has_digit |= c.is_numeric();
                    push_lower(&mut word, c);
                    i += 1;
                } else if is_apostrophe(c) && i + 1 < n && chars[i + 1].is_alphabetic() {
                    // Possessive 's is dropped; other inner apostrophes join (rule 8).
                    let possessive = (chars[i + 1] == 's' || chars[i + 1] == 'S') && (i + 2 >= n || !chars[i + 2].is_alphanumeric());
                    i += if possessive { 2 } else { 1 };
                } else {
                    break;
                }
            }
            if has_digit {
                sink.verbatim(&word);
            } else {
                sink.word(&word);
            }
        } else if c == '%' {
            sink.word("percent");
            i += 1;
        } else if let Some(currency) = currency_word(c).filter(|_| digit_at(i + 1) || (chars.get(i + 1) == Some(&'.') && digit_at(i + 2))) {
            sink.word(currency);
            i += 1;
        } else {
            i += 1;
        }
    }
}

/// Reads the number starting at `start` into `out` (rules 1–3); returns the index after it.
fn scan_number(chars: &[char], start: usize, out: &mut String) -> usize {
    let n = chars.len();
    let digit_at = |i: usize| i < n && chars[i].is_ascii_digit();
    let run_from = |i: usize| chars[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    let mut i = start;
    let mut has_point = false;
    if chars[i] == '.' {
        out.push('0');
    }
    loop {
        while digit_at(i) {
            out.push(chars[i]);
            i += 1;
        }
        if i + 1 < n && chars[i] == ',' && digit_at(i + 1) && !has_point {
            let group = run_from(i + 1);
            let lakh = group == 2 && chars.get(i + 3) == Some(&',');
            if group == 3 || lakh {
                i += 1;
                continue;
            }
            break;
        } else if i + 1 < n && chars[i] == '.' && digit_at(i + 1) && !has_point {
            has_point = true;
            out.push('.');
            i += 1;
        } else {
            break;
        }
    }
    if has_point {
        while out.ends_with('0') {
            out.pop();
        }
        if out.ends_with('.') {
            out.pop();
        }
    }
    i
}

/// A number found in a text: its place (in characters, not bytes) and its normalised value.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct NumberSpan {
    /// Index of its first character.
    pub start: usize,
    /// Index one past its last character.
    pub end: usize,
    /// The value as the analyzer indexes it (`1,200.50` → `1200.5`).
    pub value: String,
}

/// The numbers of `text` (rules 1–3), with character offsets, for highlighting.
pub fn number_spans(text: &str) -> Vec<NumberSpan> {
    let chars: Vec<char> = text.chars().collect();
    let n = chars.len();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < n {
        let starts_number = chars[i].is_ascii_digit() || (chars[i] == '.' && i + 1 < n && chars[i + 1].is_ascii_digit() && (i == 0 || !chars[i - 1].is_alphanumeric()));
        if starts_number && (i == 0 || !chars[i - 1].is_alphanumeric()) {
            let mut value = String::new();
            let end = scan_number(&chars, i, &mut value);
            spans.push(NumberSpan { start: i, end, value });
            i = end;
        } else {
            i += 1;
        }
    }
    spans
}
