//! Scoring verdicts as scikit-learn does (`accuracy_score`, `precision_recall_fscore_support`,
//! `f1_score(average="macro"|"weighted")`, `confusion_matrix`).
//!
//! Per class c: precision = TP / (TP + FP), recall = TP / (TP + FN), F1 = 2PR / (P + R), each 0
//! when its denominator is 0 (scikit-learn's `zero_division=0`). Macro-F1 is the mean over the
//! classes present in the gold labels or the predictions; weighted-F1 weighs each class's F1 by
//! its gold support. The confusion matrix has gold rows and predicted columns, in [`Label::ALL`]
//! order.

use super::Label;

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
    /// Mean F1 over the classes that occur.
    pub macro_f1: f64,
    /// F1 weighted by gold support.
    pub weighted_f1: f64,
    /// Per class, by name.
    pub per_class: std::collections::BTreeMap<String, ClassScores>,
    /// Gold rows × predicted columns, in True, False, Conflicting order.
    pub confusion: [[usize; 3]; 3],
    /// Examples scored.
    pub examples: usize,
}

/// Scores `(gold, predicted)` pairs.
pub fn score(pairs: &[(Label, Label)]) -> VerifyScores {
    let mut confusion = [[0usize; 3]; 3];
    for &(g, p) in pairs {
        confusion[g.index()][p.index()] += 1;
    }
    let ratio = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    let mut per_class = std::collections::BTreeMap::new();
    let (mut macro_sum, mut present, mut weighted) = (0.0, 0, 0.0);
    for label in Label::ALL {
        let c = label.index();
        let tp = confusion[c][c];
        let predicted: usize = (0..3).map(|g| confusion[g][c]).sum();
        let support: usize = confusion[c].iter().sum();
        let precision = ratio(tp, predicted);
        let recall = ratio(tp, support);
        let f1 = if precision + recall == 0.0 { 0.0 } else { 2.0 * precision * recall / (precision + recall) };
        if support + predicted > 0 {
            macro_sum += f1;
            present += 1;
        }
        weighted += f1 * support as f64;
        per_class.insert(label.name().to_string(), ClassScores { precision, recall, f1, support });
    }
    let correct: usize = (0..3).map(|c| confusion[c][c]).sum();
    VerifyScores {
        accuracy: ratio(correct, pairs.len()),
        macro_f1: if present == 0 { 0.0 } else { macro_sum / present as f64 },
        weighted_f1: if pairs.is_empty() { 0.0 } else { weighted / pairs.len() as f64 },
        per_class,
        confusion,
        examples: pairs.len(),
    }
}

/// Macro-F1 on each of `folds` contiguous folds of `pairs` (in the given order): the per-fold
/// figures a paired t-test between two systems compares, as the QuanTemp++ significance marks are
/// computed.
pub fn fold_macro_f1(pairs: &[(Label, Label)], folds: usize) -> Vec<f64> {
    let n = pairs.len();
    (0..folds).map(|f| score(&pairs[f * n / folds..(f + 1) * n / folds]).macro_f1).collect()
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
    }
}
