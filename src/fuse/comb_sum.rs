//! CombSUM (Fox & Shaw 1993): `score(d) = Σ_l s_l(d)`, a document missing from list l adding 0.
//! ranx: `comb_sum`.

use std::hash::Hash;

use rustc_hash::FxHashMap;

/// Fuses one query's normalised lists.
pub fn comb_sum<K: Copy + Eq + Hash>(lists: &[Vec<(K, f64)>]) -> FxHashMap<K, f64> {
    let mut fused = FxHashMap::default();
    for list in lists {
        for &(doc, score) in list {
            *fused.entry(doc).or_insert(0.0) += score;
        }
    }
    fused
}
