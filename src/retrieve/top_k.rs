//! Keeping the best k candidates under the one tie rule, [`crate::trec::ranking`]: score
//! descending, then id rank descending (document id descending, trec_eval's order).

/// A candidate as one integer, greater for the candidate that ranks first: the score's bits in
/// IEEE total order (f32 `total_cmp`), then the id rank. Ordering by it descending is
/// [`crate::trec::ranking`] (score descending, then id rank descending) — the property test
/// below checks that. Eight-byte keys select and sort several times faster than records compared
/// by the rule's float-and-tuple comparison, which were a third of a k = 1000 search; what a
/// caller needs to find a document again follows from its id rank ([`crate::index::Index::address`]).
#[inline]
fn key(score: f32, rank: u32) -> u64 {
    let bits = score.to_bits();
    let ordered = if bits >> 31 == 1 { !bits } else { bits | 0x8000_0000 };
    (u64::from(ordered) << 32) | u64::from(rank)
}

/// The score and id rank a [`key`] was made from.
#[inline]
fn unkey(key: u64) -> (f32, u32) {
    let ordered = (key >> 32) as u32;
    let bits = if ordered >> 31 == 1 { ordered & 0x7fff_ffff } else { !ordered };
    (f32::from_bits(bits), key as u32)
}

/// The best `k` candidates seen so far.
///
/// Candidates gather in a buffer; when it holds `2k` (at least [`MIN_BUFFER`]), a linear-time
/// selection keeps the best `k` and the k-th's score becomes the floor that later candidates must
/// reach. Every candidate costs O(1) amortised, against a heap's O(log k) compare-and-swap steps.
pub(crate) struct TopK {
    k: usize,
    keys: Vec<u64>,
    /// The k-th best score at the last selection (−∞ before): a candidate below it cannot be kept.
    floor: f32,
}

/// The smallest buffer between selections, so that tiny k do not select after every push.
const MIN_BUFFER: usize = 64;

impl TopK {
    pub fn new(k: usize) -> Self {
        // The buffer grows as candidates come: a k far beyond the collection (`-k 1000000000000`)
        // reserves nothing it will not use.
        TopK { k, keys: Vec::with_capacity(k.saturating_mul(2).clamp(MIN_BUFFER, 8192)), floor: f32::NEG_INFINITY }
    }

    /// Offers a candidate; it is kept if it ranks before the k-th best one (or there is room).
    #[inline]
    pub fn push(&mut self, score: f32, rank: u32) {
        // Equal to the floor may still rank before the k-th by the tie rule: kept for now.
        if self.k == 0 || score < self.floor {
            return;
        }
        self.keys.push(key(score, rank));
        if self.keys.len() >= self.k.saturating_mul(2).max(MIN_BUFFER) {
            self.select();
        }
    }

    /// Keeps the best k, the k-th last, and raises the floor to its score.
    fn select(&mut self) {
        if self.keys.len() <= self.k {
            return;
        }
        self.keys.select_nth_unstable_by(self.k - 1, |a, b| b.cmp(a));
        self.keys.truncate(self.k);
        // After the selection the k-th best is at k − 1 and everything before ranks before it.
        self.floor = unkey(self.keys[self.k - 1]).0;
    }

    /// How many candidates are kept.
    pub fn k(&self) -> usize {
        self.k
    }

    /// A score below this cannot be kept (−∞ until a selection has found k candidates): a cheap
    /// first test for a scan over many scores, before the date check and the tie rule.
    #[inline]
    pub fn floor(&self) -> f32 {
        self.floor
    }

    /// The candidates, best first: `(score, id rank)`.
    pub fn into_sorted(mut self) -> Vec<(f32, u32)> {
        self.select();
        self.keys.sort_unstable_by(|a, b| b.cmp(a));
        self.keys.into_iter().map(unkey).collect()
    }
}

/// The best `k` candidates with the k-th's exact score at all times, for pruning that needs the
/// running threshold after every candidate (MaxScore): a min-heap of [`key`]s. Same order and
/// output as [`TopK`].
pub(crate) struct Threshold {
    k: usize,
    heap: std::collections::BinaryHeap<std::cmp::Reverse<u64>>,
}

impl Threshold {
    pub fn new(k: usize) -> Self {
        Threshold { k, heap: std::collections::BinaryHeap::with_capacity(k.min(4096) + 1) }
    }

    /// Offers a candidate.
    #[inline]
    pub fn push(&mut self, score: f32, rank: u32) {
        let candidate = key(score, rank);
        if self.heap.len() < self.k {
            self.heap.push(std::cmp::Reverse(candidate));
        } else if self.heap.peek().is_some_and(|worst| candidate > worst.0) {
            self.heap.pop();
            self.heap.push(std::cmp::Reverse(candidate));
        }
    }

    /// The k-th best score so far (−∞ until k candidates are in): a candidate scoring below it
    /// cannot be kept; one scoring exactly it may, by the tie rule.
    #[inline]
    pub fn threshold(&self) -> f32 {
        match self.heap.peek() {
            Some(worst) if self.heap.len() >= self.k => unkey(worst.0).0,
            _ => f32::NEG_INFINITY,
        }
    }

    /// The candidates, best first: `(score, id rank)`.
    pub fn into_sorted(self) -> Vec<(f32, u32)> {
        let mut keys: Vec<u64> = self.heap.into_iter().map(|r| r.0).collect();
        keys.sort_unstable_by(|a, b| b.cmp(a));
        keys.into_iter().map(unkey).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_best_with_ties_by_rank_descending() {
        let mut top = TopK::new(3);
        for (score, rank) in [(1.0, 5), (2.0, 1), (1.0, 9), (1.0, 7), (0.5, 100)] {
            top.push(score, rank);
        }
        assert_eq!(top.into_sorted(), [(2.0, 1), (1.0, 9), (1.0, 7)]);
    }

    #[test]
    fn keys_round_trip() {
        for score in [0.0f32, -0.0, 1.5, -1.5, f32::MAX, f32::MIN, f32::INFINITY, f32::NEG_INFINITY, 1e-30] {
            assert_eq!(unkey(key(score, 7)).0.to_bits(), score.to_bits());
        }
    }

    #[test]
    fn equals_a_full_sort_for_any_k() {
        use rand_chacha::rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        for round in 0..200 {
            let n = (rng.next_u64() % 3000) as usize;
            // Few distinct scores, so ties across the selection boundary are common.
            // Negative, zero and positive scores, so the key's sign handling is exercised.
            let candidates: Vec<(f32, u32)> = (0..n).map(|i| ((rng.next_u64() % 20) as f32 * 0.5 - 3.0, i as u32)).collect();
            let k = [1, 2, 10, 63, 64, 65, 100, 1000, 5000][round % 9];
            let mut top = TopK::new(k);
            for &(score, rank) in &candidates {
                top.push(score, rank);
            }
            let mut expected = candidates.clone();
            expected.sort_by(|a, b| crate::trec::ranking((a.1, f64::from(a.0)), (b.1, f64::from(b.0))));
            expected.truncate(k);
            let mut exact = Threshold::new(k);
            for &(score, rank) in &candidates {
                exact.push(score, rank);
            }
            assert_eq!(top.into_sorted(), expected, "n {n} k {k}");
            assert_eq!(exact.into_sorted(), expected, "n {n} k {k}");
        }
    }
}
