//! CombMNZ (Fox & Shaw 1993): `score(d) = |{l : d ∈ l}| · Σ_{l ∋ d} s_l(d)`, rewarding documents
//! that many lists retrieve. ranx: `comb_mnz`.

use std::hash::Hash;

use rustc_hash::FxHashMap;

/// Fuses one query's normalised lists.
pub fn comb_mnz<K: Copy + Eq + Hash>(lists: &[Vec<(K, f64)>]) -> FxHashMap<K, f64> {
    let mut sums: FxHashMap<K, (f64, u32)> = FxHashMap::default();
    for list in lists {
        for &(doc, score) in list {
            let entry = sums.entry(doc).or_insert((0.0, 0));
            entry.0 += score;
            entry.1 += 1;
        }
    }
    sums.into_iter().map(|(doc, (sum, hits))| (doc, sum * f64::from(hits))).collect()
}
