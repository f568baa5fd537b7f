//! `quantir._quantir`: the Python bindings of quantir's library.
//!
//! Every call maps Python arguments to the library's configuration, releases the GIL, calls one
//! library function and maps the result back: no behaviour lives here or in the Python package
//! around it (`python/quantir/`), which only converts ranx and pandas objects to the plain dicts
//! this module reads. Closed sets (`fusion="rrf"`) parse into the library's enums, so an unknown
//! value raises a `ValueError` that lists the valid ones; library errors become exceptions with
//! the library's message (`file:line:col`, field, hint) — see [`errors`].

use pyo3::prelude::*;

mod convert;
mod errors;
mod eval;
mod index;
mod opensearch;
mod planning;
mod progress;
mod verify;

/// The module `quantir._quantir`.
#[pymodule]
fn _quantir(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("QuantirError", m.py().get_type::<errors::QuantirError>())?;
    // The run settings' defaults, as the library defines them once (`RunSettings::DEFAULT`).
    let defaults = serde_json::to_string(&quantir::engine::RunSettings::DEFAULT).expect("settings serialise");
    m.add("RUN_DEFAULTS", m.py().import("json")?.call_method1("loads", (defaults,))?)?;
    m.add("SEARCH_DEFAULT_K", quantir::ranges::DEFAULT_SEARCH_K)?;
    m.add_class::<index::Index>()?;
    m.add_class::<index::Hit>()?;
    m.add_class::<planning::ClaimSearch>()?;
    m.add_class::<opensearch::OpenSearchIndex>()?;
    m.add_class::<verify::Verifier>()?;
    m.add_function(wrap_pyfunction!(eval::evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(eval::fuse, m)?)?;
    m.add_function(wrap_pyfunction!(eval::compare, m)?)?;
    m.add_function(wrap_pyfunction!(eval::read_qrels, m)?)?;
    m.add_function(wrap_pyfunction!(eval::read_run, m)?)?;
    m.add_function(wrap_pyfunction!(verify::score, m)?)?;
    Ok(())
}
