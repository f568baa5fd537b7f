//! `quantir.Index` and `quantir.Hit`: building, opening, searching and running claims.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyType};

use quantir::corpus::{Format, LoadOptions};
use quantir::engine::{run_ranked, search_query, Backend, PlanRunConfig, RankedHits, RunConfig, RunRequest, RunSettings};
use quantir::index::dense::models::{EncoderOptions, ModelEnv};
use quantir::index::dense::{Encoder, VectorDtype};
use quantir::index::dense::models::serves_vectors_of;
use quantir::index::{add_from_path, build_from_path, check_target, compact, delete, update, Bm25Params, DenseConfig, DocOrder, HnswParams, IndexConfig, Live, MergePolicy, UpdateConfig, UpdateSummary};
use quantir::llm::LlmConfig;
use quantir::plan::{with_mmr, Listed};
use quantir::retrieve::Cutoff;

use crate::convert::{choice, run_settings, DocumentsArg};
use crate::errors::OrRaise;
use crate::planning::{plan_in_python, PlanArg};
use crate::progress::PyProgress;

/// What the model search reads from this process: the same variables as the CLI, and the
/// checkout the extension module was built in (an editable install finds the project's models/).
pub fn model_roots(py: Python<'_>) -> Vec<PathBuf> {
    let module_file = py.import("quantir._quantir").and_then(|m| m.getattr("__file__")).and_then(|f| f.extract::<PathBuf>()).ok();
    ModelEnv::of_process(module_file).roots()
}

/// A count argument that must be at least 1.
pub(crate) fn at_least_one(param: &str, value: usize) -> PyResult<usize> {
    if value == 0 {
        return Err(PyValueError::new_err(format!("{param}=0: expected 1 or more")));
    }
    Ok(value)
}

/// One search result with its stored fields.
#[pyclass(frozen, get_all, module = "quantir._quantir")]
pub struct Hit {
    /// Document id.
    id: String,
    /// BM25 score.
    score: f64,
    /// Publication date as normalised at index time (`2023-08-29`, `2023-08`, `2023`), if any.
    date: Option<String>,
    /// Title (empty when the collection has none).
    title: String,
    /// Text.
    text: String,
    /// Source address, if any.
    url: Option<String>,
}

impl From<quantir::engine::Evidence> for Hit {
    fn from(e: quantir::engine::Evidence) -> Hit {
        Hit { id: e.id, score: e.score, date: e.date, title: e.title, text: e.text, url: e.url }
    }
}

#[pymethods]
impl Hit {
    fn __repr__(&self) -> String {
        let text: String = self.text.chars().take(60).collect();
        format!("Hit(id={:?}, score={:.4}, date={:?}, text={:?}{})", self.id, self.score, self.date, text, if self.text.chars().count() > 60 { "…" } else { "" })
    }

    /// The hit as a dict (for `pandas.DataFrame([h.to_dict() for h in hits])`).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("id", &self.id)?;
        d.set_item("score", self.score)?;
        d.set_item("date", &self.date)?;
        d.set_item("title", &self.title)?;
        d.set_item("text", &self.text)?;
        d.set_item("url", &self.url)?;
        Ok(d)
    }
}

/// A quantir index: BM25 over the numeric-aware analyzer, optional dense vectors, publication
/// dates for the exact cutoff. Open one with `Index(path)`, build one with `Index.build(...)`.
/// One index serves many threads at once; searches and runs release the GIL. A rebuild of the
/// folder (`quantir index` or `Index.build` into it) is picked up by the next call; a call in
/// progress finishes on the generation it started on (`generation` says which is held).
#[pyclass(frozen, module = "quantir._quantir", subclass)]
pub struct Index {
    live: Live,
    options: EncoderOptions,
    /// The query encoder, loaded on first dense use, with the generation it was checked for.
    encoder: Mutex<Option<(u64, Option<Arc<Encoder>>)>>,
    /// Every document id as a Python string, by id rank, made on the first run of a generation:
    /// a run's dicts then share them instead of making a string per hit (at k = 1000 that was
    /// most of the cost of handing a run to Python).
    ids: Mutex<Option<(u64, IdStrings)>>,
}

/// A generation's document ids as Python strings, by id rank.
type IdStrings = Arc<Vec<Py<PyString>>>;

impl Index {
    /// `{qid: {docid: score}}` of ranked hits of `index`, with the shared id strings.
    fn hits_to_py<'py>(&self, py: Python<'py>, index: &quantir::index::Index, lists: &[RankedHits]) -> PyResult<Bound<'py, PyDict>> {
        let ids = {
            let mut slot = self.ids.lock().unwrap_or_else(|e| e.into_inner());
            match &*slot {
                Some((generation, ids)) if *generation == index.generation() => ids.clone(),
                _ => {
                    let ids: Arc<Vec<Py<PyString>>> = Arc::new((0..index.num_docs() as u32).map(|rank| PyString::new(py, index.id(rank)).unbind()).collect());
                    *slot = Some((index.generation(), ids.clone()));
                    ids
                }
            }
        };
        let out = PyDict::new(py);
        for list in lists {
            let docs = PyDict::new(py);
            for &(rank, score) in &list.hits {
                // The run's hot loop, a thousand items a claim at k = 1000: straight through
                // the C API, without pyo3's conversions of the key and the value.
                // SAFETY: the GIL is held (`py`); `docs` and the id are live objects; the float
                // is a new reference, checked, handed to the dict (which takes its own) and
                // released.
                unsafe {
                    let value = pyo3::ffi::PyFloat_FromDouble(score);
                    if value.is_null() {
                        return Err(PyErr::fetch(py));
                    }
                    let status = pyo3::ffi::PyDict_SetItem(docs.as_ptr(), ids[rank as usize].as_ptr(), value);
                    pyo3::ffi::Py_DecRef(value);
                    if status != 0 {
                        return Err(PyErr::fetch(py));
                    }
                }
            }
            out.set_item(&list.qid, docs)?;
        }
        Ok(out)
    }

    /// An update's summary as a dict, after moving to the generation it committed.
    fn summary_to_py<'py>(&self, py: Python<'py>, summary: &UpdateSummary) -> PyResult<Bound<'py, PyAny>> {
        if summary.committed {
            py.detach(|| self.live.reload()).or_raise()?;
        }
        let json = serde_json::to_string(summary).expect("summary serialises");
        py.import("json")?.call_method1("loads", (json,))
    }

    /// The encoder for dense or hybrid retrieval and dense MMR over `index`: loaded once, and
    /// loaded again only for a generation whose vectors another model made.
    fn encoder(&self, py: Python<'_>, index: &quantir::index::Index) -> PyResult<Option<Arc<Encoder>>> {
        let held = self.encoder.lock().unwrap_or_else(|e| e.into_inner()).clone();
        match held {
            Some((generation, encoder)) if generation == index.generation() => return Ok(encoder),
            Some((_, Some(encoder))) if index.manifest().dense.is_some() && serves_vectors_of(index, Some((encoder.config(), encoder.dir()))).is_ok() => {
                *self.encoder.lock().unwrap_or_else(|e| e.into_inner()) = Some((index.generation(), Some(encoder.clone())));
                return Ok(Some(encoder));
            }
            _ => {}
        }
        let roots = model_roots(py);
        // Loaded without the lock held: the GIL is released meanwhile.
        let loaded = py.detach(|| self.options.retrieval_encoder(index, &roots)).or_raise()?.map(Arc::new);
        *self.encoder.lock().unwrap_or_else(|e| e.into_inner()) = Some((index.generation(), loaded.clone()));
        Ok(loaded)
    }
}

#[pymethods]
impl Index {
    /// Opens the index at `path`. `dense` names the query encoder's model folder and `ort_lib`
    /// the ONNX Runtime library (default: the model the index records, found as the CLI finds it).
    #[new]
    #[pyo3(signature = (path, *, dense=None, ort_lib=None, encoder_workers=EncoderOptions::default().workers, batch_size=EncoderOptions::default().batch_size, device="cpu"))]
    fn new(py: Python<'_>, path: PathBuf, dense: Option<PathBuf>, ort_lib: Option<PathBuf>, encoder_workers: usize, batch_size: usize, device: &str) -> PyResult<Self> {
        let device = choice("device", device)?;
        let live = py.detach(|| Live::open(&path)).or_raise()?;
        let options = EncoderOptions { model: dense, runtime: ort_lib, workers: encoder_workers, batch_size, device, ..EncoderOptions::default() };
        Ok(Index { live, options, encoder: Mutex::new(None), ids: Mutex::new(None) })
    }

    /// Builds an index of `corpus` (a quantir JSONL file, a BEIR folder or a QuanTemp++
    /// corpus.json) at `index` with BM25's `k1` and `b` (0.9 and 0.4 when not given), replaced atomically when the build succeeds (a folder that holds
    /// something else is refused), and opens it. `dense` (a model folder) also encodes every
    /// passage. `progress(phase, done, total)` is called as the work goes on. `doc_order` is
    /// "date" (the default: a date cutoff reads only the postings before it) or "corpus".
    #[classmethod]
    #[pyo3(signature = (corpus, index, *, format="auto", k1=None, b=None, threads=0, doc_order="date", dense=None, ort_lib=None, f16=false, hnsw=false, hnsw_m=16, hnsw_ef_construction=200, encoder_workers=EncoderOptions::default().workers, batch_size=EncoderOptions::default().batch_size, device="cpu", max_record_mib=quantir::io::DEFAULT_MAX_RECORD_BYTES >> 20, progress=None))]
    #[allow(clippy::too_many_arguments)]
    fn build<'py>(
        cls: &Bound<'py, PyType>,
        corpus: PathBuf,
        index: PathBuf,
        format: &str,
        k1: Option<f32>,
        b: Option<f32>,
        threads: usize,
        doc_order: &str,
        dense: Option<PathBuf>,
        ort_lib: Option<PathBuf>,
        f16: bool,
        hnsw: bool,
        hnsw_m: usize,
        hnsw_ef_construction: usize,
        encoder_workers: usize,
        batch_size: usize,
        device: &str,
        max_record_mib: usize,
        progress: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = cls.py();
        let load = LoadOptions { max_record_bytes: max_record_mib.saturating_mul(1 << 20), ..LoadOptions::default() };
        let format: Format = choice("format", format)?;
        let doc_order: DocOrder = choice("doc_order", doc_order)?;
        let bm25 = Bm25Params::default().over(k1, b).unwrap_or_default();
        bm25.validate().or_raise()?;
        let options = EncoderOptions { model: dense.clone(), runtime: ort_lib.clone(), workers: encoder_workers, batch_size, device: choice("device", device)?, ..EncoderOptions::default() };
        let roots = model_roots(py);
        let reporter = PyProgress::from_arg(progress)?;
        let result = py.detach(|| -> quantir::Result<()> {
            check_target(&index)?;
            let encoder = options.encoder(None, &roots)?;
            let dense = encoder.as_ref().map(|encoder| DenseConfig {
                encoder,
                dtype: if f16 { VectorDtype::F16 } else { VectorDtype::F32 },
                hnsw: hnsw.then_some(HnswParams { max_connections: hnsw_m, ef_construction: hnsw_ef_construction }),
            });
            build_from_path(&corpus, format, &load, &index, &IndexConfig { bm25, threads, dense, doc_order }, &reporter)?;
            Ok(())
        });
        reporter.finish_with(result.or_raise())?;
        let kwargs = PyDict::new(py);
        kwargs.set_item("dense", dense)?;
        kwargs.set_item("ort_lib", ort_lib)?;
        kwargs.set_item("encoder_workers", encoder_workers)?;
        kwargs.set_item("batch_size", batch_size)?;
        kwargs.set_item("device", device)?;
        cls.call((index,), Some(&kwargs))
    }

    /// The index folder.
    #[getter]
    fn path(&self) -> PathBuf {
        self.live.path().to_path_buf()
    }

    /// Documents in the index (the generation served now).
    #[getter]
    fn num_docs(&self, py: Python<'_>) -> u64 {
        py.detach(|| self.live.get()).num_docs()
    }

    /// Whether the index holds dense vectors.
    #[getter]
    fn has_vectors(&self, py: Python<'_>) -> bool {
        py.detach(|| self.live.get()).manifest().dense.is_some()
    }

    /// The generation served now: it moves forward when the folder is rebuilt.
    #[getter]
    fn generation(&self, py: Python<'_>) -> u64 {
        py.detach(|| self.live.get()).generation()
    }

    /// The fingerprint of what made the generation served now (its corpus's bytes and build
    /// settings): two indexes with the same fingerprint answer alike.
    #[getter]
    fn fingerprint(&self, py: Python<'_>) -> String {
        py.detach(|| self.live.get()).fingerprint().to_string()
    }

    /// The generation's manifest as a dict (versions, BM25 parameters, counts, files, provenance).
    #[getter]
    fn manifest<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let json = serde_json::to_string(py.detach(|| self.live.get()).manifest()).expect("manifest serialises");
        py.import("json")?.call_method1("loads", (json,))
    }

    /// Opens the generation the folder's CURRENT names now and serves it; raises when it cannot
    /// be opened (every call also picks a new generation up by itself, keeping the one held when
    /// the new one cannot be opened). Returns the generation served.
    fn reload(&self, py: Python<'_>) -> PyResult<u64> {
        Ok(py.detach(|| self.live.reload()).or_raise()?.generation())
    }

    /// Adds documents to the index, or replaces those whose id it holds: `docs` is a path (a
    /// quantir JSONL file, a BEIR folder or a QuanTemp++ corpus.json, read as `quantir add
    /// --corpus` reads it) or a list of dicts with "id" and "text" ("title", "date", "url"
    /// optional). A document the index holds as given is left as it is. One new generation,
    /// equal to a rebuild of the final collection; an index with vectors encodes only the new
    /// and replaced passages. Returns what the update did (added, replaced, unchanged, deleted,
    /// documents, generation, committed, segments, ...), as `quantir add --json` prints it.
    #[pyo3(signature = (docs, *, format="auto", merge_factor=MergePolicy::default().factor, max_record_mib=quantir::io::DEFAULT_MAX_RECORD_BYTES >> 20, progress=None))]
    fn add<'py>(&self, py: Python<'py>, docs: &Bound<'py, PyAny>, format: &str, merge_factor: usize, max_record_mib: usize, progress: Option<&Bound<'_, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
        let format: Format = choice("format", format)?;
        let docs = crate::convert::documents(docs)?;
        let index = py.detach(|| self.live.get());
        let encoder = match index.manifest().dense {
            Some(_) => self.encoder(py, &index)?,
            None => None,
        };
        drop(index);
        let config = UpdateConfig { encoder: encoder.as_deref(), merge: MergePolicy { factor: merge_factor, ..MergePolicy::default() }, threads: 0 };
        let load = LoadOptions { max_record_bytes: max_record_mib.saturating_mul(1 << 20), ..LoadOptions::default() };
        let reporter = PyProgress::from_arg(progress)?;
        let path = self.live.path().to_path_buf();
        let result = py.detach(|| match &docs {
            DocumentsArg::Path(corpus) => add_from_path(corpus, format, &load, &path, &config, &reporter).map(|(summary, _)| summary),
            DocumentsArg::Memory(corpus) => update(&path, corpus, std::path::Path::new("documents given in Python"), &config, &reporter),
        });
        let summary = reporter.finish_with(result.or_raise())?;
        self.summary_to_py(py, &summary)
    }

    /// Deletes the documents `ids` (a list of str or int) from the index: one new generation,
    /// equal to a rebuild without them. Ids the index does not hold are counted in
    /// "not_found". Returns what the update did, as `add` does.
    #[pyo3(signature = (ids, *, merge_factor=MergePolicy::default().factor, progress=None))]
    fn delete<'py>(&self, py: Python<'py>, ids: &Bound<'py, PyAny>, merge_factor: usize, progress: Option<&Bound<'_, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
        if ids.is_instance_of::<PyString>() {
            return Err(pyo3::exceptions::PyTypeError::new_err("ids: expected a list of ids, found a str (write [id] for one)"));
        }
        let ids: Vec<String> = ids.try_iter()?.enumerate().map(|(i, id)| crate::convert::id_text(&format!("ids[{i}]"), &id?)).collect::<PyResult<_>>()?;
        let config = UpdateConfig { encoder: None, merge: MergePolicy { factor: merge_factor, ..MergePolicy::default() }, threads: 0 };
        let reporter = PyProgress::from_arg(progress)?;
        let path = self.live.path().to_path_buf();
        let result = py.detach(|| delete(&path, &ids, &config, &reporter));
        let summary = reporter.finish_with(result.or_raise())?;
        self.summary_to_py(py, &summary)
    }

    /// Rewrites every segment into a build's layout (deleted copies gone, one segment per
    /// writer thread): `quantir compact`. Returns what it did, as `add` does.
    #[pyo3(signature = (*, threads=0, progress=None))]
    fn compact<'py>(&self, py: Python<'py>, threads: usize, progress: Option<&Bound<'_, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
        let config = UpdateConfig { encoder: None, merge: MergePolicy::default(), threads };
        let reporter = PyProgress::from_arg(progress)?;
        let path = self.live.path().to_path_buf();
        let result = py.detach(|| compact(&path, &config, &reporter));
        let summary = reporter.finish_with(result.or_raise())?;
        self.summary_to_py(py, &summary)
    }

    fn __len__(&self, py: Python<'_>) -> usize {
        self.num_docs(py) as usize
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let index = py.detach(|| self.live.get());
        format!("Index({:?}, num_docs={}, generation={}{})", self.live.path().display().to_string(), index.num_docs(), index.generation(), if index.manifest().dense.is_some() { ", vectors" } else { "" })
    }

    /// The top `k` documents for `query` by BM25 among those published strictly before `before`
    /// (a `str` such as "2023-08-29", "2023-08" or "2023", a `datetime.date` or a
    /// `datetime.datetime`); undated documents are left out under a cutoff unless
    /// `undated="include"`. Exact: the top `k` of the eligible documents, never a filtered top `k`.
    /// `retriever="dense"` or `"hybrid"` (an index with vectors; `ann`, `ef` as in `run`) runs the
    /// query as a claim made on `before`'s date, as `quantir search --retriever` does.
    #[pyo3(signature = (query, **settings))]
    fn search(&self, py: Python<'_>, query: &str, settings: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<Hit>> {
        let settings = search_settings(settings)?;
        let index = py.detach(|| self.live.get());
        let config = settings.run_config(index.manifest().bm25);
        let encoder = if settings.needs_encoder() { self.encoder(py, &index)? } else { None };
        let cutoff = Cutoff { before: settings.before, undated: settings.undated };
        let evidence = py.detach(|| search_query(&*index, query, &cutoff, &config, encoder.as_deref())).or_raise()?;
        Ok(evidence.into_iter().map(Hit::from).collect())
    }

    /// Runs a batch of claims as `quantir run` does, each cut off at its own date, on all cores
    /// (`threads`), and returns `{claim id: {doc id: score}}` in rank order — the shape
    /// pytrec_eval and ranx read. `claims` is a path, a list of dicts (`id`, `text`, `date`), a
    /// list of strings or a DataFrame. `plan` is a planner's name as `--plan` writes it or a
    /// callable (`quantir.planning`); the other settings (`**settings`) have the CLI flags' names
    /// without dashes and their defaults (`quantir::engine::RunSettings`): `k`, `depth`,
    /// `fusion`, `retriever`, `before`, `feedback="rm3"`, `mmr=True`, ….
    #[pyo3(signature = (claims, *, plan=None, llm_url=None, llm_model=None, llm_key=None, format="auto", progress=None, **settings))]
    #[allow(clippy::too_many_arguments)]
    fn run<'py>(
        &self,
        py: Python<'py>,
        claims: &Bound<'py, PyAny>,
        plan: Option<&Bound<'py, PyAny>>,
        llm_url: Option<String>,
        llm_model: Option<String>,
        llm_key: Option<String>,
        format: &str,
        progress: Option<&Bound<'_, PyAny>>,
        settings: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        // The whole run is answered from one generation.
        let index = py.detach(|| self.live.get());
        let setup = RunSetup::new(claims, plan, settings, index.clone(), index.manifest().bm25, LlmConfig::from_env(llm_url, llm_model, llm_key), format, |need| match need {
            EncoderNeed::No => Ok(None),
            EncoderNeed::Needed => self.encoder(py, &index),
            EncoderNeed::IfVectors => if index.manifest().dense.is_some() { self.encoder(py, &index) } else { Ok(None) },
        })?;
        let reporter = PyProgress::from_arg(progress)?;
        let result = py.detach(|| run_ranked(&index, &setup.claims, &setup.request(), &reporter));
        let (lists, _, _) = reporter.finish_with(result.or_raise())?;
        self.hits_to_py(py, &index, &lists)
    }
}

/// The settings `search` takes (`Index.search`, `OpenSearchIndex.search`), over `k` 10.
pub(crate) fn search_settings(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<RunSettings> {
    const SEARCH: [&str; 8] = ["before", "k", "undated", "k1", "b", "retriever", "ann", "ef"];
    run_settings(kwargs, RunSettings { k: quantir::ranges::DEFAULT_SEARCH_K, ..RunSettings::DEFAULT }, Some(&SEARCH))
}

/// Whether a run loads the query encoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EncoderNeed {
    /// BM25 only.
    No,
    /// The retriever or MMR encodes queries.
    Needed,
    /// A Python planner may search by the dense or hybrid retriever: loaded when the index has
    /// vectors (without them, such a search is refused as a dense run is).
    IfVectors,
}

/// Everything a run needs, from the keyword arguments `Index.run` and `OpenSearchIndex.run`
/// share (the CLI flags' names and defaults): parsed and checked in one place.
pub(crate) struct RunSetup {
    pub claims: Vec<quantir::corpus::Claim>,
    pub planner: Box<dyn quantir::plan::Planner>,
    pub config: RunConfig,
    pub plan_config: PlanRunConfig,
    /// The query encoder, when the retriever or MMR needs one.
    pub encoder: Option<Arc<Encoder>>,
}

impl RunSetup {
    /// The engine's request for this run.
    pub(crate) fn request(&self) -> RunRequest<'_> {
        RunRequest { planner: self.planner.as_ref(), encoder: self.encoder.as_deref(), config: &self.config, plan: &self.plan_config, explain: false }
    }

    /// `plan` as `Index.run` takes it, `settings` its keyword arguments over the defaults, BM25's
    /// `k1` and `b` over `bm25` (the index's); `encoder(need)` gives the query encoder as `need`
    /// says.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new<'py>(
        claims: &Bound<'py, PyAny>,
        plan: Option<&Bound<'py, PyAny>>,
        settings: Option<&Bound<'py, PyDict>>,
        backend: Arc<dyn Backend>,
        bm25: Bm25Params,
        llm: Option<LlmConfig>,
        format: &str,
        encoder: impl FnOnce(EncoderNeed) -> PyResult<Option<Arc<Encoder>>>,
    ) -> PyResult<RunSetup> {
        let claims_list = crate::convert::claims(claims, choice("format", format)?)?;
        let plan = PlanArg::from_arg(plan)?;
        let mut settings = run_settings(settings, RunSettings::DEFAULT, None)?;
        if let PlanArg::Spec(spec) = &plan {
            settings.plan = spec.clone();
        }
        let run_needs = settings.needs_encoder();
        // A Python planner of a BM25 run may still search by the dense retriever: the encoder is
        // loaded for it where the index has vectors, and a failure to load it is its search's
        // error, raised only if it searches so.
        let (encoder, planner_encoder) = match (&plan, run_needs) {
            (PlanArg::Callable(_), false) => (None, encoder(EncoderNeed::IfVectors).map_err(|e| e.to_string())),
            _ => {
                let loaded = encoder(if run_needs { EncoderNeed::Needed } else { EncoderNeed::No })?;
                (loaded.clone(), Ok(loaded))
            }
        };
        let config = settings.run_config(bm25);
        let planner = match plan {
            PlanArg::Spec(_) => settings.planner(llm, encoder.clone()).or_raise()?,
            PlanArg::Callable(callable) => {
                let queries = plan_in_python(claims.py(), &callable, &claims_list, &config, backend, planner_encoder)?;
                with_mmr(Box::new(Listed { queries, origin: crate::planning::ORIGIN }), settings.mmr(), encoder.clone()).or_raise()?
            }
        };
        Ok(RunSetup { claims: claims_list, planner, config, plan_config: settings.plan_run_config(), encoder })
    }
}
