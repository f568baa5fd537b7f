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
//!    immigrants"), and the claim's time expressions not already in the window, at most
//!    [`MAX_TIMES`] (the temporal context);
//! 4. when the claim has time expressions but no other quantity, writes one sub-query per time
//!    expression with the words around it.
//!
//! The claim itself comes first (the `numeric` planner adds it). At most
//! [`MAX_SUBQUERIES`] sub-queries; the output is deterministic for a given text.

/// The most sub-queries the decomposer writes for one claim (the claim itself not counted).
pub const MAX_SUBQUERIES: usize = 8;

/// The most time expressions added to one sub-query, the claim's first ones.
pub const MAX_TIMES: usize = 8;

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
    text.len() == 4 && text.chars().all(|c| c.is_ascii_digit()) && crate::analysis::YEARS.contains(&text.parse::<u32>().unwrap_or(0))
}

fn is_time(tokens: &[Token], i: usize) -> bool {
    let t = lower(&tokens[i]);
    let decade = t.ends_with('s') && t[..t.len() - 1].chars().all(|c| c.is_ascii_digit()) && t.len() >= 3;
    let quarter = t.len() == 2 && t.starts_with('q') && t[1..].chars().all(|c| c.is_ascii_digit());
    is_year(&t) || decade || quarter
}

/// The sub-queries for the quantities of `claim` (module doc), without the claim itself.
///
/// Linear in the claim's length: every scan of the text is one pass, the context windows are
/// looked up in precomputed position lists, and writing stops at [`MAX_SUBQUERIES`].
pub fn numeric_subqueries(claim: &str) -> Vec<String> {
    let tokens = tokens(claim);
    let n = tokens.len();
    let lowered: Vec<String> = tokens.iter().map(lower).collect();
    // Time expressions, with a month name before a year kept together.
    let mut time_spans: Vec<(usize, usize)> = Vec::new();
    let mut timed = vec![false; n];
    for i in 0..n {
        if is_time(&tokens, i) {
            let start = if i > 0 && MONTHS.contains(&lowered[i - 1].as_str()) && !tokens[i - 1].ends_clause { i - 1 } else { i };
            time_spans.push((start, i + 1));
            timed[start..=i].iter_mut().for_each(|t| *t = true);
        }
    }
    // Quantities: (start, end) token spans.
    let mut quantities: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < n {
        if timed[i] || !has_digit(&tokens[i]) {
            i += 1;
            continue;
        }
        let start = i;
        let mut end = i + 1;
        // A currency or magnitude word right after: "3 percent", "1.5 billion dollars".
        while end < n && !tokens[end - 1].ends_clause && {
            let w = lowered[end].as_str();
            MAGNITUDES.contains(&w) || CURRENCIES.contains(&w) || w == "points"
        } {
            end += 1;
        }
        // A rate: "41 homicides per 100,000 people".
        if end + 2 < n && !tokens[end].ends_clause && lowered[end + 1] == "per" && !tokens[end + 1].ends_clause && has_digit(&tokens[end + 2]) {
            end = (end + 4).min(n);
        } else if end + 1 < n && lowered[end] == "per" && !tokens[end - 1].ends_clause {
            end = (end + 3).min(n);
        }
        quantities.push((start, end));
        i = end;
    }
    let words = |range: std::ops::Range<usize>| -> Vec<String> { range.map(|j| tokens[j].text.clone()).collect() };
    // Context words: no function word, no number; after a quantity, no time expression either.
    let content = |j: usize| !FUNCTION_WORDS.contains(&lowered[j].as_str()) && !has_digit(&tokens[j]);
    let before_words: Vec<usize> = (0..n).filter(|&j| content(j)).collect();
    let after_words: Vec<usize> = (0..n).filter(|&j| content(j) && !timed[j]).collect();
    // The first token of each token's clause, and the token that ends it (or the last token).
    // A clause ends after a token that `ends_clause`.
    let mut clause_start = vec![0usize; n];
    for j in 1..n {
        clause_start[j] = if tokens[j - 1].ends_clause { j } else { clause_start[j - 1] };
    }
    let mut clause_end = vec![n.saturating_sub(1); n];
    for j in (0..n).rev() {
        clause_end[j] = if tokens[j].ends_clause || j + 1 == n { j } else { clause_end[j + 1] };
    }
    // Up to 4 context words before `start` and 3 from `end` on, within the clause.
    let window = |start: usize, end: usize| -> (Vec<String>, Vec<String>) {
        let from = clause_start[start];
        let before_end = before_words.partition_point(|&j| j < start);
        let before_start = before_words[..before_end].partition_point(|&j| j < from).max(before_end.saturating_sub(4));
        let before = before_words[before_start..before_end].iter().map(|&j| tokens[j].text.clone()).collect();
        let mut after = Vec::new();
        if end > 0 && end < n && !tokens[end - 1].ends_clause {
            let last = clause_end[end];
            let first = after_words.partition_point(|&j| j < end);
            after = after_words[first..].iter().take_while(|&&j| j <= last).take(3).map(|&j| tokens[j].text.clone()).collect();
        }
        (before, after)
    };
    let time_texts: Vec<String> = time_spans.iter().map(|&(s, e)| words(s..e).join(" ")).collect();
    let mut out: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut keep = |query: String, out: &mut Vec<String>| {
        if !query.is_empty() && seen.insert(query.to_lowercase()) {
            out.push(query);
        }
        out.len() >= MAX_SUBQUERIES
    };
    for &(start, end) in &quantities {
        let (mut parts, after) = window(start, end);
        parts.extend(words(start..end));
        parts.extend(after);
        let mut query = parts.join(" ");
        for t in time_texts.iter().take(MAX_TIMES) {
            if !query.contains(t.as_str()) {
                query.push(' ');
                query.push_str(t);
            }
        }
        if keep(query, &mut out) {
            return out;
        }
    }
    if quantities.is_empty() {
        for &(start, end) in &time_spans {
            let (mut parts, after) = window(start, end);
            parts.extend(words(start..end));
            parts.extend(after);
            if keep(parts.join(" "), &mut out) {
                return out;
            }
        }
    }
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
