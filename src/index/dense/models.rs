//! Where model folders and ONNX Runtime are found, from any working directory.
//!
//! The search order, for a model folder and for `libonnxruntime.so` alike:
//! 1. what the caller names (`--dense DIR`, `--ort-lib PATH`, `ORT_DYLIB_PATH`; in Python
//!    `dense=`, `ort_lib=`);
//! 2. `$QUANTIR_MODELS`, a folder of model folders and `onnxruntime/`;
//! 3. the per-user data folder, `$XDG_DATA_HOME/quantir/models` (else
//!    `~/.local/share/quantir/models`), where `scripts/setup_models.sh` installs;
//! 4. the project's `models/`: the one of the checkout the program was built in, then `./models`.
//!
//! An index records the folder its vectors were made with (its name is looked for in 2–4 when
//! the recorded path does not hold it from here) and the model file's sha256, checked on use.
//! The variables of steps 2–3 are read in one place, [`ModelEnv::of_process`]; each front end
//! adds only the file it was built into (the binary, the Python extension module) for step 4 and
//! gets the folders from [`ModelEnv::roots`], so the CLI and the Python package search alike.

use std::path::{Path, PathBuf};

use super::{Device, Encoder, EncoderConfig, Pooling};
use crate::error::{Error, Result};
use crate::index::Index;

/// The model folder used when a command needs an encoder and neither the caller nor an index
/// names one: the one `scripts/setup_models.sh` installs, looked for by name as any other.
pub const DEFAULT_MODEL: &str = "all-minilm-l6-v2";

/// What the search order reads from the environment ([`ModelEnv::of_process`]; tests build one).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelEnv {
    /// `$QUANTIR_MODELS`.
    pub quantir_models: Option<PathBuf>,
    /// `$XDG_DATA_HOME`.
    pub xdg_data_home: Option<PathBuf>,
    /// `$HOME`.
    pub home: Option<PathBuf>,
    /// A file inside the checkout the program was built in (the running binary, the Python
    /// extension module): its nearest ancestor with `models/README.md` and `Cargo.toml`.
    pub built_in: Option<PathBuf>,
}

impl ModelEnv {
    /// This process's variables (`QUANTIR_MODELS`, `XDG_DATA_HOME`, `HOME`; an empty one counts
    /// as unset), with `built_in` the file the front end was built into (the running binary, the
    /// Python extension module), which only the front end knows.
    pub fn of_process(built_in: Option<PathBuf>) -> ModelEnv {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        ModelEnv { quantir_models: var("QUANTIR_MODELS"), xdg_data_home: var("XDG_DATA_HOME"), home: var("HOME"), built_in }
    }

    /// The per-user data folder for models (step 3).
    pub fn user_models_dir(&self) -> Option<PathBuf> {
        let data = self.xdg_data_home.clone().or_else(|| self.home.as_ref().map(|h| h.join(".local/share")))?;
        Some(data.join("quantir/models"))
    }

    /// The folders searched after what the caller names (steps 2–4), in order, without repeats.
    pub fn roots(&self) -> Vec<PathBuf> {
        let mut roots: Vec<PathBuf> = self.quantir_models.clone().into_iter().collect();
        roots.extend(self.user_models_dir());
        if let Some(file) = &self.built_in {
            if let Some(project) = file.ancestors().skip(1).find(|a| a.join("models/README.md").is_file() && a.join("Cargo.toml").is_file()) {
                roots.push(project.join("models"));
            }
        }
        roots.push(PathBuf::from("models"));
        let mut unique = Vec::new();
        for root in roots {
            if !unique.contains(&root) {
                unique.push(root);
            }
        }
        unique
    }
}

fn listed(paths: &[PathBuf]) -> String {
    paths.iter().map(|p| format!("  {}", p.display())).collect::<Vec<_>>().join("\n")
}

/// ONNX Runtime: `named`, or the first `onnxruntime/libonnxruntime.so` under `roots`.
pub fn find_runtime(named: Option<&Path>, roots: &[PathBuf]) -> Result<PathBuf> {
    if let Some(path) = named {
        return Ok(path.to_path_buf());
    }
    let candidates: Vec<PathBuf> = roots.iter().map(|r| r.join("onnxruntime/libonnxruntime.so")).collect();
    candidates.iter().find(|p| p.is_file()).cloned().ok_or_else(|| Error::InvalidArgument {
        name: "ort_lib",
        message: format!("ONNX Runtime not found; looked in\n{}\n\nhint: run scripts/setup_models.sh (it installs libonnxruntime.so from the onnxruntime wheel on PyPI), or name the library with --ort-lib or ORT_DYLIB_PATH (Python: ort_lib=)", listed(&candidates)),
    })
}

/// A model folder (one with `quantir-encoder.json`): `wanted` itself when it holds one from here,
/// else a folder of its name under `roots`.
pub fn find_model(wanted: &Path, roots: &[PathBuf]) -> Result<PathBuf> {
    let has_config = |dir: &Path| dir.join("quantir-encoder.json").is_file();
    if has_config(wanted) {
        return Ok(wanted.to_path_buf());
    }
    let name = wanted.file_name().map(PathBuf::from).unwrap_or_default();
    let mut candidates = vec![wanted.to_path_buf()];
    candidates.extend(roots.iter().map(|r| r.join(&name)));
    candidates.iter().find(|d| has_config(d)).cloned().ok_or_else(|| Error::InvalidArgument {
        name: "dense",
        message: format!("no model folder {} (with quantir-encoder.json); looked in\n{}\n\nhint: run scripts/setup_models.sh, or name the folder with --dense DIR (Python: dense=)", name.display(), listed(&candidates)),
    })
}

/// How an encoder is found and run: what `--dense`, `--ort-lib`, `--encoder-workers`,
/// `--batch-size`, `--max-length` and `--pooling` say (in Python, the same names as arguments).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncoderOptions {
    /// The model folder named by the caller.
    pub model: Option<PathBuf>,
    /// The ONNX Runtime library named by the caller.
    pub runtime: Option<PathBuf>,
    /// ONNX Runtime sessions of one thread each, working on different batches.
    pub workers: usize,
    /// Texts per model call.
    pub batch_size: usize,
    /// Tokens per text, over the model folder's `max_length`.
    pub max_length: Option<usize>,
    /// Pooling, over the model folder's.
    pub pooling: Option<Pooling>,
    /// Where the model runs.
    pub device: Device,
}

impl Default for EncoderOptions {
    /// Two workers, batches of 4: small batches of length-sorted texts pad least (4 was fastest
    /// for all-MiniLM-L6-v2 int8 on 2 cores, 103 passages/s against 98 at 8 and 81 at 32).
    fn default() -> Self {
        EncoderOptions { model: None, runtime: None, workers: 2, batch_size: 4, max_length: None, pooling: None, device: Device::Cpu }
    }
}

impl EncoderOptions {
    /// The model folder and its settings: the one named, or `fallback` (a folder an index or a
    /// verifier records, looked for by name under `roots` where it is not found as recorded);
    /// `max_length` and `pooling` applied. None when neither is given.
    fn folder(&self, fallback: Option<&Path>, roots: &[PathBuf]) -> Result<Option<(PathBuf, EncoderConfig)>> {
        let dir = match (&self.model, fallback) {
            (Some(dir), _) => dir.clone(),
            (None, Some(recorded)) => find_model(recorded, roots)?,
            (None, None) => return Ok(None),
        };
        let mut config = EncoderConfig::read(&dir)?;
        if let Some(n) = self.max_length {
            config.max_length = n;
        }
        if let Some(p) = self.pooling {
            config.pooling = p;
        }
        Ok(Some((dir, config)))
    }

    /// The encoder of the named model, or of `fallback` ([`EncoderOptions::folder`]).
    pub fn encoder(&self, fallback: Option<&Path>, roots: &[PathBuf]) -> Result<Option<Encoder>> {
        let Some((dir, config)) = self.folder(fallback, roots)? else { return Ok(None) };
        Encoder::open(&dir, config, &find_runtime(self.runtime.as_deref(), roots)?, self.workers, self.batch_size, self.device).map(Some)
    }

    /// The query encoder for `index`'s vectors: the named model, or the one the index records,
    /// checked (before it is loaded) against the settings and model sha256 the index records.
    /// None when the index has no vectors.
    pub fn index_encoder(&self, index: &Index, roots: &[PathBuf]) -> Result<Option<Encoder>> {
        let Some(dense) = index.manifest().dense.as_ref() else { return Ok(None) };
        self.vectors_encoder(dense, index.path(), roots).map(Some)
    }

    /// The query encoder for the vectors `dense` describes (held at `location`, named in errors):
    /// the named model or the recorded one, checked against the recorded settings and model
    /// sha256 before it is loaded.
    pub fn vectors_encoder(&self, dense: &crate::index::DenseManifest, location: &Path, roots: &[PathBuf]) -> Result<Encoder> {
        let (dir, config) = self.folder(Some(Path::new(&dense.model_dir)), roots)?.expect("a folder was given");
        dense.check_model(location, &dir, &config)?;
        Encoder::open(&dir, config, &find_runtime(self.runtime.as_deref(), roots)?, self.workers, self.batch_size, self.device)
    }

    /// The encoder for `index`'s dense retrieval or dense MMR: the index's own when it has
    /// vectors (or the named model, checked against it); else the named model, for similarity
    /// only. None when neither is there.
    pub fn retrieval_encoder(&self, index: &Index, roots: &[PathBuf]) -> Result<Option<Encoder>> {
        match (&self.model, index.manifest().dense.is_some()) {
            // A named model with an index without vectors still serves dense MMR similarity.
            (Some(_), false) => self.encoder(None, roots),
            _ => self.index_encoder(index, roots),
        }
    }
}

/// Whether a server whose query encoder is `encoder` (its settings and folder; `None` for a
/// server without one) can serve `index` as it serves the generation it holds: a server
/// without an encoder serves BM25 only, whatever the index holds; one with an encoder needs
/// vectors made by its model.
pub fn serves_vectors_of(index: &Index, encoder: Option<(&EncoderConfig, &Path)>) -> Result<()> {
    match (encoder, index.manifest().dense.as_ref()) {
        (None, _) => Ok(()),
        (Some((config, dir)), Some(dense)) => dense.check_model(index.path(), dir, config),
        (Some((config, _)), None) => Err(crate::Error::IncompatibleIndex {
            path: index.path().to_path_buf(),
            what: "dense vectors",
            found: format!("none in generation {}", index.generation()),
            supported: format!("vectors of {}, which this server encodes queries with", config.name),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_in_order_without_repeats() {
        let env = ModelEnv { quantir_models: Some("/m".into()), xdg_data_home: None, home: Some("/home/u".into()), built_in: None };
        assert_eq!(env.roots(), vec![PathBuf::from("/m"), PathBuf::from("/home/u/.local/share/quantir/models"), PathBuf::from("models")]);
        let env = ModelEnv { quantir_models: Some("models".into()), xdg_data_home: Some("/x".into()), home: Some("/home/u".into()), built_in: None };
        assert_eq!(env.roots(), vec![PathBuf::from("models"), PathBuf::from("/x/quantir/models")]);
    }
}
