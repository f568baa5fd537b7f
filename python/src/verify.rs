//! `quantir.Verifier` and `quantir.score`: verdicts for claims with their evidence, and their
//! accuracy, per-class, macro and weighted F1 (scikit-learn's definitions).

use std::collections::HashMap;
use std::path::PathBuf;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use quantir::index::dense::models::EncoderOptions;
use quantir::llm::LlmConfig;
use quantir::verify::llm::ContextPolicy;
use quantir::verify::pipeline::{AbstainWith, Pipeline, VerifierSetup};
use quantir::verify::{match_predictions, read_examples, score_outcomes, Gold, Label, LabelSet, Prediction, VerifierSpec, VerifyExample};

use crate::convert::json_to_py;
use crate::errors::OrRaise;
use crate::index::model_roots;
use crate::progress::PyProgress;

/// A verifier: `Verifier.load("verifiers/quantemp")` (from `quantir train-verifier`),
/// `Verifier.load("stance:verifiers/stance")` (from `quantir train-stance`: each prediction has
/// its texts' `"stances"`), `Verifier.load("onnx:DIR")` (a sequence-classification ONNX model with
/// quantir-verifier.json) or `Verifier.load("llm:MODEL", llm_url=...)` (an OpenAI-compatible
/// chat API). Predictions release the GIL.
#[pyclass(frozen, module = "quantir._quantir")]
pub struct Verifier {
    /// The pipeline, opened once; each call gives its own top, labels and abstention.
    pipeline: Pipeline,
    name: String,
}

/// Evidence texts: a list of `str` (or one `str`).
fn texts(at: &str, value: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if let Ok(text) = value.cast::<PyString>() {
        return Ok(vec![text.to_cow()?.into_owned()]);
    }
    let list = value.cast::<PyList>().map_err(|_| PyTypeError::new_err(format!("{at}: expected a list of evidence texts")))?;
    list.iter().enumerate().map(|(i, t)| t.extract::<String>().map_err(|_| PyTypeError::new_err(format!("{at}[{i}]: expected str")))).collect()
}

/// Claims with evidence: a path (a QuanTemp evidence mapping or evidence JSONL, as `quantir
/// verify --claims` reads alone), or claims (as `Index.run` takes them) with `evidence`, a dict
/// `{claim id: [texts]}`; without it, each claim dict carries its own `"evidence"` list.
fn examples(claims: &Bound<'_, PyAny>, evidence: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<VerifyExample>> {
    if evidence.is_none() && (claims.is_instance_of::<PyString>() || claims.hasattr("__fspath__")?) {
        let path: PathBuf = claims.extract()?;
        return claims.py().detach(|| read_examples(&path)).or_raise();
    }
    let parsed = crate::convert::claims(claims, quantir::corpus::Format::Auto)?;
    let own: Vec<Option<Bound<'_, PyAny>>> = match claims.cast::<PyList>() {
        Ok(list) => list.iter().map(|item| item.cast::<PyDict>().ok().and_then(|d| d.get_item("evidence").ok().flatten())).collect(),
        Err(_) => vec![None; parsed.len()],
    };
    parsed
        .into_iter()
        .zip(own)
        .enumerate()
        .map(|(i, (claim, own))| {
            let texts = match (evidence, own) {
                (Some(map), _) => match map.get_item(&claim.id)? {
                    Some(v) => texts(&format!("evidence[{:?}]", claim.id), &v)?,
                    None => return Err(PyValueError::new_err(format!("evidence: no evidence for claim {:?}\n\nhint: give every claim an entry, an empty list for none", claim.id))),
                },
                (None, Some(v)) => texts(&format!("claims[{i}][\"evidence\"]"), &v)?,
                (None, None) => return Err(PyValueError::new_err(format!("claims[{i}]: no evidence: pass evidence={{claim id: [texts]}} or give each claim an \"evidence\" list"))),
            };
            Ok(VerifyExample::new(claim.id, claim.text, texts, None))
        })
        .collect()
}

fn labels(value: Option<&str>) -> PyResult<LabelSet> {
    match value {
        None => Ok(LabelSet::default()),
        Some(list) => LabelSet::parse(list).map_err(|e| PyValueError::new_err(format!("labels={list:?}: {e}"))),
    }
}

#[pymethods]
impl Verifier {
    /// Loads a verifier: `trained:DIR`, `stance:DIR`, `onnx:DIR`, `llm:MODEL`, or a folder (trained
    /// when it holds verifier.json, stance when stance.json, else onnx).
    #[staticmethod]
    #[pyo3(signature = (spec, *, dense=None, ort_lib=None, llm_url=None, llm_key=None))]
    fn load(py: Python<'_>, spec: &str, dense: Option<PathBuf>, ort_lib: Option<PathBuf>, llm_url: Option<String>, llm_key: Option<String>) -> PyResult<Verifier> {
        let parsed = VerifierSpec::parse_or_folder(spec).map_err(PyValueError::new_err)?;
        let llm = match &parsed {
            VerifierSpec::Llm(model) => Some(LlmConfig::from_env(llm_url, Some(model.clone()), llm_key).ok_or_else(|| PyValueError::new_err(format!("an llm: verifier needs llm_url= (or {})", quantir::llm::URL_VAR)))?),
            _ => None,
        };
        let setup = VerifierSetup { encoder: EncoderOptions { model: dense, runtime: ort_lib, ..EncoderOptions::default() }, roots: model_roots(py), llm, context: ContextPolicy::default(), top: 3, labels: LabelSet::default() };
        let pipeline = py.detach(|| Pipeline::open(&parsed, &setup, &AbstainWith::Off)).or_raise()?;
        Ok(Verifier { pipeline, name: spec.to_string() })
    }

    fn __repr__(&self) -> String {
        format!("Verifier({:?})", self.name)
    }

    /// Verdicts for `claims` with their `evidence` (see the module doc of `quantir`): a list of
    /// `{"id", "label", "confidence", "evidence", "comparisons"}` (and each text's `"stances"`
    /// from a stance verifier), as `quantir verify` writes
    /// them, through the same pipeline. `top` evidence texts are read per claim; `labels`
    /// ("true,false" for a binary task) restricts the verdicts; `abstain=True` withholds verdicts
    /// (Not Enough Info, with "verdict", "relevance" and "abstained") by the trained verifier's
    /// rule, or by `abstention_rule` (a trained verifier's folder or its abstention.json).
    #[pyo3(signature = (claims, evidence=None, *, top=3, labels=None, abstain=false, abstention_rule=None, progress=None))]
    #[allow(clippy::too_many_arguments)]
    fn predict<'py>(&self, py: Python<'py>, claims: &Bound<'py, PyAny>, evidence: Option<&Bound<'py, PyDict>>, top: usize, labels: Option<&str>, abstain: bool, abstention_rule: Option<PathBuf>, progress: Option<&Bound<'_, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
        let examples = examples(claims, evidence)?;
        let labels = self::labels(labels)?;
        let abstain = match (abstain, abstention_rule) {
            (_, Some(path)) => AbstainWith::Rule(path),
            (true, None) => AbstainWith::Own,
            (false, None) => AbstainWith::Off,
        };
        let reporter = PyProgress::from_arg(progress)?;
        let result = py.detach(|| -> quantir::Result<Vec<quantir::verify::Prediction>> {
            let rule = Pipeline::rule(&self.pipeline.verifier, &abstain, labels)?;
            self.pipeline.verify_with(&examples, top, labels, rule.as_ref(), &reporter)
        });
        let predictions = reporter.finish_with(result.or_raise())?;
        let json = serde_json::to_value(&predictions).map_err(|e| PyValueError::new_err(e.to_string()))?;
        json_to_py(py, &json)
    }
}

/// A verdict by name ("True", "false", "Half True/False", "not enough info", …).
fn label(at: &str, value: &Bound<'_, PyAny>) -> PyResult<Label> {
    let text: String = value.extract().map_err(|_| PyTypeError::new_err(format!("{at}: expected a label as str")))?;
    Label::parse(&text).ok_or_else(|| PyValueError::new_err(format!("{at}: unknown label {text:?}: expected True, False, Conflicting or Not Enough Info")))
}

/// Scores predictions against gold labels, as `quantir verify-eval` does: accuracy, macro and
/// weighted F1, per-class precision/recall/F1/support and the confusion matrix, over the labels
/// that occur. `gold` is `{claim id: label}`; `predictions` is `{claim id: label}` or what
/// `Verifier.predict` returns. Every gold claim must be predicted, and only those.
#[pyfunction]
pub fn score<'py>(py: Python<'py>, gold: &Bound<'py, PyDict>, predictions: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let mut predicted: Vec<Prediction> = Vec::new();
    if let Ok(map) = predictions.cast::<PyDict>() {
        for (id, l) in map.iter() {
            let id: String = id.extract()?;
            let l = label(&format!("predictions[{id:?}]"), &l)?;
            predicted.push(Prediction::verdict(id, l, 1.0, Vec::new()));
        }
    } else {
        let list = predictions.cast::<PyList>().map_err(|_| PyTypeError::new_err("predictions: expected {claim id: label} or a list of {\"id\", \"label\"}"))?;
        for (i, p) in list.iter().enumerate() {
            let p = p.cast::<PyDict>().map_err(|_| PyTypeError::new_err(format!("predictions[{i}]: expected a dict with \"id\" and \"label\"")))?;
            let id: String = p.get_item("id")?.ok_or_else(|| PyValueError::new_err(format!("predictions[{i}]: missing \"id\"")))?.extract()?;
            let l = label(&format!("predictions[{i}][\"label\"]"), &p.get_item("label")?.ok_or_else(|| PyValueError::new_err(format!("predictions[{i}]: missing \"label\"")))?)?;
            predicted.push(Prediction::verdict(id, l, 1.0, Vec::new()));
        }
    }
    let mut golds = HashMap::with_capacity(gold.len());
    for (id, g) in gold.iter() {
        let id: String = id.extract()?;
        let g = label(&format!("gold[{id:?}]"), &g)?;
        golds.insert(id, Gold { label: g, category: None });
    }
    if golds.is_empty() {
        return Err(PyValueError::new_err("gold: no claims to score"));
    }
    // The library's one matching rule, as `quantir verify-eval` applies it.
    let (judged, _) = match_predictions(&golds, predicted, false, "predictions").or_raise()?;
    let pairs: Vec<(Label, Option<Label>)> = judged.iter().map(|j| (j.gold.label, j.predicted)).collect();
    let scores = score_outcomes(&pairs);
    let json = serde_json::to_value(&scores).map_err(|e| PyValueError::new_err(e.to_string()))?;
    json_to_py(py, &json)
}
