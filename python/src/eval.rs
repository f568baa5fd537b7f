//! `quantir.evaluate`, `quantir.fuse`, `quantir.compare`: trec_eval's numbers, ranx's fusion,
//! paired significance tests.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use quantir::eval::{CompareConfig, Completeness, Measure, MeasureList};
use quantir::fuse::{fuse_runs, FusionConfig, Method, RRF_K};

use crate::convert::{choice, json_to_py, maybe_choice, qrels, run, run_to_py};
use crate::errors::OrRaise;

/// Measures by trec_eval name (`ndcg_cut.10`); none given: the CLI's defaults.
fn measures(names: Option<Vec<String>>) -> PyResult<Vec<Measure>> {
    match names {
        None => Ok(Measure::DEFAULTS.to_vec()),
        Some(names) if names.is_empty() => Err(PyValueError::new_err("measures=[]: name at least one measure, e.g. \"ndcg_cut.10\"")),
        Some(names) => {
            let lists = names.iter().map(|n| n.parse::<MeasureList>().map_err(|e| PyValueError::new_err(format!("measures: {e}")))).collect::<PyResult<Vec<_>>>()?;
            Ok(MeasureList::flatten(&lists))
        }
    }
}

fn completeness(complete: bool) -> Completeness {
    if complete {
        Completeness::Complete
    } else {
        Completeness::RunQueriesOnly
    }
}

/// Evaluates `run` against `qrels` with trec_eval's semantics: `{"ndcg_cut_10": mean, ...}`, or
/// with `per_query=True` `{qid: {"ndcg_cut_10": value, ...}}` as pytrec_eval gives. Measures by
/// trec_eval name or list (`"P.5,10"`, `"iprec_at_recall"`; default: ndcg_cut.10, recall.10,
/// recall.100, recip_rank, map); `complete=True` evaluates judged queries missing from the run as
/// empty rankings (trec_eval -c).
#[pyfunction]
#[pyo3(signature = (qrels, run, measures=None, *, per_query=false, complete=false))]
pub fn evaluate<'py>(py: Python<'py>, qrels: &Bound<'py, PyAny>, run: &Bound<'py, PyAny>, measures: Option<Vec<String>>, per_query: bool, complete: bool) -> PyResult<Bound<'py, PyDict>> {
    let measures = self::measures(measures)?;
    let qrels = self::qrels(qrels)?;
    let run = self::run(run, "run")?;
    let evaluation = py.detach(|| quantir::eval::evaluate(&run.view(), &qrels, &measures, completeness(complete)));
    let row = |values: &[f64]| -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (m, v) in measures.iter().zip(values) {
            d.set_item(m.key(), *v)?;
        }
        Ok(d)
    };
    if !per_query {
        return row(&evaluation.mean);
    }
    let out = PyDict::new(py);
    for (qid, values) in &evaluation.per_query {
        out.set_item(qid, row(values)?)?;
    }
    Ok(out)
}

/// Reads judgments (TREC `qid 0 docid rel`, BEIR tsv or QuanTemp++ JSON, detected as `quantir
/// eval --qrels` does) into `{qid: {docid: grade}}`.
#[pyfunction]
pub fn read_qrels<'py>(py: Python<'py>, path: std::path::PathBuf) -> PyResult<Bound<'py, PyDict>> {
    let qrels = py.detach(|| quantir::trec::Qrels::read(&path, quantir::trec::QrelsFormat::Auto)).or_raise()?;
    let out = PyDict::new(py);
    for (qid, grades) in &qrels.judgments {
        let docs = PyDict::new(py);
        for (docid, grade) in grades {
            docs.set_item(docid, *grade)?;
        }
        out.set_item(qid, docs)?;
    }
    Ok(out)
}

/// Reads a TREC run file into `{qid: {docid: score}}`, each query's documents in trec_eval's
/// order (score descending, then docid descending).
#[pyfunction]
pub fn read_run<'py>(py: Python<'py>, path: std::path::PathBuf) -> PyResult<Bound<'py, PyDict>> {
    let run = py.detach(|| quantir::trec::Run::read_trec(&path)).or_raise()?;
    run_to_py(py, &run)
}

/// Fuses ranked lists query by query, as `quantir fuse` (and ranx's `fuse`) does: `method` one
/// of combsum, combmax, combmnz, combmax-norm, rrf, wsum; `norm` the per-list normalisation
/// (default min-max; combmax-norm is always min-max, rrf reads ranks only); `k` results kept.
#[pyfunction]
#[pyo3(signature = (runs, method, *, norm=None, constant="zero", rrf_k=RRF_K, weights=None, k=1000))]
#[allow(clippy::too_many_arguments)]
pub fn fuse<'py>(py: Python<'py>, runs: Vec<Bound<'py, PyAny>>, method: &str, norm: Option<&str>, constant: &str, rrf_k: f64, weights: Option<Vec<f64>>, k: usize) -> PyResult<Bound<'py, PyDict>> {
    if k == 0 {
        return Err(PyValueError::new_err("k=0: expected 1 or more"));
    }
    let config = FusionConfig { method: choice::<Method>("method", method)?, norm: maybe_choice("norm", norm)?, constant: choice("constant", constant)?, rrf_k, weights: weights.unwrap_or_default() };
    let runs = runs.iter().enumerate().map(|(i, r)| run(r, &format!("runs[{i}]"))).collect::<PyResult<Vec<_>>>()?;
    let fused = py.detach(|| fuse_runs(&runs, &config, k)).or_raise()?;
    run_to_py(py, &fused)
}

/// Compares runs (a dict `{name: run}`, the first the baseline) on the queries all were
/// evaluated on, with a paired test per measure and a correction across runs, as `quantir
/// compare --json` does: `{"queries", "test", "correction", "alpha", "runs": [{"run",
/// "measures": {"ndcg_cut_10": {"mean", "p", "p_corrected", "significant"}}}]}`.
#[pyfunction]
#[pyo3(signature = (qrels, runs, measures=None, *, test="t", alpha=0.05, correction="holm", permutations=10_000, seed=42, complete=false))]
#[allow(clippy::too_many_arguments)]
pub fn compare<'py>(
    py: Python<'py>,
    qrels: &Bound<'py, PyAny>,
    runs: &Bound<'py, PyDict>,
    measures: Option<Vec<String>>,
    test: &str,
    alpha: f64,
    correction: &str,
    permutations: usize,
    seed: u64,
    complete: bool,
) -> PyResult<Bound<'py, PyAny>> {
    if runs.len() < 2 {
        return Err(PyValueError::new_err(format!("runs: expected at least two runs to compare (the first is the baseline), found {}", runs.len())));
    }
    if !(alpha > 0.0 && alpha < 1.0) {
        return Err(PyValueError::new_err(format!("alpha={alpha}: expected a number between 0 and 1")));
    }
    if permutations == 0 {
        return Err(PyValueError::new_err("permutations=0: expected 1 or more"));
    }
    let measures = self::measures(measures)?;
    let config = CompareConfig { test: choice("test", test)?, alpha, correction: choice("correction", correction)?, permutations, seed };
    let qrels = self::qrels(qrels)?;
    let mut named = Vec::with_capacity(runs.len());
    for (name, value) in runs.iter() {
        let name: String = name.extract()?;
        let parsed = run(&value, &format!("runs[{name:?}]"))?;
        named.push((name, parsed));
    }
    let table = py.detach(|| {
        let evaluations: Vec<(String, quantir::eval::Evaluation)> = named.iter().map(|(n, r)| (n.clone(), quantir::eval::evaluate(&r.view(), &qrels, &measures, completeness(complete)))).collect();
        quantir::eval::compare(&evaluations, &config)
    });
    json_to_py(py, &table.to_json(&config))
}
