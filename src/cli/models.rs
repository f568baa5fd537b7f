//! The process's side of the model search (`quantir::index::dense::models`): the running
//! binary, which only the binary knows (Python gives its extension module's file instead).

use std::path::PathBuf;

use quantir::index::dense::models::ModelEnv;

pub use quantir::index::dense::models::DEFAULT_MODEL;

/// The model folders searched after a flag, in order.
pub fn roots() -> Vec<PathBuf> {
    ModelEnv::of_process(std::env::current_exe().ok()).roots()
}
