//! A small dated corpus over a tiny vocabulary, shared by the cutoff tests of both backends
//! (included with `#[path]` by tests/integration and tests/opensearch).

use quantir::corpus::{Document, PubDate};

/// The vocabulary: few words, so scores tie often; numbers, units and currencies included.
pub const WORDS: [&str; 12] = ["inflation", "rate", "3%", "jobs", "800,000", "tax", "$1.5", "billion", "wage", "7.25", "crime", "2021"];

/// `n` documents `doc000`… of 1 to 6 words, dated by day (70%), month, year or not at all (10%
/// each), from the seeded generator `seed`.
pub fn small_corpus(n: usize, seed: u64) -> Vec<Document> {
    let mut state = seed;
    let mut next = |n: u64| {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 33) % n
    };
    (0..n)
        .map(|i| {
            let len = 1 + next(6) as usize;
            let text: Vec<&str> = (0..len).map(|_| WORDS[next(WORDS.len() as u64) as usize]).collect();
            let (y, m, d) = (2015 + next(8), 1 + next(12), 1 + next(28));
            let date = match next(10) {
                0 => None,
                1 => Some(format!("{y}")),
                2 => Some(format!("{y}-{m:02}")),
                _ => Some(format!("{y}-{m:02}-{d:02}")),
            };
            Document { id: format!("doc{i:03}"), title: String::new(), text: text.join(" "), url: None, date: date.map(|d| PubDate::parse(&d).unwrap()) }
        })
        .collect()
}
