//! Scoring verdicts as scikit-learn does (`accuracy_score`, `precision_recall_fscore_support`,
//! `f1_score(average="macro"|"weighted")`, `confusion_matrix`).
//!
//! The labels scored are those that occur among the gold labels or the predictions, in
//! [`Label::ALL`] order (scikit-learn's `unique_labels`, in quantir's order). Per label c:
//! precision = TP / (TP + FP), recall = TP / (TP + FN), F1 = 2PR / (P + R), each 0 when its
//! denominator is 0 (scikit-learn's `zero_division=0`). Macro-F1 is the mean over those labels;
//! weighted-F1 weighs each label's F1 by its gold support. The confusion matrix has gold rows and
//! predicted columns in the order of [`VerifyScores::labels`].
//!
//! A *failed* run (no verdict: a database agent past its call budget, answers malformed twice) is
//! wrong, as ClaimDB scores it: it counts as a miss (FN) for its gold label, is a false positive
//! for no label, and has no column in the confusion matrix — scikit-learn's figures with a
//! pseudo-label "failed" in `y_pred` left out of `labels=`.

use std::collections::{HashMap, HashSet};

use super::{Gold, Label, NeiCategory, Prediction};
use crate::error::{Error, Result, Unmatched};

/// One class's figures.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct ClassScores {
    /// Precision.
    pub precision: f64,
    /// Recall.
    pub recall: f64,
    /// F1.
    pub f1: f64,
    /// Gold examples of the class.
    pub support: usize,
}

/// All the figures.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct VerifyScores {
    /// Share of correct verdicts.
    pub accuracy: f64,
    /// Mean F1 over the labels scored.
    pub macro_f1: f64,
    /// F1 weighted by gold support.
    pub weighted_f1: f64,
    /// Per label scored, by name.
    pub per_class: std::collections::BTreeMap<String, ClassScores>,
    /// The labels scored (module doc), by name: the order of `confusion`'s rows and columns.
    pub labels: Vec<String>,
    /// Gold rows × predicted columns.
    pub confusion: Vec<Vec<usize>>,
    /// Examples scored.
    pub examples: usize,
    /// Examples whose run failed (counted wrong).
    pub failed: usize,
}

/// Scores `(gold, predicted)` pairs.
pub fn score(pairs: &[(Label, Label)]) -> VerifyScores {
    score_outcomes(&pairs.iter().map(|&(g, p)| (g, Some(p))).collect::<Vec<_>>())
}

/// Scores `(gold, predicted)` pairs where `None` is a failed run (module doc).
pub fn score_outcomes(pairs: &[(Label, Option<Label>)]) -> VerifyScores {
    const N: usize = Label::ALL.len();
    let mut confusion = [[0usize; N]; N];
    let mut missed = [0usize; N];
    for &(g, p) in pairs {
        match p {
            Some(p) => confusion[g.index()][p.index()] += 1,
            None => missed[g.index()] += 1,
        }
    }
    let ratio = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    let predicted = |c: usize| (0..N).map(|g| confusion[g][c]).sum::<usize>();
    let support = |c: usize| confusion[c].iter().sum::<usize>() + missed[c];
    let scored: Vec<Label> = Label::ALL.into_iter().filter(|l| support(l.index()) + predicted(l.index()) > 0).collect();
    let mut per_class = std::collections::BTreeMap::new();
    let (mut macro_sum, mut weighted) = (0.0, 0.0);
    for &label in &scored {
        let c = label.index();
        let tp = confusion[c][c];
        let precision = ratio(tp, predicted(c));
        let recall = ratio(tp, support(c));
        let f1 = if precision + recall == 0.0 { 0.0 } else { 2.0 * precision * recall / (precision + recall) };
        macro_sum += f1;
        weighted += f1 * support(c) as f64;
        per_class.insert(label.name().to_string(), ClassScores { precision, recall, f1, support: support(c) });
    }
    let correct: usize = (0..N).map(|c| confusion[c][c]).sum();
    VerifyScores {
        accuracy: ratio(correct, pairs.len()),
        macro_f1: if scored.is_empty() { 0.0 } else { macro_sum / scored.len() as f64 },
        weighted_f1: if pairs.is_empty() { 0.0 } else { weighted / pairs.len() as f64 },
        per_class,
        labels: scored.iter().map(|l| l.name().to_string()).collect(),
        confusion: scored.iter().map(|g| scored.iter().map(|p| confusion[g.index()][p.index()]).collect()).collect(),
        examples: pairs.len(),
        failed: missed.iter().sum(),
    }
}

/// How the not-enough-info claims of one [`NeiCategory`] were judged.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct CategoryScores {
    /// Gold claims of the category.
    pub claims: usize,
    /// Share predicted Not Enough Info (the category's recall).
    pub recall: f64,
    /// Predictions by label name; failed runs under "failed".
    pub predicted: std::collections::BTreeMap<String, usize>,
}

/// Per not-enough-info category (ClaimDB's out-of-schema, counterfactual, subjective), for the
/// gold claims that carry one.
pub fn nei_categories(items: &[(Gold, Option<Label>)]) -> std::collections::BTreeMap<NeiCategory, CategoryScores> {
    let mut out: std::collections::BTreeMap<NeiCategory, CategoryScores> = std::collections::BTreeMap::new();
    for (gold, predicted) in items {
        let Some(category) = gold.category else { continue };
        let scores = out.entry(category).or_default();
        scores.claims += 1;
        *scores.predicted.entry(predicted.map_or("failed", Label::name).to_string()).or_default() += 1;
    }
    for scores in out.values_mut() {
        scores.recall = scores.predicted.get(Label::NotEnoughInfo.name()).copied().unwrap_or(0) as f64 / scores.claims as f64;
    }
    out
}

/// Tool calls per claim, over the predictions that record them (the database agent's).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ToolCallStats {
    /// Predictions with a count.
    pub claims: usize,
    /// Mean calls per claim.
    pub mean: f64,
    /// Most calls for one claim.
    pub max: usize,
    /// Calls in all.
    pub total: usize,
}

impl ToolCallStats {
    /// The figures for `counts`, or none when there are none.
    pub fn of(counts: impl Iterator<Item = usize>) -> Option<ToolCallStats> {
        let counts: Vec<usize> = counts.collect();
        let total: usize = counts.iter().sum();
        (!counts.is_empty()).then(|| ToolCallStats { claims: counts.len(), mean: total as f64 / counts.len() as f64, max: counts.iter().copied().max().unwrap_or(0), total })
    }
}

/// Macro-F1 on each of `folds` contiguous folds of `outcomes` (in the given order; `None` a failed
/// run, as [`score_outcomes`] counts it): the per-fold
/// figures a paired t-test between two systems compares, as the QuanTemp++ significance marks are
/// computed.
pub fn fold_macro_f1(outcomes: &[(Label, Option<Label>)], folds: usize) -> Vec<f64> {
    fold_scores(outcomes, folds).into_iter().map(|s| s.macro_f1).collect()
}

/// The scores of each of `folds` contiguous folds of `outcomes` (fold `f` holds items
/// `f·n/folds .. (f+1)·n/folds`), for paired tests on any of their figures.
pub fn fold_scores(outcomes: &[(Label, Option<Label>)], folds: usize) -> Vec<VerifyScores> {
    let n = outcomes.len();
    (0..folds).map(|f| score_outcomes(&outcomes[f * n / folds..(f + 1) * n / folds])).collect()
}

/// How predictions cover the gold claims ([`match_predictions`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Coverage {
    /// Gold claims.
    pub gold: usize,
    /// Gold claims with a prediction.
    pub predicted: usize,
    /// Gold claims without one.
    pub missing: usize,
    /// Predictions for claims without a gold label.
    pub extra: usize,
}

/// A gold claim and its prediction ([`match_predictions`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Judged {
    /// The claim's id.
    pub id: String,
    /// Its gold label.
    pub gold: Gold,
    /// The predicted label; none for a failed run (scored wrong).
    pub predicted: Option<Label>,
    /// The prediction.
    pub prediction: Prediction,
}

/// Pairs each prediction with its gold claim, in id order (numerically when the ids are numbers, so
/// folds cut the same claims from any file). A claim predicted twice is an error; without
/// `allow_missing`, so is a gold claim without a prediction or a prediction without a gold claim
/// (with it, they are left out and counted in the [`Coverage`]); none matched at all always is.
/// `source_name` names the predictions in errors.
pub fn match_predictions(gold: &HashMap<String, Gold>, predictions: Vec<Prediction>, allow_missing: bool, source_name: &str) -> Result<(Vec<Judged>, Coverage)> {
    let unmatched = |problem| Error::Unmatched { source_name: source_name.to_string(), problem };
    let mut out = Vec::with_capacity(predictions.len());
    let mut seen = HashSet::new();
    let mut extra = Vec::new();
    for p in predictions {
        if !seen.insert(p.id.clone()) {
            return Err(unmatched(Unmatched::Twice { id: p.id }));
        }
        let Some(g) = gold.get(&p.id) else {
            extra.push(p.id);
            continue;
        };
        let predicted = if p.failure.is_some() { None } else { Some(p.label) };
        out.push(Judged { id: p.id.clone(), gold: *g, predicted, prediction: p });
    }
    let missing: Vec<&String> = gold.keys().filter(|id| !seen.contains(*id)).collect();
    let coverage = Coverage { gold: gold.len(), predicted: out.len(), missing: missing.len(), extra: extra.len() };
    if !allow_missing {
        if let Some(first) = missing.iter().min() {
            return Err(unmatched(Unmatched::Missing { missing: coverage.missing, gold: coverage.gold, first: first.to_string() }));
        }
        if let Some(first) = extra.first() {
            return Err(unmatched(Unmatched::Extra { extra: coverage.extra, first: first.clone() }));
        }
    }
    if out.is_empty() {
        return Err(unmatched(Unmatched::Nothing));
    }
    out.sort_by(|a, b| match (a.id.parse::<u64>(), b.id.parse::<u64>()) {
        (Ok(x), Ok(y)) => x.cmp(&y),
        _ => a.id.cmp(&b.id),
    });
    Ok((out, coverage))
}

#[cfg(test)]
mod tests {
    use super::*;
    use Label::*;

    #[test]
    fn by_hand() {
        let pairs = [(True, True), (True, False), (False, False), (False, False), (Conflicting, False)];
        let s = score(&pairs);
        assert_eq!(s.accuracy, 0.6);
        assert_eq!(s.per_class["True"].f1, 2.0 * 1.0 * 0.5 / 1.5);
        // False: P = 2/4, R = 2/2.
        assert!((s.per_class["False"].f1 - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(s.per_class["Conflicting"].f1, 0.0);
        assert!((s.macro_f1 - (2.0 / 3.0 + 2.0 / 3.0 + 0.0) / 3.0).abs() < 1e-12);
        assert_eq!(s.confusion[Conflicting.index()][False.index()], 1);
        assert_eq!(s.labels, ["True", "False", "Conflicting"]);
    }

    #[test]
    fn categories_and_tool_calls() {
        let gold = |category| Gold { label: NotEnoughInfo, category: Some(category) };
        let items = [(gold(NeiCategory::Subjective), Some(NotEnoughInfo)), (gold(NeiCategory::Subjective), Some(True)), (gold(NeiCategory::OutOfSchema), None), (Gold { label: True, category: None }, Some(True))];
        let by = nei_categories(&items);
        assert_eq!(by.len(), 2);
        assert_eq!(by[&NeiCategory::Subjective].recall, 0.5);
        assert_eq!(by[&NeiCategory::OutOfSchema].predicted["failed"], 1);
        let stats = ToolCallStats::of([3, 20, 1].into_iter()).unwrap();
        assert_eq!((stats.claims, stats.max, stats.total), (3, 20, 24));
        assert_eq!(stats.mean, 8.0);
        assert!(ToolCallStats::of(std::iter::empty()).is_none());
    }

    #[test]
    fn failed_runs_are_misses() {
        // Gold NEI twice: once predicted NEI, once failed; gold True once, predicted NEI.
        let s = score_outcomes(&[(NotEnoughInfo, Some(NotEnoughInfo)), (NotEnoughInfo, None), (True, Some(NotEnoughInfo))]);
        assert_eq!(s.failed, 1);
        assert_eq!(s.labels, ["True", "Not Enough Info"]);
        assert!((s.accuracy - 1.0 / 3.0).abs() < 1e-12);
        // NEI: P = 1/2, R = 1/2 (the failure is a miss); True: P = 0 (never predicted), R = 0.
        assert_eq!(s.per_class["Not Enough Info"].precision, 0.5);
        assert_eq!(s.per_class["Not Enough Info"].recall, 0.5);
        assert_eq!(s.per_class["Not Enough Info"].support, 2);
        assert_eq!(s.confusion, [[0, 1], [0, 1]]);
    }

    #[test]
    fn predictions_are_matched_one_for_one_in_id_order() {
        let gold: HashMap<String, Gold> = ["10", "9", "x"].iter().map(|id| (id.to_string(), Gold { label: Label::True, category: None })).collect();
        let p = |id: &str| Prediction::verdict(id, Label::False, 0.5, Vec::new());
        let (judged, coverage) = match_predictions(&gold, vec![p("x"), p("10"), p("9")], false, "p").unwrap();
        assert_eq!(judged.iter().map(|j| j.id.as_str()).collect::<Vec<_>>(), ["9", "10", "x"]);
        assert_eq!(coverage, Coverage { gold: 3, predicted: 3, missing: 0, extra: 0 });
        let unmatched = |r: Result<(Vec<Judged>, Coverage)>| match r {
            Err(Error::Unmatched { problem, .. }) => problem,
            other => panic!("{other:?}"),
        };
        assert_eq!(unmatched(match_predictions(&gold, vec![p("9")], false, "p")), Unmatched::Missing { missing: 2, gold: 3, first: "10".into() });
        assert_eq!(unmatched(match_predictions(&gold, vec![p("9"), p("10"), p("x"), p("y")], false, "p")), Unmatched::Extra { extra: 1, first: "y".into() });
        assert_eq!(unmatched(match_predictions(&gold, vec![p("9"), p("9")], true, "p")), Unmatched::Twice { id: "9".into() });
        assert_eq!(unmatched(match_predictions(&gold, vec![p("y")], true, "p")), Unmatched::Nothing);
        let (judged, coverage) = match_predictions(&gold, vec![p("9"), p("y")], true, "p").unwrap();
        assert_eq!((judged.len(), coverage), (1, Coverage { gold: 3, predicted: 1, missing: 2, extra: 1 }));
    }
}
