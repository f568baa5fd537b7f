//! The ONNX verifier (`onnx:DIR`): any sequence-classification model (an MNLI cross-encoder a
//! user exports) run through the same ONNX Runtime as the encoder.
//!
//! `DIR/quantir-verifier.json` describes the model:
//! `{"model": "model.onnx", "tokenizer": "tokenizer.json", "labels": ["contradiction", "neutral",
//! "entailment"], "map": {"entailment": "True", "contradiction": "False", "neutral": "Conflicting"},
//! "max_length": 256}` — `labels` in the order of the model's logits, `map` from each to a verdict
//! (unmapped labels are ignored).
//!
//! Each evidence text is the premise and the claim the hypothesis (`[CLS] evidence [SEP] claim
//! [SEP]`); the logits become probabilities (softmax), summed per verdict through `map`.
//! **Combination rule:** the verdict probabilities are averaged over the claim's evidence texts and
//! the verdict is the most probable one among the allowed labels (`--labels`; ties: True, then
//! False, then Conflicting), its confidence renormalised over them; a claim without evidence gets
//! [`LabelSet::fallback`] (Conflicting, or False for a binary task) with confidence 0.
//!
//! **Stances.** Each text also gets its stance (`Prediction::stances`): the probability of the
//! labels mapped to True is its support, of those mapped to False its refutation, and the rest
//! (Conflicting, Not Enough Info, unmapped labels) that it does not bear on the claim. With
//! `"aggregation": {"bears": 0.5, "both": 0.5}` in `quantir-verifier.json` the verdict is
//! aggregated from the stances as the stance verifier's is
//! ([`crate::verify::model::stance::Aggregation`]: thresholds a user chooses for the model)
//! instead of by the average above.

use std::path::Path;
use std::sync::Mutex;

use ort::session::Session;
use ort::value::Tensor;

use super::model::stance::{judged, Aggregation};
use super::{Label, LabelSet, Prediction, VerifyExample};
use crate::error::{Error, Result};
use crate::io::Progress;

/// `quantir-verifier.json`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct NliConfig {
    /// The ONNX file, relative to the folder.
    pub model: String,
    /// The tokenizer, relative to the folder.
    pub tokenizer: String,
    /// The model's labels in logit order.
    pub labels: Vec<String>,
    /// Label → verdict (`True`, `False`, `Conflicting`, `Not Enough Info`).
    pub map: std::collections::BTreeMap<String, String>,
    /// Tokens per (evidence, claim) pair.
    #[serde(default = "default_max_length")]
    pub max_length: usize,
    /// Aggregate the verdict from the texts' stances with these thresholds (module doc).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aggregation: Option<Aggregation>,
}

fn default_max_length() -> usize {
    256
}

/// A loaded ONNX verifier.
pub struct NliVerifier {
    tokenizer: tokenizers::Tokenizer,
    session: Mutex<Session>,
    /// For each logit, the verdict it counts for.
    verdicts: Vec<Option<Label>>,
    has_token_types: bool,
    aggregation: Option<Aggregation>,
}

impl NliVerifier {
    /// Loads `dir` with ONNX Runtime from `runtime`.
    pub fn open(dir: &Path, runtime: &Path) -> Result<NliVerifier> {
        let config_path = dir.join("quantir-verifier.json");
        let bad = |message: String| Error::InvalidArgument { name: "verifier", message };
        let text = crate::io::read_utf8(&config_path).map_err(|e| bad(format!("{e}\n\nhint: an onnx: verifier folder holds quantir-verifier.json, the model and its tokenizer")))?;
        let config: NliConfig = serde_json::from_str(&text).map_err(|e| crate::io::json_error(&config_path, crate::error::Position { line: 1, column: Some(1) }, &e))?;
        if config.labels.is_empty() {
            return Err(bad(format!("{}: labels: expected the model's labels in logit order, found an empty list", config_path.display())));
        }
        let verdicts = config
            .labels
            .iter()
            .map(|l| match config.map.get(l) {
                None => Ok(None),
                Some(v) => Label::parse(v).map(Some).ok_or_else(|| bad(format!("{}: map.{l}: expected True, False, Conflicting or Not Enough Info, found {v:?}", config_path.display()))),
            })
            .collect::<Result<Vec<_>>>()?;
        let env = crate::index::dense::encoder::environment(runtime)?;
        let mut tokenizer = tokenizers::Tokenizer::from_file(dir.join(&config.tokenizer)).map_err(|e| bad(format!("{}: {e}", dir.join(&config.tokenizer).display())))?;
        tokenizer.with_truncation(Some(tokenizers::TruncationParams { max_length: config.max_length, ..Default::default() })).map_err(|e| bad(e.to_string()))?;
        tokenizer.with_padding(None);
        let model = dir.join(&config.model);
        let ort_error = |e: ort::Error| bad(format!("{}: {e}", model.display()));
        let session = Session::builder(env).map_err(ort_error)?.with_intra_threads(2).map_err(|e| ort_error(e.into()))?.commit_from_file(&model).map_err(ort_error)?;
        if let Some(aggregation) = &config.aggregation {
            aggregation.check().map_err(|found| bad(format!("{}: aggregation: expected {}, found {found}", config_path.display(), Aggregation::EXPECTED)))?;
        }
        let has_token_types = session.inputs().iter().any(|i| i.name() == "token_type_ids");
        Ok(NliVerifier { tokenizer, session: Mutex::new(session), verdicts, has_token_types, aggregation: config.aggregation })
    }

    /// Verdict probabilities (True, False, Conflicting) for each (evidence, claim) pair.
    fn pair_probabilities(&self, pairs: Vec<(String, String)>) -> Result<Vec<[f64; 4]>> {
        let encodings = self.tokenizer.encode_batch(pairs, true).map_err(|e| Error::InvalidArgument { name: "verifier", message: e.to_string() })?;
        let width = encodings.iter().map(|e| e.get_ids().len()).max().unwrap_or(1).max(1);
        let n = encodings.len();
        let (mut ids, mut mask, mut types) = (vec![0i64; n * width], vec![0i64; n * width], vec![0i64; n * width]);
        for (row, e) in encodings.iter().enumerate() {
            for (j, ((&id, &m), &t)) in e.get_ids().iter().zip(e.get_attention_mask()).zip(e.get_type_ids()).enumerate() {
                ids[row * width + j] = i64::from(id);
                mask[row * width + j] = i64::from(m);
                types[row * width + j] = i64::from(t);
            }
        }
        let run_error = |e: ort::Error| Error::InvalidArgument { name: "verifier", message: format!("running the model: {e}") };
        let shape = vec![n as i64, width as i64];
        let tensor = |d: Vec<i64>| Tensor::from_array((shape.clone(), d)).map_err(run_error);
        let mut session = self.session.lock().expect("verifier session lock");
        let outputs = if self.has_token_types {
            session.run(ort::inputs!["input_ids" => tensor(ids)?, "attention_mask" => tensor(mask)?, "token_type_ids" => tensor(types)?])
        } else {
            session.run(ort::inputs!["input_ids" => tensor(ids)?, "attention_mask" => tensor(mask)?])
        }
        .map_err(run_error)?;
        let (out_shape, logits) = outputs[0].try_extract_tensor::<f32>().map_err(run_error)?;
        let labels = *out_shape.last().unwrap_or(&0) as usize;
        if labels != self.verdicts.len() {
            return Err(Error::InvalidArgument { name: "verifier", message: format!("the model gives {labels} logits, quantir-verifier.json names {} labels", self.verdicts.len()) });
        }
        Ok(logits
            .chunks(labels)
            .map(|row| {
                let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                let exp: Vec<f64> = row.iter().map(|x| f64::from(x - max).exp()).collect();
                let sum: f64 = exp.iter().sum();
                let mut p = [0f64; Label::ALL.len()];
                for (e, verdict) in exp.iter().zip(&self.verdicts) {
                    if let Some(v) = verdict {
                        p[v.index()] += e / sum;
                    }
                }
                p
            })
            .collect())
    }

    /// Verdicts for `examples` (module doc for the combination rule).
    pub fn predict(&self, examples: &[VerifyExample], labels: LabelSet, progress: &dyn Progress) -> Result<Vec<Prediction>> {
        progress.start("verifying", Some(examples.len() as u64));
        let mut out = Vec::with_capacity(examples.len());
        for e in examples {
            let evidence: Vec<String> = e.evidence.clone();
            let probabilities = if evidence.is_empty() { Vec::new() } else { self.pair_probabilities(evidence.iter().map(|ev| (ev.clone(), e.claim.clone())).collect())? };
            let stances: Vec<[f64; 3]> = probabilities.iter().map(|p| [p[Label::True.index()], p[Label::False.index()], (1.0 - p[Label::True.index()] - p[Label::False.index()]).max(0.0)]).collect();
            let (label, confidence) = match (&self.aggregation, probabilities.is_empty()) {
                (_, true) => (labels.fallback(), 0.0),
                (Some(aggregation), false) => aggregation.verdict_among(&stances, labels),
                (None, false) => {
                    let mean: [f64; 4] = std::array::from_fn(|c| probabilities.iter().map(|p| p[c]).sum::<f64>() / probabilities.len() as f64);
                    labels.pick(&mean)
                }
            };
            let mut prediction = Prediction::verdict(e.id.clone(), label, confidence, evidence);
            prediction.stances = stances.into_iter().map(judged).collect();
            out.push(prediction);
            progress.advance(1);
        }
        progress.finish();
        Ok(out)
    }
}
