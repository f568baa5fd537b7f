//! What reads a claim's text: the numeric planner, quantity extraction and comparisons, the
//! analyzer. Any text, never a panic; the planner stays within its bounds.
#![no_main]

use libfuzzer_sys::fuzz_target;
use quantir::plan::{numeric_subqueries, MAX_SUBQUERIES};
use quantir::analysis::quantity::{comparisons, quantities};

fuzz_target!(|text: &str| {
    let queries = numeric_subqueries(text);
    assert!(queries.len() <= MAX_SUBQUERIES);
    let chars = text.chars().count();
    for q in quantities(text) {
        assert!(q.start <= q.end && q.end <= chars, "{q:?}");
        assert!(q.value.is_finite(), "{q:?}");
    }
    let (claim, evidence) = text.split_at(text.char_indices().nth(text.chars().count() / 2).map_or(text.len(), |(i, _)| i));
    let _ = comparisons(claim, &[evidence.to_string()]);
    let mut tokens = 0usize;
    quantir::analysis::Analyzer::default().analyze(text, &mut |_| tokens += 1);
});
