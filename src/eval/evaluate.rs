//! Evaluating a run: per-query values and means.

use std::collections::{BTreeMap, HashMap};

use super::measure::Measure;
use super::measures::{self, Judged};
use rayon::prelude::*;

use crate::trec::{QueryView, Qrels, RunView};

/// What to do with judged queries the run has no results for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Completeness {
    /// Leave them out of the means (trec_eval's default).
    #[default]
    RunQueriesOnly,
    /// Count them with every measure at 0 (trec_eval `-c`).
    Complete,
}

/// The values of a run's evaluation.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Evaluation {
    /// The measures, in the order asked.
    pub measures: Vec<Measure>,
    /// Query id → one value per measure.
    pub per_query: BTreeMap<String, Vec<f64>>,
    /// Means over the evaluated queries, one per measure.
    pub mean: Vec<f64>,
    /// Judged queries missing from the run (counted as 0 with [`Completeness::Complete`]).
    pub missing_from_run: usize,
    /// Run queries with no judgments at all: not evaluated, as in trec_eval.
    pub unjudged_in_run: usize,
}

/// Evaluates `run` against `qrels` with trec_eval's semantics (module doc of [`crate::eval`]).
///
/// A query is evaluated when it is in the run and has judgments, even if none of them is
/// relevant (its values are then 0, as trec_eval and pytrec_eval report them).
pub fn evaluate(run: &RunView, qrels: &Qrels, measures: &[Measure], completeness: Completeness) -> Evaluation {
    let mut evaluation = Evaluation { measures: measures.to_vec(), ..Default::default() };
    let lists: HashMap<&str, &QueryView> = run.queries.iter().map(|q| (q.qid, q)).collect();
    evaluation.unjudged_in_run = run.queries.iter().filter(|q| !qrels.judgments.contains_key(q.qid)).count();
    evaluation.missing_from_run = qrels.judgments.keys().filter(|q| !lists.contains_key(q.as_str())).count();
    let values: Vec<(String, Option<Vec<f64>>)> = qrels
        .judgments
        .par_iter()
        .map(|(qid, judgments)| {
            let values = match lists.get(qid.as_str()) {
                Some(query) => Some(query_values(query, judgments, measures)),
                None if completeness == Completeness::Complete => Some(vec![0.0; measures.len()]),
                None => None,
            };
            (qid.clone(), values)
        })
        .collect();
    evaluation.per_query = values.into_iter().filter_map(|(q, v)| v.map(|v| (q, v))).collect();
    let n = evaluation.per_query.len();
    evaluation.mean = (0..measures.len())
        .map(|i| if n == 0 { 0.0 } else { evaluation.per_query.values().map(|v| v[i]).sum::<f64>() / n as f64 })
        .collect();
    evaluation
}

/// One query's values: its documents ranked as trec_eval ranks them, then measured.
fn query_values(query: &QueryView, judgments: &BTreeMap<String, i32>, measures: &[Measure]) -> Vec<f64> {
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
    let num_rel = judgments.values().filter(|&&g| g >= 1).count();
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
    let j = Judged { rels: &rels, judged: &judged, num_rel, ideal: &ideal };
    measures.iter().map(|m| value(&j, *m)).collect()
}

fn value(j: &Judged, measure: Measure) -> f64 {
    match measure {
        Measure::NdcgCut(k) => measures::ndcg_cut(j, k),
        Measure::Recall(k) => measures::recall(j, k),
        Measure::Precision(k) => measures::precision(j, k),
        Measure::Map => measures::average_precision(j, usize::MAX),
        Measure::MapCut(k) => measures::average_precision(j, k),
        Measure::RecipRank => measures::recip_rank(j, usize::MAX),
        Measure::RecipRankCut(k) => measures::recip_rank(j, k),
        Measure::Success(k) => measures::success(j, k),
        Measure::RPrec => measures::r_precision(j),
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
