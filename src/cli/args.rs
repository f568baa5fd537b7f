//! Argument groups shared by several subcommands.

use clap::Args;

use quantir::corpus::PubDate;
use std::path::PathBuf;
use std::time::Duration;

use quantir::eval::{Completeness, Measure, MeasureList, Settings};
use quantir::fuse::{ConstantPolicy, FusionConfig, Method, Norm};
use quantir::llm::LlmConfig;
use quantir::plan::{planner_for, MmrConfig, MmrSimilarity, PlanSpec, Planner};
use quantir::engine::RunSettings;
use quantir::index::Bm25Params;
use quantir::retrieve::UndatedPolicy;

/// `--k1` / `--b`.
#[derive(Debug, Args)]
pub struct Bm25Args {
    /// BM25 k1 (term-frequency saturation) [default: the index's, 0.9 when building]
    #[arg(long, value_name = "F", allow_hyphen_values = true)]
    pub k1: Option<f32>,
    /// BM25 b (length normalisation, 0..1) [default: the index's, 0.4 when building]
    #[arg(long, value_name = "F", allow_hyphen_values = true)]
    pub b: Option<f32>,
}

impl Bm25Args {
    /// Both values over `base`, or `None` when neither flag was given.
    pub fn over(&self, base: Bm25Params) -> Option<Bm25Params> {
        base.over(self.k1, self.b)
    }
}

/// `--before` / `--undated`.
#[derive(Debug, Args)]
pub struct CutoffArgs {
    /// Only evidence published strictly before this date (YYYY-MM-DD; also YYYY-MM or YYYY)
    #[arg(long, value_name = "DATE", value_parser = parse_date)]
    pub before: Option<PubDate>,
    /// Undated documents under a cutoff: exclude (cannot be shown to predate the claim) or
    /// include (as the QuanTemp++ reference code does)
    #[arg(long, value_enum, default_value_t = RunSettings::DEFAULT.undated)]
    pub undated: UndatedPolicy,
}

fn parse_date(text: &str) -> Result<PubDate, String> {
    text.parse()
}

/// A count flag's parser: whole numbers from `lo` to `hi`, checked when the flags are read (the
/// range is in each flag's help).
pub fn count(lo: u64, hi: u64) -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::<usize>::new().range(lo..=hi)
}

/// The parser of a flag whose range the library defines ([`quantir::ranges`]): the same range
/// the server and the Python package check.
pub fn ranged(range: quantir::ranges::Count) -> clap::builder::RangedU64ValueParser<usize> {
    count(range.min, range.max)
}

/// `--llm-url`: checked when the flags are read, so a malformed URL is refused before any
/// request, never retried.
fn llm_url(text: &str) -> Result<String, String> {
    quantir::llm::check_url(text).map(|()| text.to_string()).map_err(|e| e.to_string())
}

/// `--max-record-mib`.
#[derive(Debug, Args)]
pub struct RecordArgs {
    /// The longest record of the corpus read, in MiB, 1 to 4095: a longer one is an error naming
    /// where it starts (an input that never ends a record costs this much memory and no more)
    #[arg(long, value_name = "MIB", default_value_t = quantir::io::DEFAULT_MAX_RECORD_BYTES >> 20, value_parser = ranged(quantir::ranges::MAX_RECORD_MIB))]
    pub max_record_mib: usize,
}

impl RecordArgs {
    /// How the corpus is read.
    pub fn options(&self) -> quantir::corpus::LoadOptions {
        quantir::corpus::LoadOptions { max_record_bytes: self.max_record_mib << 20, ..Default::default() }
    }
}

/// `--threads`.
#[derive(Debug, Args)]
pub struct ThreadsArgs {
    /// Worker threads, 0 to 1024 (0 = one per core; `index`: also at most one per 50,000 documents)
    #[arg(long, default_value_t = RunSettings::DEFAULT.threads, value_name = "N", value_parser = ranged(quantir::ranges::THREADS))]
    pub threads: usize,
}

/// `--norm`, `--constant`, `--rrf-k`, `--weights`: how ranked lists are fused.
#[derive(Debug, Args)]
pub struct FusionArgs {
    /// Per-list normalisation [default: min-max; combmax-norm is always min-max; rrf reads ranks only]
    #[arg(long, value_enum)]
    pub norm: Option<Norm>,
    /// What min-max gives a list of one result or equal scores: zero (ranx), one (Pyserini), raw
    /// (QuanTemp++ reference code)
    #[arg(long, value_enum, default_value_t = RunSettings::DEFAULT.constant)]
    pub constant: ConstantPolicy,
    /// RRF's k
    #[arg(long, default_value_t = RunSettings::DEFAULT.rrf_k, allow_hyphen_values = true)]
    pub rrf_k: f64,
    /// Weights of wsum, one per list, comma-separated [default: 1 each]
    #[arg(long, value_delimiter = ',', value_name = "W,W,...", allow_hyphen_values = true)]
    pub weights: Vec<f64>,
}

impl FusionArgs {
    /// The library configuration for `method`.
    pub fn config(&self, method: Method) -> FusionConfig {
        FusionConfig { method, norm: self.norm, constant: self.constant, rrf_k: self.rrf_k, weights: self.weights.clone() }
    }
}

/// `--plan` and what it needs: MMR filtering and the LLM connection.
#[derive(Debug, Args)]
pub struct PlanArgs {
    /// Planner: claim-only, numeric, iterative (the claim, then the claim rewritten from the evidence it finds before its date), file:PATH[:claimdecomp|pgmfc|fcdecomp], llm:fcdecomp|claimdecomp|pgmfc|iterative
    #[arg(long, default_value_t = RunSettings::DEFAULT.plan, value_parser = parse_plan)]
    pub plan: PlanSpec,
    /// Filter sub-queries with MMR (relevance to the claim against redundancy)
    #[arg(long)]
    pub mmr: bool,
    /// MMR's β (weight of relevance to the claim, 0 to 1)
    #[arg(long, default_value_t = RunSettings::DEFAULT.mmr_beta, requires = "mmr", value_parser = unit_interval, allow_hyphen_values = true)]
    pub mmr_beta: f64,
    /// MMR's threshold on min-max normalised scores (0 to 1)
    #[arg(long, default_value_t = RunSettings::DEFAULT.mmr_threshold, requires = "mmr", value_parser = unit_interval, allow_hyphen_values = true)]
    pub mmr_threshold: f64,
    /// MMR's similarity: lexical, or dense (the encoder's cosine; needs --dense or an index with vectors)
    #[arg(long, value_enum, default_value_t = RunSettings::DEFAULT.mmr_similarity, requires = "mmr")]
    pub mmr_similarity: MmrSimilarity,
    #[command(flatten)]
    pub llm: LlmArgs,
}

/// The OpenAI-compatible API for `llm:` planners and verifiers.
#[derive(Debug, Args)]
pub struct LlmArgs {
    /// Base URL of an OpenAI-compatible API (for llm: plans and verifiers), e.g. http://127.0.0.1:8000/v1
    #[arg(long, env = quantir::llm::URL_VAR, value_name = "URL", value_parser = llm_url)]
    pub llm_url: Option<String>,
    /// Model name for llm: plans (llm:MODEL verifiers name theirs)
    #[arg(long, env = quantir::llm::MODEL_VAR, value_name = "MODEL")]
    pub llm_model: Option<String>,
    /// API key
    #[arg(long, env = quantir::llm::KEY_VAR, value_name = "KEY", hide_env_values = true)]
    pub llm_key: Option<String>,
    /// Seconds allowed per LLM request, its retries included (an endpoint that never answers costs
    /// this long), 1 to 3600
    #[arg(long, default_value_t = 60, value_parser = ranged(quantir::ranges::LLM_TIMEOUT))]
    pub llm_timeout: usize,
    /// Retries after a failed LLM request (network error, 429, 5xx), with backoff, within
    /// --llm-timeout, 0 to 20
    #[arg(long, default_value_t = 3, value_parser = ranged(quantir::ranges::LLM_RETRIES))]
    pub llm_retries: usize,
    /// Claims sent to the LLM at once, 1 to 256
    #[arg(long, default_value_t = 4, value_parser = ranged(quantir::ranges::LLM_CONCURRENCY))]
    pub llm_concurrency: usize,
    /// Folder of cached LLM answers (a rerun makes no calls)
    #[arg(long, default_value = ".quantir/llm-cache", value_name = "DIR")]
    pub llm_cache: PathBuf,
}

impl LlmArgs {
    /// The connection settings, when a URL and a model (`model` overriding `--llm-model`) are known.
    pub fn config(&self, model: Option<&str>) -> Option<LlmConfig> {
        let model = model.map(str::to_string).or_else(|| self.llm_model.clone())?;
        Some(LlmConfig {
            api_key: self.llm_key.clone(),
            timeout: Duration::from_secs(self.llm_timeout as u64),
            retries: self.llm_retries as u32,
            concurrency: self.llm_concurrency,
            cache_dir: self.llm_cache.clone(),
            ..LlmConfig::new(self.llm_url.clone()?, model)
        })
    }
}

/// A number from 0 to 1 (NaN and infinities refused).
fn unit_interval(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(format!("expected a number from 0 to 1, found {text:?}")),
    }
}

fn parse_plan(text: &str) -> Result<PlanSpec, String> {
    text.parse()
}

impl PlanArgs {
    /// Whether the planner needs the dense encoder.
    pub fn needs_encoder(&self) -> bool {
        self.mmr().is_some_and(|m| m.needs_encoder())
    }

    /// MMR's settings when `--mmr` is on.
    pub fn mmr(&self) -> Option<MmrConfig> {
        MmrConfig::switched(self.mmr, self.mmr_beta, self.mmr_threshold, self.mmr_similarity)
    }

    /// The planner these flags describe; `encoder` serves dense MMR similarity.
    pub fn planner(&self, encoder: Option<std::sync::Arc<quantir::index::dense::Encoder>>) -> quantir::Result<Box<dyn Planner>> {
        planner_for(&self.plan, self.mmr(), self.llm.config(None), encoder)
    }
}

/// Which retriever answers each query, and how dense search runs: `--retriever`, `--ann`, `--ef`.
#[derive(Debug, Args)]
pub struct RetrievalArgs {
    /// Retrieval per (sub-)query: bm25, dense, or hybrid (both lists, fused); dense and hybrid
    /// need an index with vectors
    #[arg(long, value_enum, default_value_t = RunSettings::DEFAULT.retriever)]
    pub retriever: quantir::retrieve::Retriever,
    /// Dense search: exact, or hnsw (falls back to exact when the cutoff keeps few documents)
    #[arg(long, value_enum, default_value_t = RunSettings::DEFAULT.ann)]
    pub ann: quantir::retrieve::Ann,
    /// Candidates explored by an HNSW search, 1 to 100000
    #[arg(long, default_value_t = RunSettings::DEFAULT.ef, value_parser = ranged(quantir::ranges::EF))]
    pub ef: usize,
}

/// The dense encoder: `--dense`, `--ort-lib` and how the model runs.
#[derive(Debug, Args)]
pub struct DenseArgs {
    /// Encoder model folder (with quantir-encoder.json), e.g. models/all-minilm-l6-v2 [default:
    /// the one the index was built with, found by name in $QUANTIR_MODELS, the per-user data
    /// folder and the project's models/]
    #[arg(long, value_name = "DIR")]
    pub dense: Option<PathBuf>,
    /// ONNX Runtime library [default: onnxruntime/libonnxruntime.so in $QUANTIR_MODELS, the
    /// per-user data folder or the project's models/]
    #[arg(long, env = "ORT_DYLIB_PATH", value_name = "PATH")]
    pub ort_lib: Option<PathBuf>,
    /// Encoder workers: ONNX Runtime sessions of one thread each, working on different batches,
    /// 1 to 256
    #[arg(long, default_value_t = quantir::index::dense::models::EncoderOptions::default().workers, value_parser = ranged(quantir::ranges::ENCODER_WORKERS))]
    pub encoder_workers: usize,
    /// Texts per model call, 1 to 4096 (small batches of length-sorted texts pad least: 4 was
    /// fastest for all-MiniLM-L6-v2 int8 on 2 cores, 103 passages/s against 98 at 8 and 81 at 32)
    #[arg(long, default_value_t = quantir::index::dense::models::EncoderOptions::default().batch_size, value_parser = ranged(quantir::ranges::BATCH_SIZE))]
    pub batch_size: usize,
    /// Tokens per text, 2 to 8192 (room for the model's start and end tokens) [default: the model
    /// folder's max_length]
    #[arg(long, value_parser = ranged(quantir::ranges::MAX_LENGTH))]
    pub max_length: Option<usize>,
    /// Pooling [default: the model folder's]
    #[arg(long, value_enum)]
    pub pooling: Option<quantir::index::dense::Pooling>,
    /// Where the encoder runs: cpu, cuda (an NVIDIA GPU through ONNX Runtime's CUDA provider:
    /// needs the GPU runtime, scripts/setup_gpu.sh, named with --ort-lib; an error without a GPU)
    /// or auto (cuda where it works, else cpu). On a GPU, larger batches pay: --batch-size 256
    /// --encoder-workers 1
    #[arg(long, value_enum, default_value_t = quantir::index::dense::Device::Cpu, env = "QUANTIR_DEVICE")]
    pub device: quantir::index::dense::Device,
}

impl DenseArgs {
    /// The library's options these flags give.
    pub fn options(&self) -> quantir::index::dense::models::EncoderOptions {
        quantir::index::dense::models::EncoderOptions {
            model: self.dense.clone(),
            runtime: self.ort_lib.clone(),
            workers: self.encoder_workers,
            batch_size: self.batch_size,
            max_length: self.max_length,
            pooling: self.pooling,
            device: self.device,
        }
    }

    /// Loads the encoder from `--dense`, or from `fallback` (a folder an index or a verifier
    /// records, looked for by name where it is not found as recorded).
    pub fn encoder(&self, fallback: Option<&std::path::Path>) -> quantir::Result<Option<quantir::index::dense::Encoder>> {
        let encoder = self.options().encoder(fallback, &super::models::roots())?;
        if let Some(why) = encoder.as_ref().and_then(|e| e.fallback()) {
            eprintln!("encoding on the CPU: --device auto found no usable GPU ({why})");
        }
        Ok(encoder)
    }
}

/// Where an index lives.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Backend {
    /// A tantivy folder on this machine (--index DIR).
    #[default]
    Embedded,
    /// An OpenSearch cluster (--opensearch-url, --opensearch-index).
    Opensearch,
}

/// `--backend` and the OpenSearch connection, shared by `index`, `search` and `run`.
#[derive(Debug, Args)]
pub struct BackendArgs {
    /// Where the index lives: embedded (a folder, --index) or opensearch (a cluster)
    #[arg(long, value_enum, default_value_t = Backend::Embedded, env = "QUANTIR_BACKEND")]
    pub backend: Backend,
    /// The cluster's nodes, comma-separated (requests go round-robin; a retry goes to the next)
    #[arg(long, value_name = "URLS", default_value = "http://127.0.0.1:9200", env = "QUANTIR_OPENSEARCH_URL")]
    pub opensearch_url: String,
    /// The index name on the cluster (an alias quantir manages over one physical index)
    #[arg(long, value_name = "NAME", default_value = "quantir", env = "QUANTIR_OPENSEARCH_INDEX")]
    pub opensearch_index: String,
    /// Basic-authentication user
    #[arg(long, value_name = "USER", env = "QUANTIR_OPENSEARCH_USER")]
    pub opensearch_user: Option<String>,
    /// Basic-authentication password (prefer the environment variable to the flag)
    #[arg(long, value_name = "PASSWORD", env = "QUANTIR_OPENSEARCH_PASSWORD", hide_env_values = true)]
    pub opensearch_password: Option<String>,
    /// PEM file of the certificate authority that signed the nodes' certificates (https)
    #[arg(long, value_name = "PEM", env = "QUANTIR_OPENSEARCH_CA")]
    pub opensearch_ca: Option<PathBuf>,
    /// Accept any TLS certificate (self-signed test clusters only)
    #[arg(long)]
    pub opensearch_insecure: bool,
    /// Requests in flight at once (1 to 64)
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u64).range(1..=64))]
    pub opensearch_concurrency: u64,
}

impl BackendArgs {
    /// The cluster's configuration, when the backend is OpenSearch; `index` is the command's
    /// `--index`, which names a folder and has no meaning on a cluster.
    pub fn cluster(&self, index: &Option<PathBuf>) -> anyhow::Result<Option<quantir::opensearch::ClusterConfig>> {
        if self.backend != Backend::Opensearch {
            return Ok(None);
        }
        if let Some(folder) = index {
            anyhow::bail!("--index {} names a folder, which --backend opensearch does not use\n\nhint: name the index on the cluster with --opensearch-index NAME and leave out --index", folder.display());
        }
        let urls = quantir::opensearch::ClusterConfig::parse_urls(&self.opensearch_url)?;
        let mut config = quantir::opensearch::ClusterConfig::new(urls, &self.opensearch_index);
        config.user = self.opensearch_user.clone();
        config.password = self.opensearch_password.clone();
        config.ca_certificate = self.opensearch_ca.clone();
        config.insecure = self.opensearch_insecure;
        config.concurrency = self.opensearch_concurrency as usize;
        Ok(Some(config))
    }

    /// The index folder an embedded command needs.
    pub fn folder<'a>(&self, index: &'a Option<PathBuf>) -> anyhow::Result<&'a PathBuf> {
        index.as_ref().ok_or_else(|| anyhow::anyhow!("--index DIR is required (or --backend opensearch to use a cluster)"))
    }

    /// Where the index these flags name lives.
    pub fn location(&self, index: &Option<PathBuf>) -> anyhow::Result<quantir::engine::Location> {
        Ok(match self.cluster(index)? {
            Some(config) => quantir::engine::Location::OpenSearch(config),
            None => quantir::engine::Location::Folder(self.folder(index)?.clone()),
        })
    }
}

/// What `eval` and `compare` measure and how they read a run: trec_eval's `-m`, `-c`, `-l`, `-M`.
#[derive(Debug, Args)]
pub struct MeasureArgs {
    /// Measures, trec_eval names, repeatable; a list shares one name (P.5,10) and a bare cutoff
    /// name takes trec_eval's cutoffs (P is P.5 to P.1000) [default: ndcg_cut.10 recall.10
    /// recall.100 recip_rank map]
    #[arg(short = 'm', long = "measure", value_name = "MEASURE")]
    measures: Vec<MeasureList>,
    /// Count judged queries missing from the run as empty rankings: 0, but for num_rel (trec_eval -c)
    #[arg(short = 'c', long)]
    complete: bool,
    /// The lowest grade that counts as relevant (trec_eval -l), from 1; nDCG's gains stay the grades
    #[arg(short = 'l', long, value_name = "GRADE", default_value_t = 1, value_parser = clap::value_parser!(i32).range(1..))]
    relevance_level: i32,
    /// Measure only the top N documents of each query (trec_eval -M), from 1 [default: all]
    #[arg(short = 'M', long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_docs: Option<u64>,
}

impl MeasureArgs {
    /// The measures asked for, each once, or the defaults.
    pub fn measures(&self) -> Vec<Measure> {
        MeasureList::flatten(&self.measures)
    }

    /// The evaluation settings these flags give.
    pub fn settings(&self) -> Settings {
        Settings {
            completeness: if self.complete { Completeness::Complete } else { Completeness::RunQueriesOnly },
            relevance_level: self.relevance_level,
            max_docs: self.max_docs.map_or(usize::MAX, |n| usize::try_from(n).unwrap_or(usize::MAX)),
        }
    }
}
