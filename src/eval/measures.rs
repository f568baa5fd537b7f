//! The measures' formulas over one judged ranking.
//!
//! `rels[i]` is the grade of the document at rank i+1 (0 when unjudged), `num_rel` the number of
//! judged documents with a grade at the relevance level or above (1 unless trec_eval's `-l` says
//! otherwise), `ideal` the positive grades of the query's judgments sorted descending.

/// A ranking with its judgments, ready to be measured.
pub(super) struct Judged<'a> {
    pub rels: &'a [i32],
    pub judged: &'a [bool],
    /// The lowest grade that counts as relevant.
    pub level: i32,
    pub num_rel: usize,
    /// Judged documents graded from 0 to below the relevance level (trec_eval counts a negative
    /// grade as not judged here).
    pub num_nonrel: usize,
    pub ideal: &'a [i32],
    /// Whether each document is judged, ranked as ir_measures ranks for `Judged@K` (ties by
    /// docid ascending); empty unless that measure is asked for.
    pub judged_docid_ascending: &'a [bool],
}

impl Judged<'_> {
    fn relevant(&self, grade: i32) -> bool {
        grade >= self.level
    }
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
    j.rels.iter().take(k).filter(|&&g| j.relevant(g)).count()
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
        if j.relevant(g) {
            found += 1;
            sum += found as f64 / (i + 1) as f64;
        }
    }
    sum / j.num_rel as f64
}

/// 1 / rank of the first relevant document within the top k, 0 if none (trec_eval
/// `recip_rank` is k = ∞; MRR@k is the mean of k-cut values, as ranx and BEIR compute it).
pub(super) fn recip_rank(j: &Judged, k: usize) -> f64 {
    j.rels.iter().take(k).position(|&g| j.relevant(g)).map_or(0.0, |i| 1.0 / (i + 1) as f64)
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

/// bpref = Σ_{relevant retrieved r} (1 − min(n_r, R) / min(N, R)) / R, with n_r the judged
/// non-relevant documents ranked above r, R = num_rel and N = num_nonrel; unjudged documents and
/// negative grades are passed over (trec_eval `bpref`).
pub(super) fn bpref(j: &Judged) -> f64 {
    if j.num_rel == 0 {
        return 0.0;
    }
    let mut nonrel_above = 0usize;
    let mut sum = 0.0;
    for (&g, _) in j.rels.iter().zip(j.judged).filter(|(&g, &judged)| judged && g >= 0) {
        if j.relevant(g) {
            sum += if nonrel_above > 0 { 1.0 - nonrel_above.min(j.num_rel) as f64 / j.num_nonrel.min(j.num_rel) as f64 } else { 1.0 };
        } else {
            nonrel_above += 1;
        }
    }
    sum / j.num_rel as f64
}

/// Relevant documents retrieved.
pub(super) fn num_rel_ret(j: &Judged) -> usize {
    relevant_in_top(j, usize::MAX)
}

/// Relevant retrieved over retrieved, 0 when nothing was retrieved (trec_eval `set_P`).
pub(super) fn set_precision(j: &Judged) -> f64 {
    if j.rels.is_empty() {
        0.0
    } else {
        num_rel_ret(j) as f64 / j.rels.len() as f64
    }
}

/// Relevant retrieved over relevant (trec_eval `set_recall`).
pub(super) fn set_recall(j: &Judged) -> f64 {
    recall(j, usize::MAX)
}

/// 2PR / (P + R) of `set_P` and `set_recall`, 0 when both are 0 (trec_eval `set_F`, β = 1).
pub(super) fn set_f(j: &Judged) -> f64 {
    let (p, r) = (set_precision(j), set_recall(j));
    if p + r > 0.0 {
        2.0 * p * r / (p + r)
    } else {
        0.0
    }
}

/// Interpolated precision at recall `level` (hundredths): the highest precision at any rank
/// whose recall reaches the level, where the level is reached after ⌊level·R + 0.9⌋ relevant
/// documents; 0 when the run never reaches it (trec_eval `iprec_at_recall`).
pub(super) fn iprec_at_recall(j: &Judged, level: u8) -> f64 {
    let needed = (f64::from(level) / 100.0 * j.num_rel as f64 + 0.9) as usize;
    // Precision falls between relevant documents, so its maximum over the ranks from the
    // `needed`-th relevant document on is its maximum at the relevant ranks from there.
    let mut found = 0usize;
    let mut best = 0.0f64;
    for (i, &g) in j.rels.iter().enumerate() {
        if j.relevant(g) {
            found += 1;
            if found >= needed {
                best = best.max(found as f64 / (i + 1) as f64);
            }
        }
    }
    if needed > found {
        0.0
    } else {
        best
    }
}

/// ir_measures' `Judged@K`: judged documents in the top k, over k or over the run's length when
/// it is shorter (ranked with ties by docid ascending, as ir_measures ranks).
pub(super) fn judged(j: &Judged, k: usize) -> f64 {
    let top = &j.judged_docid_ascending[..k.min(j.judged_docid_ascending.len())];
    if top.is_empty() {
        0.0
    } else {
        top.iter().filter(|&&x| x).count() as f64 / top.len() as f64
    }
}
