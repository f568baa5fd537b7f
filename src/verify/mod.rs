//! Verification: a claim and its top-k evidence into a verdict, and the verdicts scored.
//!
//! In: [`VerifyExample`]s (claim, evidence texts, gold label when known). Out: [`Prediction`]s
//! (label, confidence, the evidence used) and [`VerifyScores`] (accuracy, per-class precision /
//! recall / F1, macro- and weighted-F1, confusion matrix — scikit-learn's definitions).
//!
//! Labels ([`Label`]) are QuanTemp's three classes — "Half True/False", "half-true", "mixture" and
//! "conflicting" are one class, `Conflicting` — and a fourth, `NotEnoughInfo`, for tasks that score
//! abstention as a class of its own (ClaimDB's not-enough-info).
//!
//! ## Parts
//! This file, `data.rs` and `scores.rs` are verification's vocabulary — labels, examples,
//! predictions, gold, scores, and the reading of a verdict out of a model's answer — and use none
//! of the parts below. The parts are stacked: each uses only the vocabulary and the parts before it
//! in this order — [`evidence`], [`model`], [`nli`], [`llm`], [`agent`], [`pipeline`], [`plot`]
//! (`tests/integration/layering.rs` fails on an import against this order).
//! - [`evidence`]: evidence that is not plain text — tables in the texts (HTML, JSON, Markdown) and
//!   SQLite databases.
//! - [`model`]: quantir's own trained verifier, the one that works out of the box: a linear model
//!   over character n-grams of claim and evidence (and, on request, dense-encoder and
//!   numeric-consistency features), its calibration and its abstention; and the per-evidence
//!   stance model, whose verdict is aggregated from each text's stance.
//! - [`nli`] runs a sequence-classification ONNX model; [`llm`] asks an OpenAI-compatible chat
//!   API (through [`crate::llm`]); [`agent`] lets such a model query a database.
//! - [`pipeline`] turns a verifier spec into a verifier and a run's evidence into verdicts, with
//!   abstention and the claim's quantities compared with the evidence's
//!   ([`crate::analysis::quantity`]).
//! - [`plot`] draws reliability diagrams and coverage curves.

mod data;
mod scores;

pub mod evidence;
pub mod model;
pub mod nli;
pub mod llm;
#[cfg(feature = "sqlite")]
pub mod agent;
pub mod pipeline;
#[cfg(feature = "plots")]
pub mod plot;

pub use data::{read_evidence, read_examples, read_gold, read_predictions, read_stance_claims, Abstention, Gold, NeiCategory, Prediction, StanceClaim, VerifyExample};
pub use scores::{fold_macro_f1, fold_scores, match_predictions, nei_categories, score, score_outcomes, CategoryScores, ClassScores, Coverage, Judged, ToolCallStats, VerifyScores};

/// What one evidence text says of a claim: the per-evidence judgement a verdict is aggregated
/// from (`model::stance`), and CLIMATE-FEVER's sentence labels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stance {
    /// The text supports the claim.
    Supports,
    /// The text refutes it.
    Refutes,
    /// The text does not bear on it (CLIMATE-FEVER's NOT_ENOUGH_INFO).
    DoesNotBear,
}

impl Stance {
    /// Every stance, in the order of a stance model's probabilities.
    pub const ALL: [Stance; 3] = [Stance::Supports, Stance::Refutes, Stance::DoesNotBear];

    /// Reads a stance as datasets spell it (case-insensitive): CLIMATE-FEVER's SUPPORTS, REFUTES,
    /// NOT_ENOUGH_INFO, and NLI's entailment, contradiction, neutral.
    pub fn parse(text: &str) -> Option<Stance> {
        match text.trim().to_lowercase().as_str() {
            "supports" | "support" | "entailment" | "entails" => Some(Stance::Supports),
            "refutes" | "refute" | "contradiction" | "contradicts" => Some(Stance::Refutes),
            "not_enough_info" | "not enough info" | "neutral" | "does_not_bear" | "does not bear" => Some(Stance::DoesNotBear),
            _ => None,
        }
    }

    /// The position in [`Stance::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The name printed and shown on a card.
    pub fn name(self) -> &'static str {
        match self {
            Stance::Supports => "supports",
            Stance::Refutes => "refutes",
            Stance::DoesNotBear => "does not bear",
        }
    }

    /// The verdict this text alone would give (supports: True, refutes: False, does not bear:
    /// Not Enough Info): how stances are scored with [`score`].
    pub fn verdict(self) -> Label {
        match self {
            Stance::Supports => Label::True,
            Stance::Refutes => Label::False,
            Stance::DoesNotBear => Label::NotEnoughInfo,
        }
    }
}

/// One evidence text's stance on a claim, with the model's probabilities.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct EvidenceStance {
    /// The most probable stance.
    pub stance: Stance,
    /// Its probability.
    pub probability: f64,
    /// The probability that the text supports the claim.
    pub supports: f64,
    /// That it refutes it.
    pub refutes: f64,
    /// That it does not bear on it.
    pub does_not_bear: f64,
}

/// A verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub enum Label {
    /// The claim holds (also "supported", "entailed", CoverBench's "Correct").
    True,
    /// The claim does not hold (also "refuted", "contradicted", CoverBench's "Incorrect").
    False,
    /// Partly true, partly false, or disputed ("Half True/False" in QuanTemp).
    Conflicting,
    /// The evidence does not decide the claim (ClaimDB's not-enough-info; "cannot be verified").
    #[serde(rename = "Not Enough Info")]
    NotEnoughInfo,
}

impl Label {
    /// Every label, in the order of confusion matrices and of [`Label::index`].
    pub const ALL: [Label; 4] = [Label::True, Label::False, Label::Conflicting, Label::NotEnoughInfo];

    /// QuanTemp's three classes: what quantir's trained verifier learns and outputs, in
    /// [`Label::index`] order.
    pub const VERDICTS: [Label; 3] = [Label::True, Label::False, Label::Conflicting];

    /// Reads a label in any of the spellings datasets use (case-insensitive).
    pub fn parse(text: &str) -> Option<Label> {
        match text.trim().to_lowercase().as_str() {
            "true" | "supported" | "supports" | "entailment" | "entailed" | "correct" => Some(Label::True),
            "false" | "refuted" | "refutes" | "contradiction" | "contradicted" | "incorrect" => Some(Label::False),
            "half true/false" | "half-true" | "half true" | "conflicting" | "disputed" | "mixture" | "mixed" | "neutral" => Some(Label::Conflicting),
            "not enough info" | "not-enough-info" | "not_enough_info" | "not enough information" | "notenoughinfo" | "nei" | "cannot be verified" => Some(Label::NotEnoughInfo),
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
            Label::NotEnoughInfo => "Not Enough Info",
        }
    }
}

/// The verdicts a task allows (`--labels`): QuanTemp's three by default; two for a binary task
/// such as CoverBench's (True / False, where "cannot be verified" counts as False); ClaimDB's
/// true,false,not-enough-info.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LabelSet([bool; 4]);

impl Default for LabelSet {
    fn default() -> Self {
        LabelSet([true, true, true, false])
    }
}

/// A label set serialises as the list of its labels' names.
impl serde::Serialize for LabelSet {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.collect_seq(self.labels().into_iter().map(Label::name))
    }
}

impl LabelSet {
    /// Reads a comma-separated list of at least two labels, in any spelling [`Label::parse`] takes.
    pub fn parse(list: &str) -> std::result::Result<LabelSet, String> {
        let mut allowed = [false; 4];
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let label = Label::parse(name).ok_or_else(|| format!("unknown label {name:?}; expected true, false, conflicting or not-enough-info"))?;
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

    /// The verdict when there is nothing to judge by (no evidence, no parsable answer, an answer
    /// the task does not allow): Not Enough Info when allowed, else Conflicting when allowed (it
    /// stands for "not enough info" in QuanTemp's three classes), else False (CoverBench counts
    /// "cannot be verified" as Incorrect).
    pub fn fallback(self) -> Label {
        [Label::NotEnoughInfo, Label::Conflicting].into_iter().find(|&l| self.contains(l)).unwrap_or(Label::False)
    }

    /// The most probable allowed verdict for class probabilities `p` (`p[i]` for the label of
    /// [`Label::index`] `i`; labels past the end have probability 0), with its probability
    /// renormalised over the allowed labels; ties go to the earlier label.
    pub fn pick(self, p: &[f64]) -> (Label, f64) {
        let prob = |l: Label| p.get(l.index()).copied().unwrap_or(0.0);
        let allowed = self.labels();
        let best = allowed.iter().copied().fold(allowed[0], |b, l| if prob(l) > prob(b) { l } else { b });
        let total: f64 = allowed.iter().map(|&l| prob(l)).sum();
        (best, if total > 0.0 { prob(best) / total } else { 0.0 })
    }
}

/// The file a stance model is saved in (`model::stance`), which names its folder as one.
pub const STANCE_FILE: &str = "stance.json";

/// The file a trained verifier is saved in (`model::trained`), which names its folder as one.
pub const VERIFIER_FILE: &str = "verifier.json";

/// Which verifier (`--verifier`), parsed once from `trained:DIR`, `stance:DIR`, `onnx:DIR` or
/// `llm:MODEL`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum VerifierSpec {
    /// quantir's trained verifier, from `quantir train-verifier`.
    Trained(std::path::PathBuf),
    /// Per-evidence stances aggregated into a verdict, from `quantir train-stance`
    /// ([`model::stance`]).
    Stance(std::path::PathBuf),
    /// A sequence-classification ONNX model with `quantir-verifier.json` ([`nli`]).
    Onnx(std::path::PathBuf),
    /// An OpenAI-compatible chat model ([`llm`]; with a database, [`agent`]).
    Llm(String),
}

impl std::str::FromStr for VerifierSpec {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        let (kind, value) = s.split_once(':').unwrap_or((s, ""));
        match (kind, value.is_empty()) {
            ("trained", false) => Ok(VerifierSpec::Trained(value.into())),
            ("stance", false) => Ok(VerifierSpec::Stance(value.into())),
            ("onnx", false) => Ok(VerifierSpec::Onnx(value.into())),
            ("llm", false) => Ok(VerifierSpec::Llm(value.into())),
            _ => Err(format!("unknown verifier {s:?}: use trained:DIR, stance:DIR, onnx:DIR or llm:MODEL")),
        }
    }
}

impl VerifierSpec {
    /// `spec` as written (`trained:DIR`, `stance:DIR`, `onnx:DIR`, `llm:MODEL`) or, failing that,
    /// a bare folder holding a trained verifier (`verifier.json`), a stance model (`stance.json`)
    /// or an ONNX one (`quantir-verifier.json`), as Python's `Verifier.load` takes it.
    pub fn parse_or_folder(spec: &str) -> std::result::Result<VerifierSpec, String> {
        spec.parse().or_else(|e| {
            let folder = std::path::Path::new(spec);
            if folder.join(VERIFIER_FILE).is_file() {
                Ok(VerifierSpec::Trained(spec.into()))
            } else if folder.join(STANCE_FILE).is_file() {
                Ok(VerifierSpec::Stance(spec.into()))
            } else if folder.join("quantir-verifier.json").is_file() {
                Ok(VerifierSpec::Onnx(spec.into()))
            } else {
                Err(format!("{e}, or a folder holding verifier.json, stance.json or quantir-verifier.json"))
            }
        })
    }
}

/// The verdict in an answer, if it has one.
pub fn parse_verdict(answer: &str) -> Option<(Label, f64)> {
    let unfenced = crate::llm::unfenced(answer);
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(unfenced) {
        let label = Label::parse(v.get("label")?.as_str()?)?;
        let confidence = v.get("confidence").and_then(|c| c.as_f64()).filter(|c| (0.0..=1.0).contains(c)).unwrap_or(1.0);
        return Some((label, confidence));
    }
    let word = unfenced.trim_end_matches(['.', '!']);
    Label::parse(word).map(|l| (l, 1.0))
}

/// The verdict in `answer` if `labels` allow it. An answer of "not enough info" ("cannot be
/// verified") where the task has no such label is the task's [`LabelSet::fallback`] — False for a
/// binary task, as CoverBench counts "cannot be verified" as Incorrect.
pub fn allowed_verdict(answer: &str, labels: LabelSet) -> Option<(Label, f64)> {
    let (label, confidence) = parse_verdict(answer)?;
    if labels.contains(label) {
        Some((label, confidence))
    } else if label == Label::NotEnoughInfo {
        Some((labels.fallback(), confidence))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verifier_is_named_by_its_spec_or_its_folder() {
        let dir = tempfile::tempdir().unwrap();
        let (trained, stance, onnx) = (dir.path().join("trained"), dir.path().join("stance"), dir.path().join("onnx"));
        for (folder, file) in [(&trained, VERIFIER_FILE), (&stance, STANCE_FILE), (&onnx, "quantir-verifier.json")] {
            std::fs::create_dir(folder).unwrap();
            std::fs::write(folder.join(file), "{}").unwrap();
        }
        let text = |p: &std::path::Path| p.to_str().unwrap().to_string();
        assert_eq!(VerifierSpec::parse_or_folder(&text(&trained)), Ok(VerifierSpec::Trained(trained.clone())));
        assert_eq!(VerifierSpec::parse_or_folder(&text(&stance)), Ok(VerifierSpec::Stance(stance.clone())));
        assert_eq!(VerifierSpec::parse_or_folder(&text(&onnx)), Ok(VerifierSpec::Onnx(onnx.clone())));
        assert_eq!(VerifierSpec::parse_or_folder(&format!("stance:{}", text(&onnx))), Ok(VerifierSpec::Stance(onnx.clone())));
        assert_eq!(VerifierSpec::parse_or_folder("llm:gpt-4o"), Ok(VerifierSpec::Llm("gpt-4o".into())));
        // The prefix wins over what a folder holds; a folder with neither file is refused.
        assert_eq!(VerifierSpec::parse_or_folder(&format!("onnx:{}", text(&trained))), Ok(VerifierSpec::Onnx(trained.clone())));
        let refused = VerifierSpec::parse_or_folder(&text(dir.path())).unwrap_err();
        assert!(refused.contains("unknown verifier") && refused.contains("a folder holding verifier.json"), "{refused}");
    }

    #[test]
    fn verdicts_in_every_shape() {
        assert_eq!(parse_verdict(r#"{"label": "False", "confidence": 0.8}"#), Some((Label::False, 0.8)));
        assert_eq!(parse_verdict("```json\n{\"label\": \"half true\"}\n```"), Some((Label::Conflicting, 1.0)));
        assert_eq!(parse_verdict("True."), Some((Label::True, 1.0)));
        assert_eq!(parse_verdict("I think it is probably false"), None);
        assert_eq!(parse_verdict(r#"{"label": "maybe"}"#), None);
    }

    #[test]
    fn cannot_be_verified_is_false_in_a_binary_task() {
        let binary = LabelSet::parse("true,false").unwrap();
        assert_eq!(allowed_verdict(r#"{"label": "cannot be verified", "confidence": 0.6}"#, binary), Some((Label::False, 0.6)));
        assert_eq!(allowed_verdict("Conflicting", binary), None, "a label the task lacks is re-asked");
    }

    #[test]
    fn verifier_specs() {
        assert_eq!("trained:verifiers/q".parse::<VerifierSpec>(), Ok(VerifierSpec::Trained("verifiers/q".into())));
        assert_eq!("llm:gpt-4o".parse::<VerifierSpec>(), Ok(VerifierSpec::Llm("gpt-4o".into())));
        assert!("bert:x".parse::<VerifierSpec>().unwrap_err().contains("unknown verifier \"bert:x\""));
        assert!("llm:".parse::<VerifierSpec>().is_err());
    }

    #[test]
    fn spellings() {
        assert_eq!(Label::parse("Half True/False"), Some(Label::Conflicting));
        assert_eq!(Label::parse(" FALSE "), Some(Label::False));
        assert_eq!(Label::parse("maybe"), None);
        assert_eq!(Label::parse("NOT ENOUGH INFO"), Some(Label::NotEnoughInfo));
        assert_eq!(Label::parse("Entailed"), Some(Label::True));
        assert_eq!(Label::parse("incorrect"), Some(Label::False));
    }

    #[test]
    fn label_sets_pick_among_the_allowed() {
        let binary = LabelSet::parse("true,false").unwrap();
        let (label, confidence) = binary.pick(&[0.2, 0.3, 0.5]);
        assert_eq!(label, Label::False);
        assert!((confidence - 0.6).abs() < 1e-12);
        assert_eq!(LabelSet::default().pick(&[0.2, 0.3, 0.5]), (Label::Conflicting, 0.5));
        assert_eq!(binary.fallback(), Label::False);
        assert_eq!(LabelSet::default().fallback(), Label::Conflicting);
        let claimdb = LabelSet::parse("entailed,contradicted,not-enough-info").unwrap();
        assert_eq!(claimdb.fallback(), Label::NotEnoughInfo);
        // A model without a Not Enough Info class never picks it.
        assert_eq!(claimdb.pick(&[0.2, 0.1, 0.7]).0, Label::True);
        assert!(LabelSet::parse("true").is_err());
        assert!(LabelSet::parse("true,maybe").unwrap_err().contains("unknown label \"maybe\""));
    }
}
