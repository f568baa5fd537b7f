//! Keeping the best k candidates under the one tie rule, [`crate::trec::ranking`]: score
//! descending, then id rank descending (document id descending, trec_eval's order).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// A candidate: score, id rank, and what the caller needs to find it again.
struct Entry<T> {
    score: f32,
    rank: u32,
    item: T,
}

impl<T> Entry<T> {
    /// The tie rule: greater is worse (ranks after), so a max-heap's top is the worst candidate
    /// kept.
    fn worse(&self, other: &Self) -> Ordering {
        crate::trec::ranking((self.rank, f64::from(self.score)), (other.rank, f64::from(other.score)))
    }
}

impl<T> PartialEq for Entry<T> {
    fn eq(&self, other: &Self) -> bool {
        self.worse(other) == Ordering::Equal
    }
}
impl<T> Eq for Entry<T> {}
impl<T> PartialOrd for Entry<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Entry<T> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.worse(other)
    }
}

/// The best `k` candidates seen so far.
pub(crate) struct TopK<T> {
    k: usize,
    heap: BinaryHeap<Entry<T>>,
}

impl<T> TopK<T> {
    pub fn new(k: usize) -> Self {
        // The heap grows as candidates come: a k far beyond the collection (`-k 1000000000000`)
        // reserves nothing it will not use.
        TopK { k, heap: BinaryHeap::with_capacity(k.min(4096) + 1) }
    }

    /// Offers a candidate; it is kept if it ranks before the worst one kept (or there is room).
    #[inline]
    pub fn push(&mut self, score: f32, rank: u32, item: T) {
        if self.heap.len() < self.k {
            self.heap.push(Entry { score, rank, item });
        } else if self.heap.peek().is_some_and(|worst| crate::trec::ranking((rank, f64::from(score)), (worst.rank, f64::from(worst.score))).is_lt()) {
            self.heap.pop();
            self.heap.push(Entry { score, rank, item });
        }
    }

    /// A score below this cannot be kept (−∞ until k candidates are): a cheap first test for a
    /// scan over many scores, before the date check and the tie rule.
    #[inline]
    pub fn floor(&self) -> f32 {
        match self.heap.peek() {
            Some(worst) if self.heap.len() >= self.k => worst.score,
            _ => f32::NEG_INFINITY,
        }
    }

    /// The candidates, best first: `(score, rank, item)`.
    pub fn into_sorted(self) -> Vec<(f32, u32, T)> {
        self.heap.into_sorted_vec().into_iter().map(|e| (e.score, e.rank, e.item)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_best_with_ties_by_rank_descending() {
        let mut top = TopK::new(3);
        for (score, rank) in [(1.0, 5), (2.0, 1), (1.0, 9), (1.0, 7), (0.5, 100)] {
            top.push(score, rank, ());
        }
        let kept: Vec<(f32, u32)> = top.into_sorted().into_iter().map(|(s, r, ())| (s, r)).collect();
        assert_eq!(kept, [(2.0, 1), (1.0, 9), (1.0, 7)]);
    }
}
