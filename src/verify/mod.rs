//! Verification: a claim and its top-k evidence into a verdict, and the verdicts scored.
//!
//! In: [`VerifyExample`]s (claim, evidence texts, gold label when known). Out: [`Prediction`]s
//! (label, confidence, the evidence used) and [`VerifyScores`] (accuracy, per-class precision /
//! recall / F1, macro- and weighted-F1, confusion matrix — scikit-learn's definitions).
//!
//! Labels ([`Label`]) are QuanTemp's three classes; "Half True/False", "half-true", "mixture" and
//! "conflicting" are one class, `Conflicting`. The verifier that works out of the box is
//! [`trained`]: quantir's own linear model over character n-grams of claim and evidence (and, on
//! request, dense-encoder and numeric-consistency features);
//! [`llm`] asks an OpenAI-compatible chat API; [`nli`] runs a sequence-classification ONNX model.

mod data;
mod features;
mod linear;
pub mod llm;
pub mod nli;
mod scores;
pub mod text;
pub mod trained;

pub use data::{read_evidence, read_examples, read_gold, read_predictions, Prediction, VerifyExample};
pub use scores::{fold_macro_f1, score, ClassScores, VerifyScores};

/// A verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub enum Label {
    /// The claim holds.
    True,
    /// The claim does not hold.
    False,
    /// Partly true, partly false, or disputed ("Half True/False" in QuanTemp).
    Conflicting,
}

impl Label {
    /// The three labels, in the order of confusion matrices and model outputs.
    pub const ALL: [Label; 3] = [Label::True, Label::False, Label::Conflicting];

    /// Reads a label in any of the spellings datasets use (case-insensitive).
    pub fn parse(text: &str) -> Option<Label> {
        match text.trim().to_lowercase().as_str() {
            "true" | "supported" | "supports" | "entailment" => Some(Label::True),
            "false" | "refuted" | "refutes" | "contradiction" => Some(Label::False),
            "half true/false" | "half-true" | "half true" | "conflicting" | "mixture" | "mixed" | "neutral" | "not enough info" | "not-enough-info" | "not_enough_info" | "nei" => Some(Label::Conflicting),
            _ => None,
        }
    }

    /// The position in [`Label::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The name printed and written.
    pub fn name(self) -> &'static str {
        match self {
            Label::True => "True",
            Label::False => "False",
            Label::Conflicting => "Conflicting",
        }
    }
}

/// The verdicts a task allows (`--labels`): all three by default, two for a binary task such as
/// CoverBench's (True / False), where `Conflicting` also stands for "not enough info".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LabelSet([bool; 3]);

impl Default for LabelSet {
    fn default() -> Self {
        LabelSet([true; 3])
    }
}

impl LabelSet {
    /// Reads a comma-separated list of at least two labels, in any spelling [`Label::parse`] takes.
    pub fn parse(list: &str) -> std::result::Result<LabelSet, String> {
        let mut allowed = [false; 3];
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let label = Label::parse(name).ok_or_else(|| format!("unknown label {name:?}; expected true, false or conflicting (or not-enough-info)"))?;
            allowed[label.index()] = true;
        }
        if allowed.iter().filter(|&&a| a).count() < 2 {
            return Err(format!("{list:?} allows fewer than two labels"));
        }
        Ok(LabelSet(allowed))
    }

    /// Whether `label` is allowed.
    pub fn contains(self, label: Label) -> bool {
        self.0[label.index()]
    }

    /// The allowed labels, in [`Label::ALL`] order.
    pub fn labels(self) -> Vec<Label> {
        Label::ALL.into_iter().filter(|&l| self.contains(l)).collect()
    }

    /// The verdict when there is nothing to judge by (no evidence, no parsable answer):
    /// Conflicting when allowed (it doubles as "not enough info"), otherwise False.
    pub fn fallback(self) -> Label {
        if self.contains(Label::Conflicting) {
            Label::Conflicting
        } else {
            Label::False
        }
    }

    /// The most probable allowed verdict for class probabilities `p` (in [`Label::ALL`] order),
    /// with its probability renormalised over the allowed labels; ties go to the earlier label.
    pub fn pick(self, p: [f64; 3]) -> (Label, f64) {
        let allowed = self.labels();
        let best = allowed.iter().copied().fold(allowed[0], |b, l| if p[l.index()] > p[b.index()] { l } else { b });
        let total: f64 = allowed.iter().map(|l| p[l.index()]).sum();
        (best, if total > 0.0 { p[best.index()] / total } else { 0.0 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings() {
        assert_eq!(Label::parse("Half True/False"), Some(Label::Conflicting));
        assert_eq!(Label::parse(" FALSE "), Some(Label::False));
        assert_eq!(Label::parse("maybe"), None);
        assert_eq!(Label::parse("NOT ENOUGH INFO"), Some(Label::Conflicting));
    }

    #[test]
    fn label_sets_pick_among_the_allowed() {
        let binary = LabelSet::parse("true,false").unwrap();
        let (label, confidence) = binary.pick([0.2, 0.3, 0.5]);
        assert_eq!(label, Label::False);
        assert!((confidence - 0.6).abs() < 1e-12);
        assert_eq!(LabelSet::default().pick([0.2, 0.3, 0.5]), (Label::Conflicting, 0.5));
        assert!(LabelSet::parse("true").is_err());
        assert!(LabelSet::parse("true,maybe").unwrap_err().contains("unknown label \"maybe\""));
    }
}
