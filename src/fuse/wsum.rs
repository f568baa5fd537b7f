//! Weighted sum: `score(d) = Σ_l w_l · s_l(d)`, a missing document adding 0; with no weights
//! every list weighs 1 (CombSUM). ranx: `wsum` with `params={"weights": [...]}`.

use std::hash::Hash;

use rustc_hash::FxHashMap;

/// Fuses one query's normalised lists.
pub fn wsum<K: Copy + Eq + Hash>(lists: &[Vec<(K, f64)>], weights: &[f64]) -> FxHashMap<K, f64> {
    let mut fused = FxHashMap::default();
    for (i, list) in lists.iter().enumerate() {
        let w = weights.get(i).copied().unwrap_or(1.0);
        for &(doc, score) in list {
            *fused.entry(doc).or_insert(0.0) += w * score;
        }
    }
    fused
}
