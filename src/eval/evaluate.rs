//! Evaluating a run: per-query values and means.

use std::collections::{BTreeMap, HashMap};

use super::measure::{Aggregate, Measure};
use super::measures::{self, Judged};
use rayon::prelude::*;

use crate::trec::{QueryView, Qrels, RunView};

/// What to do with judged queries the run has no results for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Completeness {
    /// Leave them out of the means (trec_eval's default).
    #[default]
    RunQueriesOnly,
    /// Evaluate them as empty rankings: every measure 0 but `num_rel` (trec_eval `-c`).
    Complete,
}

/// How a run is read before it is measured: trec_eval's `-c`, `-l` and `-M`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// Judged queries missing from the run (`-c`).
    pub completeness: Completeness,
    /// The lowest grade that counts as relevant (`-l`, default 1). nDCG's gains stay the grades.
    pub relevance_level: i32,
    /// Only the top this many documents of each query are measured (`-M`, default all).
    pub max_docs: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { completeness: Completeness::RunQueriesOnly, relevance_level: 1, max_docs: usize::MAX }
    }
}

/// The values of a run's evaluation.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Evaluation {
    /// The measures, in the order asked.
    pub measures: Vec<Measure>,
    /// Query id → one value per measure.
    pub per_query: BTreeMap<String, Vec<f64>>,
    /// The `all` values, one per measure: means over the evaluated queries, sums for counts
    /// ([`Measure::aggregate`]).
    pub mean: Vec<f64>,
    /// Judged queries missing from the run (evaluated as empty rankings with [`Completeness::Complete`]).
    pub missing_from_run: usize,
    /// Run queries with no judgments at all: not evaluated, as in trec_eval.
    pub unjudged_in_run: usize,
}

/// Evaluates `run` against `qrels` with trec_eval's semantics (module doc of [`crate::eval`])
/// and its default settings but for `completeness`.
pub fn evaluate(run: &RunView, qrels: &Qrels, measures: &[Measure], completeness: Completeness) -> Evaluation {
    evaluate_with(run, qrels, measures, &Settings { completeness, ..Settings::default() })
}

/// Evaluates `run` against `qrels` with trec_eval's semantics and `settings`.
///
/// A query is evaluated when it is in the run and has judgments, even if none of them is
/// relevant (its values are then 0, as trec_eval and pytrec_eval report them). With
/// [`Completeness::Complete`], a judged query missing from the run is measured as an empty
/// ranking: 0 everywhere but its `num_rel`.
pub fn evaluate_with(run: &RunView, qrels: &Qrels, measures: &[Measure], settings: &Settings) -> Evaluation {
    let completeness = settings.completeness;
    let empty = QueryView { qid: "", docs: Vec::new() };
    let mut evaluation = Evaluation { measures: measures.to_vec(), ..Default::default() };
    let lists: HashMap<&str, &QueryView> = run.queries.iter().map(|q| (q.qid, q)).collect();
    evaluation.unjudged_in_run = run.queries.iter().filter(|q| !qrels.judgments.contains_key(q.qid)).count();
    evaluation.missing_from_run = qrels.judgments.keys().filter(|q| !lists.contains_key(q.as_str())).count();
    let values: Vec<(String, Option<Vec<f64>>)> = qrels
        .judgments
        .par_iter()
        .map(|(qid, judgments)| {
            let values = match lists.get(qid.as_str()) {
                Some(query) => Some(query_values(query, judgments, measures, settings)),
                None if completeness == Completeness::Complete => Some(query_values(&empty, judgments, measures, settings)),
                None => None,
            };
            (qid.clone(), values)
        })
        .collect();
    evaluation.per_query = values.into_iter().filter_map(|(q, v)| v.map(|v| (q, v))).collect();
    let n = evaluation.per_query.len();
    evaluation.mean = measures
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let sum = evaluation.per_query.values().map(|v| v[i]).sum::<f64>();
            match m.aggregate() {
                Aggregate::Sum => sum,
                Aggregate::Mean if n == 0 => 0.0,
                Aggregate::Mean => sum / n as f64,
            }
        })
        .collect();
    evaluation
}

/// One query's values: its documents ranked as trec_eval ranks them, then measured.
fn query_values(query: &QueryView, judgments: &BTreeMap<String, i32>, measures: &[Measure], settings: &Settings) -> Vec<f64> {
    let trec_order = |a: &(&str, f64), b: &(&str, f64)| crate::trec::ranking(*a, *b);
    let sorted;
    let docs: &[(&str, f64)] = if query.docs.is_sorted_by(|a, b| trec_order(a, b).is_le()) {
        &query.docs
    } else {
        let mut copy = query.docs.clone();
        copy.sort_by(trec_order);
        sorted = copy;
        &sorted
    };
    let docs = &docs[..docs.len().min(settings.max_docs)];
    let level = settings.relevance_level;
    let num_rel = judgments.values().filter(|&&g| g >= level).count();
    let num_nonrel = judgments.values().filter(|&&g| (0..level).contains(&g)).count();
    // Every retrieved document is looked up, most of them unjudged: a hash probe rejects those
    // without comparing strings, where the ordered map compares several.
    let grades: rustc_hash::FxHashMap<&str, i32> = judgments.iter().map(|(d, g)| (d.as_str(), *g)).collect();
    let mut rels = Vec::with_capacity(docs.len());
    let mut judged = Vec::with_capacity(docs.len());
    for (docid, _) in docs {
        let grade = grades.get(*docid);
        rels.push(grade.copied().unwrap_or(0));
        judged.push(grade.is_some());
    }
    let mut ideal: Vec<i32> = judgments.values().copied().filter(|&g| g > 0).collect();
    ideal.sort_unstable_by(|a, b| b.cmp(a));
    // ir_measures' tie order, for `Judged@K` alone.
    let judged_docid_ascending: Vec<bool> = if measures.iter().any(|m| matches!(m, Measure::Judged(_))) {
        let mut by_docid: Vec<&(&str, f64)> = docs.iter().collect();
        by_docid.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        by_docid.iter().map(|(d, _)| grades.contains_key(d)).collect()
    } else {
        Vec::new()
    };
    let j = Judged { rels: &rels, judged: &judged, level, num_rel, num_nonrel, ideal: &ideal, judged_docid_ascending: &judged_docid_ascending };
    measures.iter().map(|m| value(&j, *m)).collect()
}

fn value(j: &Judged, measure: Measure) -> f64 {
    match measure {
        Measure::Ndcg => measures::ndcg_cut(j, usize::MAX),
        Measure::NdcgCut(k) => measures::ndcg_cut(j, k),
        Measure::Recall(k) => measures::recall(j, k),
        Measure::Precision(k) => measures::precision(j, k),
        Measure::Map => measures::average_precision(j, usize::MAX),
        Measure::MapCut(k) => measures::average_precision(j, k),
        Measure::RecipRank => measures::recip_rank(j, usize::MAX),
        Measure::RecipRankCut(k) => measures::recip_rank(j, k),
        Measure::Success(k) => measures::success(j, k),
        Measure::RPrec => measures::r_precision(j),
        Measure::Bpref => measures::bpref(j),
        Measure::NumRet => j.rels.len() as f64,
        Measure::NumRel => j.num_rel as f64,
        Measure::NumRelRet => measures::num_rel_ret(j) as f64,
        Measure::SetP => measures::set_precision(j),
        Measure::SetRecall => measures::set_recall(j),
        Measure::SetF => measures::set_f(j),
        Measure::IprecAtRecall(level) => measures::iprec_at_recall(j, level),
        Measure::Judged(k) => measures::judged(j, k),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trec::{RankedList, Run, ScoredDoc};

    fn doc(id: &str, score: f64) -> ScoredDoc {
        ScoredDoc { docid: id.into(), score }
    }

    #[test]
    fn hand_computed_values() {
        // Ranking by score: d1 (rel 2), d3 (unjudged), d2 (rel 1); d4 (rel 1) not retrieved.
        let run = Run { queries: vec![RankedList { qid: "q".into(), docs: vec![doc("d2", 1.0), doc("d1", 3.0), doc("d3", 2.0)] }] };
        let mut qrels = Qrels::default();
        qrels.judgments.insert("q".into(), [("d1".into(), 2), ("d2".into(), 1), ("d4".into(), 1)].into_iter().collect());
        let measures = [Measure::NdcgCut(3), Measure::Recall(3), Measure::Precision(2), Measure::Map, Measure::RecipRank];
        let e = evaluate(&run.view(), &qrels, &measures, Completeness::RunQueriesOnly);
        let v = &e.per_query["q"];
        let dcg = 2.0 + 1.0 / 4f64.log2();
        let idcg = 2.0 + 1.0 / 3f64.log2() + 1.0 / 4f64.log2();
        assert!((v[0] - dcg / idcg).abs() < 1e-12);
        assert!((v[1] - 2.0 / 3.0).abs() < 1e-12);
        assert!((v[2] - 0.5).abs() < 1e-12);
        assert!((v[3] - (1.0 + 2.0 / 3.0) / 3.0).abs() < 1e-12);
        assert_eq!(v[4], 1.0);
    }

    #[test]
    fn ties_are_broken_by_docid_descending() {
        let run = Run { queries: vec![RankedList { qid: "q".into(), docs: vec![doc("a", 1.0), doc("b", 1.0)] }] };
        let mut qrels = Qrels::default();
        qrels.judgments.insert("q".into(), [("a".into(), 1)].into_iter().collect());
        let e = evaluate(&run.view(), &qrels, &[Measure::RecipRank], Completeness::RunQueriesOnly);
        assert_eq!(e.per_query["q"][0], 0.5, "b sorts before a");
    }

    #[test]
    fn missing_queries_count_only_when_complete() {
        let run = Run { queries: vec![RankedList { qid: "q1".into(), docs: vec![doc("a", 1.0)] }] };
        let mut qrels = Qrels::default();
        qrels.judgments.insert("q1".into(), [("a".into(), 1)].into_iter().collect());
        qrels.judgments.insert("q2".into(), [("b".into(), 1)].into_iter().collect());
        let default = evaluate(&run.view(), &qrels, &[Measure::RecipRank], Completeness::RunQueriesOnly);
        assert_eq!((default.mean[0], default.missing_from_run), (1.0, 1));
        let complete = evaluate(&run.view(), &qrels, &[Measure::RecipRank], Completeness::Complete);
        assert_eq!(complete.mean[0], 0.5);
    }
}
