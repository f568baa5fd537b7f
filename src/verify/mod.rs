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

pub use data::{read_examples, read_gold, read_predictions, Prediction, VerifyExample};
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
            "half true/false" | "half-true" | "half true" | "conflicting" | "mixture" | "mixed" | "neutral" => Some(Label::Conflicting),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings() {
        assert_eq!(Label::parse("Half True/False"), Some(Label::Conflicting));
        assert_eq!(Label::parse(" FALSE "), Some(Label::False));
        assert_eq!(Label::parse("maybe"), None);
    }
}
