//! The measures' formulas over one judged ranking.
//!
//! `rels[i]` is the grade of the document at rank i+1 (0 when unjudged), `num_rel` the number of
//! judged documents with grade ≥ 1, `ideal` the positive grades of the query's judgments sorted
//! descending.

/// A ranking with its judgments, ready to be measured.
pub(super) struct Judged<'a> {
    pub rels: &'a [i32],
    pub judged: &'a [bool],
    pub num_rel: usize,
    pub ideal: &'a [i32],
}

fn relevant(grade: i32) -> bool {
    grade >= 1
}

/// nDCG@k = DCG@k / IDCG@k, DCG@k = Σ_{i<k} grade_i / log2(i + 2), IDCG from `ideal`; 0 when
/// IDCG is 0 (trec_eval `ndcg_cut`, linear gains).
pub(super) fn ndcg_cut(j: &Judged, k: usize) -> f64 {
    let dcg = |grades: &mut dyn Iterator<Item = i32>| -> f64 {
        grades.take(k).enumerate().filter(|(_, g)| *g > 0).map(|(i, g)| g as f64 / ((i + 2) as f64).log2()).sum()
    };
    let ideal = dcg(&mut j.ideal.iter().copied());
    if ideal > 0.0 {
        dcg(&mut j.rels.iter().copied()) / ideal
    } else {
        0.0
    }
}

/// Relevant documents in the top k.
fn relevant_in_top(j: &Judged, k: usize) -> usize {
    j.rels.iter().take(k).filter(|&&g| relevant(g)).count()
}

/// recall@k = |relevant ∩ top k| / num_rel (trec_eval `recall.k`).
pub(super) fn recall(j: &Judged, k: usize) -> f64 {
    if j.num_rel == 0 {
        0.0
    } else {
        relevant_in_top(j, k) as f64 / j.num_rel as f64
    }
}

/// P@k = |relevant ∩ top k| / k, k even when fewer were retrieved (trec_eval `P.k`).
pub(super) fn precision(j: &Judged, k: usize) -> f64 {
    relevant_in_top(j, k) as f64 / k as f64
}

/// AP@k = Σ_{relevant at rank r ≤ k} precision@r / num_rel (trec_eval `map_cut.k`; `map` is
/// k = ∞).
pub(super) fn average_precision(j: &Judged, k: usize) -> f64 {
    if j.num_rel == 0 {
        return 0.0;
    }
    let mut found = 0usize;
    let mut sum = 0.0;
    for (i, &g) in j.rels.iter().take(k).enumerate() {
        if relevant(g) {
            found += 1;
            sum += found as f64 / (i + 1) as f64;
        }
    }
    sum / j.num_rel as f64
}

/// 1 / rank of the first relevant document within the top k, 0 if none (trec_eval
/// `recip_rank` is k = ∞; MRR@k is the mean of k-cut values, as ranx and BEIR compute it).
pub(super) fn recip_rank(j: &Judged, k: usize) -> f64 {
    j.rels.iter().take(k).position(|&g| relevant(g)).map_or(0.0, |i| 1.0 / (i + 1) as f64)
}

/// 1 if a relevant document is in the top k (trec_eval `success.k`).
pub(super) fn success(j: &Judged, k: usize) -> f64 {
    if relevant_in_top(j, k) > 0 {
        1.0
    } else {
        0.0
    }
}

/// Precision at rank R = num_rel (trec_eval `Rprec`).
pub(super) fn r_precision(j: &Judged) -> f64 {
    if j.num_rel == 0 {
        0.0
    } else {
        relevant_in_top(j, j.num_rel) as f64 / j.num_rel as f64
    }
}

/// Judged documents in the top k over k (trec_eval `judged.k`).
pub(super) fn judged(j: &Judged, k: usize) -> f64 {
    j.judged.iter().take(k).filter(|&&x| x).count() as f64 / k as f64
}
