//! CombMAX-Norm: CombMAX over lists min-max normalised each on its own,
//! `score(d) = max_{l ∋ d} (s_l(d) − min_l) / (max_l − min_l)`. The QuanTemp++ paper's best
//! fusion of per-sub-query lists; equal to ranx `fuse(norm="min-max", method="max")`.

use std::hash::Hash;

use rustc_hash::FxHashMap;

/// Fuses one query's lists, already min-max normalised by the caller (`FusionConfig::effective_norm`).
pub fn comb_max_norm<K: Copy + Eq + Hash>(lists: &[Vec<(K, f64)>]) -> FxHashMap<K, f64> {
    super::comb_max::comb_max(lists)
}
