//! Planners written in Python: `Index.run(claims, plan=callable)`.
//!
//! The callable is called once per claim, in claim order, as `plan(claim, search)`: `claim` is a
//! dict (`id`, `text`, `date` as normalised at load, or `None`) and `search(query, k=10,
//! retriever="bm25")` returns the top `k` [`Hit`]s for `query` under *that claim's* cutoff — the
//! cutoff the run itself applies, so a planner that reads evidence can read nothing the claim may
//! not see — by BM25, or by the dense or hybrid retriever where the index has vectors. It returns
//! the claim's sub-queries: a list of str, or a list of such lists (rounds, taken in order). The
//! rest — retrieval of every sub-query, fusion, the run — is the library's, as for a `--plan`
//! spec: the sub-queries become a [`Listed`] planner with [`Origin::Callable`], and go through
//! the same repeat and fact-checking filters and the same MMR.
//!
//! An exception raised inside the callable surfaces as a `RuntimeError` naming the claim's id,
//! with the original exception as its `__cause__`.

use std::collections::HashMap;
use std::sync::Arc;

use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

use quantir::corpus::Claim;
use quantir::engine::{search_for_claim_by, Backend, RunConfig};
use quantir::index::dense::Encoder;
use quantir::retrieve::Retriever;
use quantir::plan::{Origin, PlanSpec};

use crate::errors::OrRaise;
use crate::index::Hit;

/// `plan=`: a planner spec as the CLI writes it, or a Python callable.
pub(crate) enum PlanArg {
    /// `"claim-only"`, `"numeric"`, `"file:…"`, `"llm:…"`.
    Spec(PlanSpec),
    /// `plan(claim, search) -> list[str]`.
    Callable(Py<PyAny>),
}

impl PlanArg {
    /// `None` is `"claim-only"`.
    pub(crate) fn from_arg(value: Option<&Bound<'_, PyAny>>) -> PyResult<PlanArg> {
        let Some(value) = value else { return Ok(PlanArg::Spec(PlanSpec::ClaimOnly)) };
        if let Ok(text) = value.cast::<PyString>() {
            let text = text.to_cow()?;
            return text.parse().map(PlanArg::Spec).map_err(|e: String| PyValueError::new_err(format!("plan={text:?}: {e}")));
        }
        if value.is_callable() {
            return Ok(PlanArg::Callable(value.clone().unbind()));
        }
        Err(PyTypeError::new_err(format!("plan: expected a planner name (\"claim-only\", \"numeric\", \"file:PATH\", \"llm:STYLE\") or a callable plan(claim, search) -> list[str], found {}", value.get_type().name()?)))
    }
}

/// The search a Python planner is handed for one claim: the run's index under that claim's
/// cutoff, with the run's BM25 parameters, `ann` and `ef` (and without the claim's own id under
/// `remove_query`).
#[pyclass(frozen, module = "quantir._quantir")]
pub struct ClaimSearch {
    backend: Arc<dyn Backend>,
    claim: Claim,
    config: RunConfig,
    /// The query encoder, for `retriever="dense"` or `"hybrid"` (`Err`: why it could not be
    /// loaded, raised when such a search is asked for).
    encoder: PlannerEncoder,
}

#[pymethods]
impl ClaimSearch {
    /// The top `k` documents for `query` published before the claim's cutoff, by `retriever`
    /// (`"bm25"`, `"dense"` or `"hybrid"`).
    #[pyo3(signature = (query, k=quantir::ranges::DEFAULT_SEARCH_K, retriever="bm25"))]
    fn __call__(&self, py: Python<'_>, query: &str, k: usize, retriever: &str) -> PyResult<Vec<Hit>> {
        let by: Retriever = crate::convert::choice("retriever", retriever)?;
        let encoder = match (&self.encoder, by) {
            (_, Retriever::Bm25) => None,
            (Ok(encoder), _) => encoder.as_deref(),
            (Err(why), _) => return Err(PyValueError::new_err(format!("search(retriever={retriever:?}): {why}"))),
        };
        let hits = py.detach(|| search_for_claim_by(self.backend.as_ref(), &self.claim, &self.config, query, k, by, encoder)).or_raise()?;
        Ok(hits.into_iter().map(Hit::from).collect())
    }

    /// The cutoff's date (documents must be published strictly before it), or `None`.
    #[getter]
    fn before(&self) -> Option<String> {
        self.config.cutoff_for(&self.claim).before.map(|d| d.to_string())
    }

    fn __repr__(&self) -> String {
        format!("ClaimSearch(before={:?})", self.before())
    }
}

/// The encoder a Python planner's dense and hybrid searches use: `Ok(None)` where the index has
/// no vectors (such a search is refused as a dense run is), `Err` with why it failed to load.
pub(crate) type PlannerEncoder = std::result::Result<Option<Arc<Encoder>>, String>;

/// Calls `callable` for every claim, in order, and returns claim id → sub-queries. `encoder`
/// serves the callable's dense and hybrid searches.
pub(crate) fn plan_in_python(py: Python<'_>, callable: &Py<PyAny>, claims: &[Claim], config: &RunConfig, backend: Arc<dyn Backend>, encoder: PlannerEncoder) -> PyResult<HashMap<String, Vec<String>>> {
    let mut out = HashMap::with_capacity(claims.len());
    for claim in claims {
        let dict = PyDict::new(py);
        dict.set_item("id", &claim.id)?;
        dict.set_item("text", &claim.text)?;
        dict.set_item("date", claim.date.map(|d| d.to_string()))?;
        let search = ClaimSearch { backend: backend.clone(), claim: claim.clone(), config: *config, encoder: encoder.clone() };
        let returned = callable.bind(py).call1((dict, Py::new(py, search)?)).map_err(|cause| {
            let error = PyRuntimeError::new_err(format!("plan callable raised on claim {:?}: {cause}", claim.id));
            error.set_cause(py, Some(cause));
            error
        })?;
        out.insert(claim.id.clone(), subqueries(&claim.id, &returned)?);
    }
    Ok(out)
}

/// A callable's answer: a list (or tuple) of str, or of lists of str (rounds, in order).
fn subqueries(id: &str, value: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    let wrong = |found: &Bound<'_, PyAny>| -> PyErr {
        let name = found.get_type().name().map(|n| n.to_string()).unwrap_or_default();
        PyTypeError::new_err(format!("plan callable returned {name} for claim {id:?}: expected a list of str (sub-queries) or a list of lists of str (rounds)"))
    };
    let mut out = Vec::new();
    for item in items(value).ok_or_else(|| wrong(value))? {
        if let Ok(text) = item.cast::<PyString>() {
            out.push(text.to_cow()?.into_owned());
            continue;
        }
        for inner in items(&item).ok_or_else(|| wrong(&item))? {
            out.push(inner.cast::<PyString>().map_err(|_| wrong(&inner))?.to_cow()?.into_owned());
        }
    }
    Ok(out)
}

/// The items of a list or tuple; `None` for anything else (a str included).
fn items<'py>(value: &Bound<'py, PyAny>) -> Option<Vec<Bound<'py, PyAny>>> {
    if let Ok(list) = value.cast::<PyList>() {
        Some(list.iter().collect())
    } else if let Ok(tuple) = value.cast::<PyTuple>() {
        Some(tuple.iter().collect())
    } else {
        None
    }
}

/// The origin the library records for a Python planner's sub-queries.
pub(crate) const ORIGIN: Origin = Origin::Callable;
