//! Where models and ONNX Runtime are found, from any working directory.
//!
//! The search order, for a model folder and for `libonnxruntime.so` alike:
//! 1. the flag (`--dense DIR`, `--ort-lib PATH`; `ORT_DYLIB_PATH` stands for `--ort-lib`);
//! 2. `$QUANTIR_MODELS`, a folder of model folders and `onnxruntime/`;
//! 3. the per-user data folder, `$XDG_DATA_HOME/quantir/models` (else
//!    `~/.local/share/quantir/models`), where `scripts/setup_models.sh` installs;
//! 4. the project's `models/`: the one beside the running binary's checkout, then `./models`.
//!
//! An index records the folder its vectors were made with (its name is looked for in 2–4 when
//! the recorded path does not hold it from here) and the model file's sha256, checked on use.

use std::path::{Path, PathBuf};

use quantir::Error;

/// The model folder used when a command needs an encoder and neither `--dense` nor an index names
/// one: the one `scripts/setup_models.sh` installs, looked for by name as any other.
pub const DEFAULT_MODEL: &str = "all-minilm-l6-v2";

/// The per-user data folder for models (step 3).
pub fn user_models_dir() -> Option<PathBuf> {
    let data = std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()).map(PathBuf::from).or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))?;
    Some(data.join("quantir/models"))
}

/// The folders searched after the flag (steps 2–4), in order.
pub fn model_roots() -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = std::env::var_os("QUANTIR_MODELS").filter(|v| !v.is_empty()).map(PathBuf::from).into_iter().collect();
    roots.extend(user_models_dir());
    // The checkout the binary was built in (target/release/quantir → models/ two levels up).
    if let Ok(exe) = std::env::current_exe() {
        if let Some(project) = exe.ancestors().skip(1).find(|a| a.join("models/README.md").is_file() && a.join("Cargo.toml").is_file()) {
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

fn listed(paths: &[PathBuf]) -> String {
    paths.iter().map(|p| format!("  {}", p.display())).collect::<Vec<_>>().join("\n")
}

/// ONNX Runtime: the flag's path, or the first `onnxruntime/libonnxruntime.so` under the roots.
pub fn find_runtime(flag: Option<&Path>) -> quantir::Result<PathBuf> {
    if let Some(path) = flag {
        return Ok(path.to_path_buf());
    }
    let candidates: Vec<PathBuf> = model_roots().into_iter().map(|r| r.join("onnxruntime/libonnxruntime.so")).collect();
    candidates.iter().find(|p| p.is_file()).cloned().ok_or_else(|| Error::InvalidArgument {
        name: "--ort-lib",
        message: format!("ONNX Runtime not found; looked in\n{}\n\nhint: run scripts/setup_models.sh (it installs libonnxruntime.so from the onnxruntime wheel on PyPI), or name the library with --ort-lib or ORT_DYLIB_PATH", listed(&candidates)),
    })
}

/// A model folder (one with `quantir-encoder.json`): `wanted` itself when it holds one from here,
/// else a folder of its name under the roots.
pub fn find_model(wanted: &Path) -> quantir::Result<PathBuf> {
    let has_config = |dir: &Path| dir.join("quantir-encoder.json").is_file();
    if has_config(wanted) {
        return Ok(wanted.to_path_buf());
    }
    let name = wanted.file_name().map(PathBuf::from).unwrap_or_default();
    let mut candidates = vec![wanted.to_path_buf()];
    candidates.extend(model_roots().into_iter().map(|r| r.join(&name)));
    candidates.iter().find(|d| has_config(d)).cloned().ok_or_else(|| Error::InvalidArgument {
        name: "--dense",
        message: format!("no model folder {} (with quantir-encoder.json); looked in\n{}\n\nhint: run scripts/setup_models.sh, or name the folder with --dense DIR", name.display(), listed(&candidates)),
    })
}
