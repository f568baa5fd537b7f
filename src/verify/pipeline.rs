//! One verification pipeline, used by `quantir verify`, `POST /api/verify` and
//! `quantir.Verifier`: evidence → verifier → abstention → the numbers side by side.
//!
//! - **Evidence**: each claim's evidence texts, from a run and its index ([`examples_from_run`]),
//!   given with the claims, or (in the server) its own search's hits; the pipeline reads the first
//!   [`Pipeline::top`] of them, whatever the caller passes.
//! - **Verifier** ([`Verifier`], opened from a [`VerifierSpec`]): trained, stance, ONNX or LLM. A
//!   stance or ONNX verifier also gives each text read its stance (`Prediction::stances`; in the
//!   server, each hit read its `stance`).
//! - **Abstention** (`abstain.rs`), when on: relevance from the claim and the texts read, and the
//!   verdict's confidence (calibrated for a trained verifier with a temperature; as given by the
//!   others), against the rule's thresholds. A trained verifier's folder carries its rule
//!   (`abstention.json`, from `quantir train-verifier`); another verifier borrows one by path.
//! - **Comparisons** (`quantity.rs`): the claim's quantities beside each text's.

use std::path::{Path, PathBuf};

use super::model::abstain::AbstentionRule;
use super::llm::{ContextPolicy, LlmVerifier};
use super::nli::NliVerifier;
use crate::analysis::quantity::{compare, comparisons, quantities, Comparison};
use super::model::stance::{judged, StanceModel};
use super::model::trained::TrainedVerifier;
use super::{EvidenceStance, Label, LabelSet, Prediction, VerifierSpec, VerifyExample};
use crate::analysis::{number_spans, Analyzer, NumberSpan};
use crate::corpus::Claim;
use crate::engine::{Backend, EvidenceHit, RunRequest};
use crate::plan::SubQuery;
use crate::error::{Error, Result};
use crate::index::dense::models::{find_runtime, EncoderOptions};
use crate::index::dense::Encoder;
use crate::index::Index;
use crate::io::Progress;
use crate::llm::{ChatClient, LlmConfig};

pub use super::model::trained::ABSTENTION_FILE;

/// A loaded verifier.
pub enum Verifier {
    /// quantir's trained verifier, with its encoder when its features need one.
    Trained {
        /// The model (boxed: the other verifiers are small beside it).
        model: Box<TrainedVerifier>,
        /// Its encoder.
        encoder: Option<Encoder>,
        /// Its folder.
        dir: PathBuf,
        /// Its own abstention rule, read and checked with the model (`None`: trained without).
        rule: Option<AbstentionRule>,
    },
    /// Per-evidence stances aggregated into a verdict.
    Stance {
        /// The model.
        model: StanceModel,
        /// The encoder it was trained with.
        encoder: Encoder,
    },
    /// A sequence-classification ONNX model.
    Onnx(NliVerifier),
    /// An OpenAI-compatible chat model.
    Llm(LlmVerifier),
}

/// What opening a verifier needs besides its spec.
#[derive(Debug, Clone)]
pub struct VerifierSetup {
    /// Where a trained verifier's encoder and the ONNX Runtime are found.
    pub encoder: EncoderOptions,
    /// The folders models are looked for in.
    pub roots: Vec<PathBuf>,
    /// The chat API, for `llm:` (its model is the spec's).
    pub llm: Option<LlmConfig>,
    /// What an `llm:` verifier is sent.
    pub context: ContextPolicy,
    /// Evidence texts read per claim.
    pub top: usize,
    /// The verdicts allowed.
    pub labels: LabelSet,
}

impl Verifier {
    /// Opens the verifier `spec` names.
    pub fn open(spec: &VerifierSpec, setup: &VerifierSetup) -> Result<Verifier> {
        Ok(match spec {
            VerifierSpec::Trained(dir) => {
                let (model, rule) = TrainedVerifier::load_with_rule(dir)?;
                let encoder = match &model.encoder_dir {
                    Some(folder) => setup.encoder.encoder(Some(folder), &setup.roots)?,
                    None => None,
                };
                Verifier::Trained { model: Box::new(model), encoder, dir: dir.clone(), rule }
            }
            VerifierSpec::Stance(dir) => {
                let model = StanceModel::load(dir)?;
                let encoder = setup.encoder.encoder(Some(&model.encoder_dir), &setup.roots)?.expect("a folder was given");
                model.check_encoder(&encoder)?;
                Verifier::Stance { model, encoder }
            }
            VerifierSpec::Onnx(dir) => Verifier::Onnx(NliVerifier::open(dir, &find_runtime(setup.encoder.runtime.as_deref(), &setup.roots)?)?),
            VerifierSpec::Llm(model) => {
                let config = setup.llm.clone().ok_or_else(|| Error::InvalidArgument { name: "llm_url", message: "an llm: verifier needs the chat API's URL (--llm-url, QUANTIR_LLM_URL or llm_url=)".into() })?;
                Verifier::Llm(LlmVerifier::new(ChatClient::new(LlmConfig { model: model.clone(), ..config })?, setup.context))
            }
        })
    }

    /// `trained`, `stance`, `onnx` or `llm`.
    pub fn kind(&self) -> &'static str {
        match self {
            Verifier::Trained { .. } => "trained",
            Verifier::Stance { .. } => "stance",
            Verifier::Onnx(_) => "onnx",
            Verifier::Llm(_) => "llm",
        }
    }
}

/// Whether to abstain, and by which rule.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AbstainWith {
    /// Always give a verdict.
    #[default]
    Off,
    /// The trained verifier's own rule (`DIR/abstention.json`).
    Own,
    /// The rule in this file, or in this trained verifier's folder (its `abstention.json`, checked
    /// against the folder's record as the folder's own verifier checks it).
    Rule(PathBuf),
}

/// Evidence → verifier → abstention → comparisons (module doc).
pub struct Pipeline {
    /// The verifier.
    pub verifier: Verifier,
    /// Evidence texts read per claim.
    pub top: usize,
    /// The verdicts allowed.
    pub labels: LabelSet,
    /// The abstention rule, when abstaining.
    pub abstention: Option<AbstentionRule>,
    analyzer: Analyzer,
}

/// The refusal of a trained verifier's folder `dir` without an abstention rule.
fn no_rule(dir: &Path) -> Error {
    Error::InvalidArgument {
        name: "abstain",
        message: format!("{} has no abstention rule ({ABSTENTION_FILE})\n\nhint: retrain it with quantir train-verifier (it fits one unless --no-abstain), or give one with --abstention-rule PATH", dir.display()),
    }
}

impl Pipeline {
    /// Opens `spec` with `setup`, abstaining as `abstain` says.
    pub fn open(spec: &VerifierSpec, setup: &VerifierSetup, abstain: &AbstainWith) -> Result<Pipeline> {
        let verifier = Verifier::open(spec, setup)?;
        let abstention = Self::rule(&verifier, abstain, setup.labels)?;
        Ok(Pipeline { verifier, top: setup.top, labels: setup.labels, abstention, analyzer: Analyzer::default() })
    }

    /// The abstention rule `abstain` names for `verifier`, checked against `labels`.
    pub fn rule(verifier: &Verifier, abstain: &AbstainWith, labels: LabelSet) -> Result<Option<AbstentionRule>> {
        let abstention = match (abstain, verifier) {
            (AbstainWith::Off, _) => None,
            // Another trained verifier's folder: its rule as that folder's record vouches for it.
            (AbstainWith::Rule(path), _) if path.is_dir() => Some(TrainedVerifier::load_rule(path)?.ok_or_else(|| no_rule(path))?),
            (AbstainWith::Rule(path), _) => Some(AbstentionRule::load(path)?),
            (AbstainWith::Own, Verifier::Trained { dir, rule, .. }) => Some(rule.clone().ok_or_else(|| no_rule(dir))?),
            (AbstainWith::Own, other) => {
                return Err(Error::InvalidArgument { name: "abstain", message: format!("an {} verifier has no abstention rule of its own\n\nhint: borrow a trained verifier's: --abstention-rule verifiers/quantemp", other.kind()) })
            }
        };
        if abstention.is_some() && !labels.contains(Label::NotEnoughInfo) && labels != LabelSet::default() {
            return Err(Error::InvalidArgument { name: "labels", message: "abstaining answers Not Enough Info, which these labels leave out\n\nhint: add not-enough-info to --labels, or do not abstain".into() });
        }
        Ok(abstention)
    }

    /// Verdicts for `examples` with the pipeline's own settings (module doc).
    pub fn verify(&self, examples: &[VerifyExample], progress: &dyn Progress) -> Result<Vec<Prediction>> {
        self.verify_with(examples, self.top, self.labels, self.abstention.as_ref(), progress)
    }

    /// Verdicts for `examples`, each read from its first `top` evidence texts (a trained verifier
    /// reads at most as many as it was trained on), among `labels`, withheld by `abstention`.
    pub fn verify_with(&self, examples: &[VerifyExample], top: usize, labels: LabelSet, abstention: Option<&AbstentionRule>, progress: &dyn Progress) -> Result<Vec<Prediction>> {
        let mut predictions = self.predict_with(examples, top, labels, abstention, progress)?;
        for (p, e) in predictions.iter_mut().zip(examples) {
            p.comparisons = comparisons(&e.claim, &p.evidence);
        }
        Ok(predictions)
    }

    /// [`Pipeline::verify_with`] without the comparisons: one prediction per example, in order.
    fn predict_with(&self, examples: &[VerifyExample], top: usize, labels: LabelSet, abstention: Option<&AbstentionRule>, progress: &dyn Progress) -> Result<Vec<Prediction>> {
        crate::ranges::TOP.check(top as u64)?;
        let top = match &self.verifier {
            Verifier::Trained { model, .. } => top.min(model.top.max(1)),
            _ => top,
        };
        let trimmed: Vec<VerifyExample> = examples.iter().map(|e| VerifyExample { evidence: e.evidence.iter().take(top).cloned().collect(), ..e.clone() }).collect();
        let mut predictions = match &self.verifier {
            Verifier::Trained { model, encoder, .. } => model.predict(&trimmed, encoder.as_ref(), top, labels, progress)?,
            Verifier::Stance { model, encoder } => stance_predictions(model, encoder, &trimmed, labels, progress)?,
            Verifier::Onnx(v) => v.predict(&trimmed, labels, progress)?,
            Verifier::Llm(v) => v.predict(&trimmed, labels, progress)?,
        };
        for (p, e) in predictions.iter_mut().zip(&trimmed) {
            if let Some(rule) = abstention {
                let relevance = rule.relevance_of(&e.claim, &e.evidence, &self.analyzer);
                p.abstain(rule.decide(relevance, p.confidence), relevance);
            }
            p.evidence = e.evidence.clone();
        }
        Ok(predictions)
    }

    /// One claim end to end, as `POST /api/verify` answers it: its evidence from `backend`
    /// ([`read_evidence`], with `request`'s plan, cutoff and depth), then the verdict over the
    /// first [`Pipeline::top`] hits. The prediction's comparisons are the hits' own, for the hits
    /// read.
    pub fn verify_claim(&self, backend: &dyn Backend, claim: &Claim, request: &RunRequest<'_>) -> Result<(ReadEvidence, Prediction)> {
        let evidence = read_evidence(backend, claim, request)?;
        let texts = evidence.hits.iter().map(|h| crate::corpus::passage(&h.hit.evidence.title, &h.hit.evidence.text)).collect();
        let example = VerifyExample::new(claim.id.clone(), claim.text.clone(), texts, None);
        let mut prediction = self.predict_with(std::slice::from_ref(&example), self.top, self.labels, self.abstention.as_ref(), &crate::io::NoProgress)?.remove(0);
        prediction.comparisons = evidence.hits.iter().take(prediction.evidence.len()).flat_map(|h| h.comparisons.iter().cloned()).collect();
        let mut evidence = evidence;
        for (hit, stance) in evidence.hits.iter_mut().zip(&prediction.stances) {
            hit.stance = Some(*stance);
        }
        Ok((evidence, prediction))
    }
}

/// A stance verifier's verdicts: each text's stance, the verdict aggregated from them among
/// `labels` ([`super::model::stance::Aggregation::verdict_among`]).
fn stance_predictions(model: &StanceModel, encoder: &Encoder, examples: &[VerifyExample], labels: LabelSet, progress: &dyn Progress) -> Result<Vec<Prediction>> {
    progress.start("judging stances", Some(examples.len() as u64));
    let texts: Vec<Vec<&str>> = examples.iter().map(|e| e.evidence.iter().map(String::as_str).collect()).collect();
    let claims: Vec<(&str, &[&str])> = examples.iter().zip(&texts).map(|(e, t)| (e.claim.as_str(), t.as_slice())).collect();
    let all = model.probabilities_of(encoder, &claims)?;
    let predictions = examples
        .iter()
        .zip(all)
        .map(|(e, probabilities)| {
            let (label, confidence) = model.aggregation.verdict_among(&probabilities, labels);
            progress.advance(1);
            let mut prediction = Prediction::verdict(e.id.clone(), label, confidence, e.evidence.clone());
            prediction.stances = probabilities.into_iter().map(judged).collect();
            prediction
        })
        .collect();
    progress.finish();
    Ok(predictions)
}

/// One hit as a fact-checker reads it: the engine's hit, where the claim's numbers appear in its
/// text, and the claim's quantities beside the hit's.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ReadHit {
    /// Stored fields, score and the sub-queries that found it.
    #[serde(flatten)]
    pub hit: EvidenceHit,
    /// Numbers of the claim that appear in `text`, as character offsets into `text`.
    pub highlights: Vec<NumberSpan>,
    /// The claim's quantities beside this hit's (`quantity.rs`; `passage` is the hit's position).
    pub comparisons: Vec<Comparison>,
    /// The hit's stance on the claim, when a stance or ONNX verifier read it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stance: Option<EvidenceStance>,
}

/// One claim's evidence as read ([`read_evidence`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ReadEvidence {
    /// The sub-queries run.
    pub subqueries: Vec<SubQuery>,
    /// The hits, best first.
    pub hits: Vec<ReadHit>,
    /// The embedded index's generation that answered.
    pub generation: Option<u64>,
}

/// One claim's evidence from `backend` ([`Backend::evidence`]), each hit with the claim's numbers
/// highlighted in it and the claim's quantities compared with its own: what `POST /api/search`
/// and the page show.
pub fn read_evidence(backend: &dyn Backend, claim: &Claim, request: &RunRequest<'_>) -> Result<ReadEvidence> {
    let evidence = backend.evidence(claim, request)?;
    let claim_numbers: std::collections::HashSet<String> = number_spans(&claim.text).into_iter().map(|s| s.value).collect();
    let claim_quantities = quantities(&claim.text);
    let hits = evidence
        .hits
        .into_iter()
        .enumerate()
        .map(|(i, hit)| {
            let highlights = number_spans(&hit.evidence.text).into_iter().filter(|s| claim_numbers.contains(&s.value)).collect();
            let passage = crate::corpus::passage(&hit.evidence.title, &hit.evidence.text);
            let comparisons = compare(&claim_quantities, &[quantities(&passage)]).into_iter().map(|c| Comparison { passage: i, ..c }).collect();
            ReadHit { hit, highlights, comparisons, stance: None }
        })
        .collect();
    Ok(ReadEvidence { subqueries: evidence.plan.subqueries, hits, generation: evidence.generation })
}

/// The claims with their evidence from a run: each claim's first `top` documents in `run`, their
/// text ([`crate::corpus::passage`]) from `index`; a claim the run does not rank gets none.
pub fn examples_from_run(index: &Index, run: &crate::trec::Run, claims: &[crate::corpus::Claim], top: usize) -> Result<Vec<VerifyExample>> {
    let by_qid: std::collections::HashMap<&str, Vec<&str>> = run.queries.iter().map(|l| (l.qid.as_str(), l.docs.iter().take(top).map(|d| d.docid.as_str()).collect())).collect();
    claims
        .iter()
        .map(|c| {
            let evidence = by_qid.get(c.id.as_str()).into_iter().flatten().filter_map(|id| index.rank_of(id)).map(|r| index.stored_by_rank(r).map(|d| crate::corpus::passage(&d.title, &d.text))).collect::<Result<Vec<_>>>()?;
            Ok(VerifyExample::new(c.id.clone(), c.text.clone(), evidence, None))
        })
        .collect()
}
