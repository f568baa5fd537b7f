//! `quantir.OpenSearchIndex`: the OpenSearch backend from Python, with `Index`'s methods.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyType};

use quantir::corpus::{stream_corpus, Format, LoadOptions};
use quantir::index::dense::models::EncoderOptions;
use quantir::index::dense::Encoder;
use quantir::index::Bm25Params;
use quantir::engine::{search_query, Backend};
use quantir::opensearch::{Cluster, ClusterConfig, LoadConfig, RemoteIndex};
use quantir::retrieve::Cutoff;

use crate::convert::choice;
use crate::errors::OrRaise;
use crate::index::{at_least_one, model_roots, search_settings, EncoderNeed, Hit, RunSetup};
use crate::progress::PyProgress;

/// The connection settings both constructors take.
#[allow(clippy::too_many_arguments)]
fn cluster_config(urls: &Bound<'_, PyAny>, index: &str, user: Option<String>, password: Option<String>, ca_certificate: Option<PathBuf>, insecure: bool, concurrency: usize) -> PyResult<ClusterConfig> {
    let text = match urls.extract::<String>() {
        Ok(one) => one,
        Err(_) => urls.extract::<Vec<String>>().map_err(|_| pyo3::exceptions::PyTypeError::new_err("urls: expected a str (comma-separated) or a list of str"))?.join(","),
    };
    let mut config = ClusterConfig::new(ClusterConfig::parse_urls(&text).or_raise()?, index);
    config.user = user;
    config.password = password;
    config.ca_certificate = ca_certificate;
    config.insecure = insecure;
    config.concurrency = at_least_one("concurrency", concurrency)?;
    Ok(config)
}

/// A quantir index on an OpenSearch cluster: the same BM25 scores, exact cutoff, planners and
/// fusion as `Index`, served by the cluster; dense and hybrid retrieval when it was loaded with
/// vectors (`build(..., vectors_from=DIR)`). Open one with `OpenSearchIndex(urls, index)`, load one
/// with `OpenSearchIndex.build(corpus, urls, index)`.
#[pyclass(frozen, module = "quantir._quantir")]
pub struct OpenSearchIndex {
    remote: Arc<RemoteIndex>,
    /// Where the query encoder comes from (the model the index records, unless `dense` names one).
    options: EncoderOptions,
    /// The query encoder, loaded on the first dense or hybrid run.
    encoder: Mutex<Option<Option<Arc<Encoder>>>>,
}

impl OpenSearchIndex {
    /// The query encoder for the index's vectors (None for an index without them), loaded once.
    fn encoder(&self, py: Python<'_>) -> PyResult<Option<Arc<Encoder>>> {
        if let Some(held) = self.encoder.lock().unwrap_or_else(|e| e.into_inner()).clone() {
            return Ok(held);
        }
        let roots = model_roots(py);
        let loaded = py.detach(|| self.remote.encoder(&self.options, &roots)).or_raise()?.map(Arc::new);
        *self.encoder.lock().unwrap_or_else(|e| e.into_inner()) = Some(loaded.clone());
        Ok(loaded)
    }

    /// The query encoder for dense or hybrid retrieval (or dense MMR), an error without one.
    fn needed_encoder(&self, py: Python<'_>) -> PyResult<Arc<Encoder>> {
        self.encoder(py)?.ok_or_else(|| PyValueError::new_err("dense and hybrid retrieval and mmr_similarity=\"dense\" need the dense encoder: load the index with vectors (OpenSearchIndex.build(..., vectors_from=DIR)) or name a model with dense=DIR"))
    }
}

#[pymethods]
impl OpenSearchIndex {
    /// Connects to the cluster at `urls` (a comma-separated str or a list) and opens the quantir
    /// index `index` (an alias quantir manages). Raises `ConnectionError` when no node answers,
    /// `PermissionError` when the credentials are refused, `QuantirError` when the index is
    /// missing or was built by another analyzer version. `dense` names the query encoder's model
    /// folder (by default the one the index's vectors record) and `ort_lib` ONNX Runtime, as for
    /// `Index`.
    #[new]
    #[pyo3(signature = (urls, index="quantir", *, user=None, password=None, ca_certificate=None, insecure=false, concurrency=4, dense=None, ort_lib=None, encoder_workers=EncoderOptions::default().workers, batch_size=EncoderOptions::default().batch_size, device="cpu"))]
    #[allow(clippy::too_many_arguments)]
    fn new(py: Python<'_>, urls: &Bound<'_, PyAny>, index: &str, user: Option<String>, password: Option<String>, ca_certificate: Option<PathBuf>, insecure: bool, concurrency: usize, dense: Option<PathBuf>, ort_lib: Option<PathBuf>, encoder_workers: usize, batch_size: usize, device: &str) -> PyResult<Self> {
        let config = cluster_config(urls, index, user, password, ca_certificate, insecure, concurrency)?;
        let remote = py.detach(|| Cluster::connect(config).and_then(RemoteIndex::open)).or_raise()?;
        let options = EncoderOptions { model: dense, runtime: ort_lib, workers: encoder_workers, batch_size, device: choice("device", device)?, ..EncoderOptions::default() };
        Ok(OpenSearchIndex { remote: Arc::new(remote), options, encoder: Mutex::new(None) })
    }

    /// Loads `corpus` into the cluster as `quantir index --backend opensearch` does (BM25's `k1`
    /// and `b` fixed in the index settings; `shards` primaries with `replicas` each; `_bulk`
    /// requests of `batch` documents; with `vectors_from`, each document's vector from that
    /// embedded index of the same corpus, for dense and hybrid runs), resuming an interrupted load
    /// and moving the alias only once the new index is complete; then opens it.
    #[classmethod]
    #[pyo3(signature = (corpus, urls, index="quantir", *, format="auto", k1=None, b=None, shards=2, replicas=1, batch=500, vectors_from=None, user=None, password=None, ca_certificate=None, insecure=false, concurrency=4, progress=None))]
    #[allow(clippy::too_many_arguments)]
    fn build<'py>(
        cls: &Bound<'py, PyType>,
        corpus: PathBuf,
        urls: &Bound<'py, PyAny>,
        index: &str,
        format: &str,
        k1: Option<f32>,
        b: Option<f32>,
        shards: u32,
        replicas: u32,
        batch: usize,
        vectors_from: Option<PathBuf>,
        user: Option<String>,
        password: Option<String>,
        ca_certificate: Option<PathBuf>,
        insecure: bool,
        concurrency: usize,
        progress: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = cls.py();
        let format: Format = choice("format", format)?;
        let config = cluster_config(urls, index, user.clone(), password.clone(), ca_certificate.clone(), insecure, concurrency)?;
        let load = LoadConfig { bm25: Bm25Params::default().over(k1, b).unwrap_or_default(), shards, replicas, batch: at_least_one("batch", batch)?, ..LoadConfig::default() };
        let reporter = PyProgress::from_arg(progress)?;
        let result = py.detach(|| -> quantir::Result<()> {
            let documents = stream_corpus(&corpus, format, &LoadOptions::default(), &reporter)?;
            let cluster = Cluster::connect(config)?;
            let vectors = vectors_from.as_deref().map(quantir::index::Index::open).transpose()?;
            quantir::opensearch::build(&cluster, &documents, &corpus, &load, vectors.as_ref(), &reporter)?;
            Ok(())
        });
        reporter.finish_with(result.or_raise())?;
        let kwargs = PyDict::new(py);
        kwargs.set_item("user", user)?;
        kwargs.set_item("password", password)?;
        kwargs.set_item("ca_certificate", ca_certificate)?;
        kwargs.set_item("insecure", insecure)?;
        kwargs.set_item("concurrency", concurrency)?;
        cls.call((urls, index), Some(&kwargs))
    }

    /// The index name on the cluster.
    #[getter]
    fn name(&self) -> String {
        self.remote.cluster().config().index.clone()
    }

    /// Documents in the index.
    #[getter]
    fn num_docs(&self) -> u64 {
        self.remote.documents() as u64
    }

    /// The cluster's OpenSearch version.
    #[getter]
    fn version(&self) -> String {
        self.remote.cluster().version().to_string()
    }

    fn __len__(&self) -> usize {
        self.remote.documents()
    }

    fn __repr__(&self) -> String {
        format!("OpenSearchIndex({:?}, num_docs={}, opensearch={})", self.name(), self.num_docs(), self.version())
    }

    /// As `Index.search`: the top `k` among the documents published strictly before `before`.
    /// `k1` and `b` must be the index's own (on a cluster they are index settings).
    /// Dense and hybrid search (`retriever`, `ann`, `ef`) need an index loaded with vectors.
    #[pyo3(signature = (query, **settings))]
    fn search(&self, py: Python<'_>, query: &str, settings: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<Hit>> {
        let settings = search_settings(settings)?;
        let config = settings.run_config(self.remote.bm25());
        let encoder = if settings.needs_encoder() { Some(self.needed_encoder(py)?) } else { None };
        let cutoff = Cutoff { before: settings.before, undated: settings.undated };
        let evidence = py.detach(|| search_query(&*self.remote, query, &cutoff, &config, encoder.as_deref())).or_raise()?;
        Ok(evidence.into_iter().map(Hit::from).collect())
    }

    /// As `Index.run`, over the cluster: `{claim id: {doc id: score}}`, the same scores and
    /// order the embedded index gives. Dense and hybrid retrieval need an index loaded with
    /// vectors; feedback (`rm3`, `rocchio`) is the embedded index's only.
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
        let setup = RunSetup::new(claims, plan, settings, self.remote.clone(), self.remote.bm25(), quantir::llm::LlmConfig::from_env(llm_url, llm_model, llm_key), format, |need| match need {
            EncoderNeed::No => Ok(None),
            EncoderNeed::Needed => self.needed_encoder(py).map(Some),
            EncoderNeed::IfVectors => self.encoder(py),
        })?;
        let reporter = PyProgress::from_arg(progress)?;
        let result = py.detach(|| self.remote.run(&setup.claims, &setup.request(), &reporter).map(|output| output.lists.into_run()));
        let run = reporter.finish_with(result.or_raise())?;
        let out = PyDict::new(py);
        for list in run.queries {
            let docs = PyDict::new(py);
            for doc in list.docs {
                docs.set_item(doc.docid, doc.score)?;
            }
            out.set_item(list.qid, docs)?;
        }
        Ok(out)
    }
}
