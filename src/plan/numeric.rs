//! The numeric-aspect decomposer: one sub-query per quantity in a claim, with no model.
//!
//! A numerical claim is checked number by number, and each number needs evidence about *that*
//! number in its own context. The decomposer:
//!
//! 1. splits the claim into tokens (whitespace, with surrounding punctuation peeled off but kept
//!    as clause boundaries: `,` `;` `:` `(` `)` and sentence ends);
//! 2. finds the **quantities**: tokens with a digit, or a currency symbol before one. A
//!    quantity takes with it a currency or magnitude word right after it (`$1.5 billion`,
//!    `3 percent`, `800,000`), and a rate continues through `per` and the next number and
//!    word (`41 homicides per 100,000 people`). Years (1800–2099, alone), decades (`1990s`),
//!    `Q3 2021` and month–year pairs are **time** expressions instead;
//! 3. for each quantity, writes one sub-query: up to 4 content words before it in the same
//!    clause (the entity: "Florida's economy", "ObamaCare … jobs"), the quantity with its unit,
//!    up to 3 content words after it in the same clause (what is counted: "jobs", "of
//!    immigrants"), and every time expression of the claim not already in the window (the
//!    temporal context);
//! 4. when the claim has time expressions but no other quantity, writes one sub-query per time
//!    expression with the words around it.
//!
//! The claim itself comes first (the `numeric` planner adds it). At most
//! [`MAX_SUBQUERIES`] sub-queries; the output is deterministic for a given text.

/// The most sub-queries the decomposer writes for one claim (the claim itself not counted).
pub const MAX_SUBQUERIES: usize = 8;

/// Words that carry no entity (stopwords for context windows; wider than the analyzer's list).
const FUNCTION_WORDS: [&str; 58] = [
    "a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "for", "from", "had", "has", "have", "he", "her", "his", "if", "in",
    "into", "is", "it", "its", "no", "not", "of", "on", "or", "our", "over", "says", "said", "she", "so", "such", "than", "that",
    "the", "their", "then", "there", "these", "they", "this", "to", "was", "we", "were", "what", "when", "which", "who", "will",
    "with", "would", "you", "about",
];

const MAGNITUDES: [&str; 8] = ["thousand", "million", "billion", "trillion", "percent", "percentage", "crore", "lakh"];
const CURRENCIES: [&str; 9] = ["dollars", "dollar", "euros", "euro", "pounds", "pound", "rupees", "yen", "usd"];
const MONTHS: [&str; 12] = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];

#[derive(Debug, Clone)]
struct Token {
    /// The token as written, punctuation peeled.
    text: String,
    /// A clause ends after this token.
    ends_clause: bool,
}

fn tokens(claim: &str) -> Vec<Token> {
    let mut out: Vec<Token> = Vec::new();
    for raw in claim.split_whitespace() {
        let leading_break = raw.starts_with('(');
        let trimmed = raw.trim_matches(|c: char| !(c.is_alphanumeric() || "$€£¥₹%".contains(c)));
        if leading_break {
            if let Some(last) = out.last_mut() {
                last.ends_clause = true;
            }
        }
        if trimmed.is_empty() {
            continue;
        }
        let tail = &raw[raw.rfind(trimmed).map_or(raw.len(), |i| i + trimmed.len())..];
        // A full stop after an abbreviation ("U.S.", "Mr.") does not end the clause.
        let abbreviation = trimmed.contains('.') || (trimmed.len() <= 2 && trimmed.starts_with(char::is_uppercase));
        let ends_clause = tail.contains([',', ';', ':', '!', '?', ')']) || (tail.contains('.') && !abbreviation);
        out.push(Token { text: trimmed.to_string(), ends_clause });
    }
    out
}

fn lower(t: &Token) -> String {
    t.text.to_lowercase()
}

fn has_digit(t: &Token) -> bool {
    // HTML character references ("&#8220;") in scraped claims are not quantities.
    t.text.chars().any(|c| c.is_ascii_digit()) && !t.text.contains("&#")
}

fn is_year(text: &str) -> bool {
    text.len() == 4 && text.chars().all(|c| c.is_ascii_digit()) && (1800..=2099).contains(&text.parse::<u32>().unwrap_or(0))
}

fn is_time(tokens: &[Token], i: usize) -> bool {
    let t = lower(&tokens[i]);
    let decade = t.ends_with('s') && t[..t.len() - 1].chars().all(|c| c.is_ascii_digit()) && t.len() >= 3;
    let quarter = t.len() == 2 && t.starts_with('q') && t[1..].chars().all(|c| c.is_ascii_digit());
    is_year(&t) || decade || quarter
}

fn is_function_word(t: &Token) -> bool {
    FUNCTION_WORDS.contains(&lower(t).as_str())
}

/// The sub-queries for the quantities of `claim` (module doc), without the claim itself.
pub fn numeric_subqueries(claim: &str) -> Vec<String> {
    let tokens = tokens(claim);
    let n = tokens.len();
    // Time expressions, with a month name before a year kept together.
    let mut time_spans: Vec<(usize, usize)> = Vec::new();
    for i in 0..n {
        if is_time(&tokens, i) {
            let start = if i > 0 && MONTHS.contains(&lower(&tokens[i - 1]).as_str()) && !tokens[i - 1].ends_clause { i - 1 } else { i };
            time_spans.push((start, i + 1));
        } else if MONTHS.contains(&lower(&tokens[i]).as_str()) && i + 1 < n && is_year(&tokens[i + 1].text) {
            continue;
        }
    }
    let in_time = |i: usize| time_spans.iter().any(|&(s, e)| s <= i && i < e);
    // Quantities: (start, end) token spans.
    let mut quantities: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < n {
        if in_time(i) || !has_digit(&tokens[i]) {
            i += 1;
            continue;
        }
        let start = i;
        let mut end = i + 1;
        // A currency or magnitude word right after: "3 percent", "1.5 billion dollars".
        while end < n && !tokens[end - 1].ends_clause && {
            let w = lower(&tokens[end]);
            MAGNITUDES.contains(&w.as_str()) || CURRENCIES.contains(&w.as_str()) || w == "points"
        } {
            end += 1;
        }
        // A rate: "41 homicides per 100,000 people".
        if end + 2 < n && !tokens[end].ends_clause && lower(&tokens[end + 1]) == "per" && !tokens[end + 1].ends_clause && has_digit(&tokens[end + 2]) {
            end = (end + 4).min(n);
        } else if end + 1 < n && lower(&tokens[end]) == "per" && !tokens[end - 1].ends_clause {
            end = (end + 3).min(n);
        }
        quantities.push((start, end));
        i = end;
    }
    let words = |range: std::ops::Range<usize>| -> Vec<String> { range.map(|j| tokens[j].text.clone()).collect() };
    let time_texts: Vec<String> = time_spans.iter().map(|&(s, e)| words(s..e).join(" ")).collect();
    // Up to 4 content words before `start` and 3 after `end`, within the clause.
    let window = |start: usize, end: usize| -> (Vec<String>, Vec<String>) {
        let mut before = Vec::new();
        let mut j = start;
        while j > 0 && before.len() < 4 {
            j -= 1;
            if tokens[j].ends_clause {
                break;
            }
            if !is_function_word(&tokens[j]) && !has_digit(&tokens[j]) {
                before.push(tokens[j].text.clone());
            }
        }
        before.reverse();
        let mut after = Vec::new();
        let mut j = end;
        if end > 0 && !tokens[end - 1].ends_clause {
            while j < n && after.len() < 3 {
                if !is_function_word(&tokens[j]) && !has_digit(&tokens[j]) && !in_time(j) {
                    after.push(tokens[j].text.clone());
                }
                if tokens[j].ends_clause {
                    break;
                }
                j += 1;
            }
        }
        (before, after)
    };
    let mut out: Vec<String> = Vec::new();
    for &(start, end) in &quantities {
        let (mut parts, after) = window(start, end);
        parts.extend(words(start..end));
        parts.extend(after);
        let mut query = parts.join(" ");
        for t in &time_texts {
            if !query.contains(t.as_str()) {
                query.push(' ');
                query.push_str(t);
            }
        }
        out.push(query);
    }
    if quantities.is_empty() {
        for &(start, end) in &time_spans {
            let (mut parts, after) = window(start, end);
            parts.extend(words(start..end));
            parts.extend(after);
            out.push(parts.join(" "));
        }
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|q| !q.is_empty() && seen.insert(q.to_lowercase()));
    out.truncate(MAX_SUBQUERIES);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_subquery_per_quantity_with_its_context() {
        assert_eq!(
            numeric_subqueries("The non-partisan Congressional Budget Office concluded ObamaCare will cost the U.S. more than 800,000 jobs."),
            ["ObamaCare cost U.S more 800,000 jobs"]
        );
        assert_eq!(numeric_subqueries("41 homicides per 100,000 people in Chicago in 2016"), ["41 homicides per 100,000 people Chicago 2016"]);
        assert_eq!(numeric_subqueries("Inflation is down close to 3%"), ["Inflation down close 3%"]);
        assert_eq!(
            numeric_subqueries("The CIA paid two psychologists $81 million to develop a program in 2002, and 90% of it was secret."),
            ["CIA paid two psychologists $81 million develop program 2002", "90% secret 2002"]
        );
    }

    #[test]
    fn time_only_claims_get_their_context() {
        assert_eq!(numeric_subqueries("Peppa Pig first aired in May 2004"), ["Peppa Pig first aired May 2004"]);
        assert!(numeric_subqueries("No numbers here").is_empty());
    }

    #[test]
    fn deterministic_and_bounded() {
        let claim = "1 2 3 4 5 6 7 8 9 10 11 12 apples";
        assert_eq!(numeric_subqueries(claim), numeric_subqueries(claim));
        assert!(numeric_subqueries(claim).len() <= MAX_SUBQUERIES);
    }
}
