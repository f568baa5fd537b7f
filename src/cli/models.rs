//! The process's side of the model search (`quantir::index::dense::models`): the environment
//! variables and the running binary, read here because the library reads neither.

use std::path::PathBuf;

use quantir::index::dense::models::ModelEnv;

pub use quantir::index::dense::models::DEFAULT_MODEL;

/// What the search reads from this process's environment.
fn env() -> ModelEnv {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    ModelEnv { quantir_models: var("QUANTIR_MODELS"), xdg_data_home: var("XDG_DATA_HOME"), home: var("HOME"), built_in: std::env::current_exe().ok() }
}

/// The model folders searched after a flag, in order.
pub fn roots() -> Vec<PathBuf> {
    env().roots()
}
