//! A BERT-family sentence encoder run through ONNX Runtime (`ort`, loaded at run time) with a
//! Hugging Face `tokenizer.json`.
//!
//! A model folder holds the ONNX file, `tokenizer.json` and `quantir-encoder.json` (see
//! [`EncoderConfig`]); `scripts/setup_models.sh` installs all-MiniLM-L6-v2 (int8) that way. The
//! model takes `input_ids`, `attention_mask` and (when it has one) `token_type_ids`, and returns
//! `last_hidden_state` `[batch, tokens, dim]`; the encoder pools it (masked mean, as
//! sentence-transformers and the Contriever code of QuanTemp++ do, or the `[CLS]` token) and
//! L2-normalises when asked, so inner product is cosine similarity.
//!
//! Speed: texts are sorted by length and batched, so a batch pads to similar lengths. A small model
//! on few cores runs faster as several single-threaded sessions working on different batches than
//! as one session splitting each operator across threads (measured here: 100 against 84
//! passages/s for all-MiniLM-L6-v2 int8 on 2 cores), so the encoder holds `workers` sessions of one
//! intra-op thread each, one worker thread per session: the cores are never oversubscribed.
//!
//! Device: the CPU, or an NVIDIA GPU through ONNX Runtime's CUDA execution provider
//! ([`Device`]). The CUDA provider is in the GPU build of ONNX Runtime only (`onnxruntime-gpu`
//! on PyPI, which `scripts/setup_gpu.sh` installs with NVIDIA's runtime wheels into
//! `onnxruntime-gpu/` beside the CPU runtime); the NVIDIA libraries it needs are loaded from the
//! `cuda/` folder beside that library before the provider is registered, so no
//! `LD_LIBRARY_PATH` is needed.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use ort::session::Session;
use ort::value::Tensor;

use crate::error::{Error, Result};

/// How token vectors become one vector.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Pooling {
    /// Mean over the real (unpadded) tokens.
    #[default]
    Mean,
    /// The first token (`[CLS]`).
    Cls,
}

/// Where the encoder's model runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Device {
    /// The CPU.
    #[default]
    Cpu,
    /// An NVIDIA GPU through ONNX Runtime's CUDA execution provider; an error where the runtime
    /// has no CUDA provider, its NVIDIA libraries do not load, or there is no GPU.
    Cuda,
    /// CUDA where it works, else the CPU ([`Encoder::device`] says which, and
    /// [`Encoder::fallback`] why not CUDA).
    Auto,
}

impl std::fmt::Display for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use clap::ValueEnum;
        f.write_str(self.to_possible_value().expect("no variant is skipped").get_name())
    }
}

/// `quantir-encoder.json`: how to run a model folder.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct EncoderConfig {
    /// Name recorded in index manifests.
    pub name: String,
    /// The ONNX file, relative to the folder.
    pub model: String,
    /// The tokenizer file, relative to the folder.
    #[serde(default = "default_tokenizer")]
    pub tokenizer: String,
    /// Pooling.
    #[serde(default)]
    pub pooling: Pooling,
    /// L2-normalise the pooled vector.
    #[serde(default = "yes")]
    pub normalize: bool,
    /// Tokens kept per text, overriding the tokenizer file's own truncation (all-MiniLM's says 128).
    #[serde(default = "default_max_length")]
    pub max_length: usize,
    /// Prepended to queries (e5-style models want `"query: "`).
    #[serde(default)]
    pub query_prefix: String,
    /// Prepended to passages.
    #[serde(default)]
    pub passage_prefix: String,
}

fn default_tokenizer() -> String {
    "tokenizer.json".into()
}
fn yes() -> bool {
    true
}
fn default_max_length() -> usize {
    128
}

impl EncoderConfig {
    /// A preset that encodes as the QuanTemp++ Contriever code does: masked mean pooling, L2
    /// normalisation, 512 tokens (for a `facebook/contriever` export, `scripts/export_onnx.sh`).
    pub fn contriever(model: &str) -> EncoderConfig {
        EncoderConfig { name: "contriever".into(), model: model.into(), tokenizer: default_tokenizer(), pooling: Pooling::Mean, normalize: true, max_length: 512, query_prefix: String::new(), passage_prefix: String::new() }
    }

    /// The sha256 of the model file in `dir`, hex: what an index records, so that queries are never
    /// encoded by another model of the same name.
    pub fn model_sha256(&self, dir: &Path) -> Result<String> {
        use sha2::Digest;
        let path = dir.join(&self.model);
        let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
        Ok(sha2::Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect())
    }

    /// Reads `dir/quantir-encoder.json`.
    pub fn read(dir: &Path) -> Result<EncoderConfig> {
        let path = dir.join("quantir-encoder.json");
        if !path.is_file() {
            return Err(Error::InvalidArgument {
                name: "dense",
                message: format!("{} has no quantir-encoder.json: not a model folder\n\nhint: run scripts/setup_models.sh and use --dense models/all-minilm-l6-v2", dir.display()),
            });
        }
        let text = crate::io::read_utf8(&path)?;
        serde_json::from_str(&text).map_err(|e| crate::io::json_error(&path, crate::error::Position { line: 1, column: Some(1) }, &e))
    }
}

/// Queries and passages may be encoded differently (prefixes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextKind {
    /// A search query.
    Query,
    /// A document.
    Passage,
}

/// The one ONNX Runtime environment of the process (ONNX Runtime allows only one).
static ENVIRONMENT: OnceLock<std::result::Result<ort::environment::Environment, String>> = OnceLock::new();

pub(crate) fn environment(runtime: &Path) -> Result<&'static ort::environment::Environment> {
    let env = ENVIRONMENT.get_or_init(|| {
        if !runtime.is_file() {
            return Err(format!("ONNX Runtime not found at {}\n\nhint: run scripts/setup_models.sh (it installs libonnxruntime.so from the onnxruntime wheel on PyPI), or name the library with --ort-lib or ORT_DYLIB_PATH", runtime.display()));
        }
        ort::init_from(runtime).map_err(|e| format!("{}: cannot load ONNX Runtime: {e}", runtime.display()))?.with_name("quantir").build().map_err(|e| e.to_string())
    });
    env.as_ref().map_err(|message| Error::InvalidArgument { name: "ort_lib", message: message.clone() })
}

/// `workers` sessions of `model`, one intra-op thread each, with the CUDA execution provider
/// registered (an error if it does not register) when `cuda`.
fn sessions(env: &ort::environment::Environment, model: &Path, workers: usize, cuda: bool) -> Result<Vec<Mutex<Session>>> {
    let ort_error = |e: ort::Error| Error::Model { path: model.to_path_buf(), what: "loading the model", message: e.to_string() };
    let mut sessions = Vec::new();
    for _ in 0..workers.max(1) {
        let mut builder = Session::builder(env).map_err(ort_error)?.with_intra_threads(1).map_err(|e| ort_error(e.into()))?.with_inter_threads(1).map_err(|e| ort_error(e.into()))?;
        if cuda {
            builder = builder.with_execution_providers([ort::ep::CUDA::default().build().error_on_failure()]).map_err(|e| ort_error(e.into()))?;
        }
        sessions.push(Mutex::new(builder.commit_from_file(model).map_err(ort_error)?));
    }
    Ok(sessions)
}

/// [`sessions`] on the GPU: the runtime must be a GPU build, NVIDIA's libraries (from the `cuda/`
/// folder beside it, where `scripts/setup_gpu.sh` puts them, or the system's) must load, and
/// CUDA must find a device. Each failure is [`Error::Accelerator`] with the runtime and the fix.
fn cuda_sessions(env: &ort::environment::Environment, model: &Path, runtime: &Path, workers: usize) -> Result<Vec<Mutex<Session>>> {
    use ort::ep::ExecutionProvider;
    let refuse = |why: String| Error::Accelerator { runtime: runtime.to_path_buf(), why };
    if !ort::ep::CUDA::is_available().map_err(|e| refuse(e.to_string()))? {
        return Err(refuse("it is a CPU build: it has no CUDA execution provider".into()));
    }
    let unloaded = runtime.parent().map(|p| p.join("cuda")).filter(|f| f.is_dir()).map(|f| preload_all(&f)).unwrap_or_default();
    sessions(env, model, workers, true).map_err(|e| match e {
        Error::Model { message, .. } => refuse(provider_failure(&message, &unloaded)),
        other => other,
    })
}

/// Why the CUDA provider did not start, in words: no driver, no device, or ONNX Runtime's own
/// message with the NVIDIA libraries that did not load.
fn provider_failure(message: &str, unloaded: &[String]) -> String {
    if message.contains("libcuda.so") {
        return "this machine has no NVIDIA GPU driver (libcuda.so.1 does not load): is there a GPU?".into();
    }
    if message.contains("no CUDA-capable device") {
        return "CUDA finds no GPU on this machine".into();
    }
    match unloaded {
        [] => format!("the CUDA execution provider did not start: {message}"),
        _ => format!("the CUDA execution provider did not start: {message} (of the NVIDIA libraries beside it, these did not load: {})", unloaded.join("; ")),
    }
}

/// Loads every shared library in `folder` (NVIDIA's CUDA and cuDNN libraries) once a process,
/// in whatever order lets each find the ones it needs already loaded: a library that fails is
/// tried again once another has loaded. Returns the errors of those that never load (one whose
/// only missing part is the GPU driver, on a machine without one), which matter only if the
/// provider then fails.
fn preload_all(folder: &Path) -> Vec<String> {
    static DONE: OnceLock<Vec<String>> = OnceLock::new();
    DONE.get_or_init(|| {
        let mut left: Vec<PathBuf> = match std::fs::read_dir(folder) {
            Ok(entries) => entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().contains(".so"))).collect(),
            Err(e) => return vec![format!("{}: {e}", folder.display())],
        };
        left.sort();
        loop {
            let before = left.len();
            let mut errors = Vec::new();
            left.retain(|path| match ort::util::preload_dylib(path) {
                Ok(()) => false,
                Err(e) => {
                    errors.push(format!("{}: {e:?}", path.file_name().unwrap_or_default().to_string_lossy()));
                    true
                }
            });
            if left.is_empty() || left.len() == before {
                return errors;
            }
        }
    })
    .clone()
}

/// A loaded encoder.
pub struct Encoder {
    config: EncoderConfig,
    dir: PathBuf,
    tokenizer: tokenizers::Tokenizer,
    sessions: Vec<Mutex<Session>>,
    has_token_types: bool,
    batch_size: usize,
    device: Device,
    fallback: Option<String>,
}

impl std::fmt::Debug for Encoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Encoder").field("config", &self.config).field("dir", &self.dir).finish()
    }
}

impl Encoder {
    /// Loads the model folder `dir` with ONNX Runtime from `runtime` (`libonnxruntime.so`), with
    /// `workers` sessions (module doc) and `batch_size` texts per model call, on `device`.
    pub fn open(dir: &Path, config: EncoderConfig, runtime: &Path, workers: usize, batch_size: usize, device: Device) -> Result<Encoder> {
        crate::ranges::ENCODER_WORKERS.check(workers as u64)?;
        crate::ranges::BATCH_SIZE.check(batch_size as u64)?;
        crate::ranges::MAX_LENGTH.check(config.max_length as u64)?;
        let env = environment(runtime)?;
        let model = dir.join(&config.model);
        let tokenizer_path = dir.join(&config.tokenizer);
        for path in [&model, &tokenizer_path] {
            if !path.is_file() {
                return Err(Error::InvalidArgument { name: "dense", message: format!("{} is missing\n\nhint: run scripts/setup_models.sh", path.display()) });
            }
        }
        let mut tokenizer = tokenizers::Tokenizer::from_file(&tokenizer_path)
            .map_err(|e| Error::Model { path: tokenizer_path.clone(), what: "loading the tokenizer", message: e.to_string() })?;
        tokenizer
            .with_truncation(Some(tokenizers::TruncationParams { max_length: config.max_length, ..Default::default() }))
            .map_err(|e| Error::InvalidArgument { name: "max_length", message: e.to_string() })?;
        tokenizer.with_padding(None);
        let (sessions, device, fallback) = match device {
            Device::Cpu => (sessions(env, &model, workers, false)?, Device::Cpu, None),
            Device::Cuda => (cuda_sessions(env, &model, runtime, workers)?, Device::Cuda, None),
            Device::Auto => match cuda_sessions(env, &model, runtime, workers) {
                Ok(sessions) => (sessions, Device::Cuda, None),
                Err(Error::Accelerator { why, .. }) => (sessions(env, &model, workers, false)?, Device::Cpu, Some(why)),
                Err(other) => return Err(other),
            },
        };
        let has_token_types = sessions[0].lock().expect("fresh session").inputs().iter().any(|i| i.name() == "token_type_ids");
        Ok(Encoder { config, dir: dir.to_path_buf(), tokenizer, sessions, has_token_types, batch_size: batch_size.max(1), device, fallback })
    }

    /// Where the model runs: [`Device::Cpu`] or [`Device::Cuda`] (never `Auto`).
    pub fn device(&self) -> Device {
        self.device
    }

    /// Why `--device auto` runs on the CPU: the error CUDA gave. None otherwise.
    pub fn fallback(&self) -> Option<&str> {
        self.fallback.as_deref()
    }

    /// The model folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The settings it runs with.
    pub fn config(&self) -> &EncoderConfig {
        &self.config
    }

    /// Encodes `texts`; returns `texts.len() × dim` values, row by row in the input order, and `dim`.
    pub fn encode(&self, texts: &[&str], kind: TextKind) -> Result<(Vec<f32>, usize)> {
        let prefix = match kind {
            TextKind::Query => &self.config.query_prefix,
            TextKind::Passage => &self.config.passage_prefix,
        };
        let prefixed: Vec<String> = texts.iter().map(|t| format!("{prefix}{t}")).collect();
        let encodings = self
            .tokenizer
            .encode_batch(prefixed.iter().map(|s| s.as_str()).collect::<Vec<_>>(), true)
            .map_err(|e| Error::Model { path: self.dir.clone(), what: "tokenizing", message: e.to_string() })?;
        // Batches of similar lengths pad less.
        let mut order: Vec<usize> = (0..encodings.len()).collect();
        order.sort_by_key(|&i| encodings[i].get_ids().len());
        let batches: Vec<&[usize]> = order.chunks(self.batch_size).collect();
        let next = std::sync::atomic::AtomicUsize::new(0);
        // Each worker's rows, with their positions in the input.
        type Rows = Vec<(usize, Vec<f32>)>;
        let results: Vec<Result<Rows>> = std::thread::scope(|scope| {
            let workers: Vec<_> = self
                .sessions
                .iter()
                .map(|session| {
                    let (batches, next, encodings) = (&batches, &next, &encodings);
                    scope.spawn(move || -> Result<Rows> {
                        let mut session = session.lock().expect("encoder session lock");
                        let mut rows = Vec::new();
                        loop {
                            let b = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            let Some(batch) = batches.get(b) else { return Ok(rows) };
                            rows.extend(self.run_batch(&mut session, batch, encodings)?);
                        }
                    })
                })
                .collect();
            workers.into_iter().map(|w| w.join().expect("encoder worker")).collect()
        });
        let mut rows: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
        for result in results {
            for (i, row) in result? {
                rows[i] = row;
            }
        }
        let dim = rows.first().map_or(0, Vec::len);
        Ok((rows.concat(), dim))
    }

    /// Runs one batch (indices into `encodings`) and returns each text's pooled vector.
    fn run_batch(&self, session: &mut Session, batch: &[usize], encodings: &[tokenizers::Encoding]) -> Result<Vec<(usize, Vec<f32>)>> {
        let width = batch.iter().map(|&i| encodings[i].get_ids().len()).max().unwrap_or(0).max(1);
        let n = batch.len();
        let mut ids = vec![0i64; n * width];
        let mut mask = vec![0i64; n * width];
        let mut types = vec![0i64; n * width];
        for (row, &i) in batch.iter().enumerate() {
            let e = &encodings[i];
            for (j, ((&id, &m), &t)) in e.get_ids().iter().zip(e.get_attention_mask()).zip(e.get_type_ids()).enumerate() {
                ids[row * width + j] = i64::from(id);
                mask[row * width + j] = i64::from(m);
                types[row * width + j] = i64::from(t);
            }
        }
        let shape = vec![n as i64, width as i64];
        let tensor = |data: Vec<i64>| Tensor::from_array((shape.clone(), data)).map_err(|e| self.error(e));
        let outputs = if self.has_token_types {
            session.run(ort::inputs!["input_ids" => tensor(ids)?, "attention_mask" => tensor(mask.clone())?, "token_type_ids" => tensor(types)?])
        } else {
            session.run(ort::inputs!["input_ids" => tensor(ids)?, "attention_mask" => tensor(mask.clone())?])
        }
        .map_err(|e| self.error(e))?;
        let (out_shape, hidden) = outputs[0].try_extract_tensor::<f32>().map_err(|e| self.error(e))?;
        let dim = *out_shape.last().unwrap_or(&0) as usize;
        Ok(batch
            .iter()
            .enumerate()
            .map(|(row, &i)| (i, self.pool(&hidden[row * width * dim..(row + 1) * width * dim], &mask[row * width..(row + 1) * width], dim)))
            .collect())
    }

    fn pool(&self, hidden: &[f32], mask: &[i64], dim: usize) -> Vec<f32> {
        let mut v = vec![0f32; dim];
        match self.config.pooling {
            Pooling::Cls => v.copy_from_slice(&hidden[..dim]),
            Pooling::Mean => {
                let mut count = 0f32;
                for (t, &m) in mask.iter().enumerate() {
                    if m != 0 {
                        count += 1.0;
                        for (x, h) in v.iter_mut().zip(&hidden[t * dim..(t + 1) * dim]) {
                            *x += h;
                        }
                    }
                }
                v.iter_mut().for_each(|x| *x /= count.max(1.0));
            }
        }
        if self.config.normalize {
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            if norm > 0.0 {
                v.iter_mut().for_each(|x| *x /= norm);
            }
        }
        v
    }

    fn error(&self, e: ort::Error) -> Error {
        Error::Model { path: self.dir.clone(), what: "running the model", message: e.to_string() }
    }
}
