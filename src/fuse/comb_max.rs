//! CombMAX (Fox & Shaw 1993): `score(d) = max_{l ∋ d} s_l(d)`, over the lists that hold d only.
//! ranx: `comb_max` (which scores a missing document −1e9, the same thing).

use std::hash::Hash;

use rustc_hash::FxHashMap;

/// Fuses one query's normalised lists.
pub fn comb_max<K: Copy + Eq + Hash>(lists: &[Vec<(K, f64)>]) -> FxHashMap<K, f64> {
    let mut fused: FxHashMap<K, f64> = FxHashMap::default();
    for list in lists {
        for &(doc, score) in list {
            fused.entry(doc).and_modify(|best| *best = best.max(score)).or_insert(score);
        }
    }
    fused
}
