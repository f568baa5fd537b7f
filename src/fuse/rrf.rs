//! Reciprocal rank fusion (Cormack, Clarke & Büttcher 2009):
//! `score(d) = Σ_{l ∋ d} 1 / (k + rank_l(d))`, ranks from 1 in each list's order, k = 60 by
//! default. Scores are not read, so normalisation does not matter. ranx: `rrf`.

use std::hash::Hash;

use rustc_hash::FxHashMap;

/// Fuses one query's lists (each best first).
pub fn rrf<K: Copy + Eq + Hash>(lists: &[Vec<(K, f64)>], k: f64) -> FxHashMap<K, f64> {
    let mut fused = FxHashMap::default();
    for list in lists {
        for (i, &(doc, _)) in list.iter().enumerate() {
            *fused.entry(doc).or_insert(0.0) += 1.0 / (k + (i + 1) as f64);
        }
    }
    fused
}
