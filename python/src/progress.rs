//! Progress of long calls, reported to a Python callable `progress(phase, done, total)`.
//!
//! The library reports from its worker threads; each report takes the GIL, so reports are
//! thinned to one every [`EVERY`] (plus every phase's start and end). The first exception the
//! callable raises is kept and raised when the call returns; the work itself goes on.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use pyo3::prelude::*;
use quantir::io::Progress;

/// The shortest time between two reports of one phase.
const EVERY: Duration = Duration::from_millis(100);

struct State {
    phase: String,
    total: Option<u64>,
    done: u64,
    last: Option<Instant>,
}

/// A [`Progress`] calling a Python callable.
pub struct PyProgress {
    callback: Option<Py<PyAny>>,
    state: Mutex<State>,
    error: Mutex<Option<PyErr>>,
}

impl PyProgress {
    /// Reports to `callback`; with `None`, reports nothing.
    pub fn new(callback: Option<Py<PyAny>>) -> PyProgress {
        PyProgress { callback, state: Mutex::new(State { phase: String::new(), total: None, done: 0, last: None }), error: Mutex::new(None) }
    }

    fn report(&self, force: bool) {
        let Some(callback) = &self.callback else { return };
        let (phase, done, total) = {
            let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            if !force && state.last.is_some_and(|t| t.elapsed() < EVERY) {
                return;
            }
            state.last = Some(Instant::now());
            (state.phase.clone(), state.done, state.total)
        };
        Python::attach(|py| {
            if let Err(e) = callback.call1(py, (phase, done, total)) {
                self.error.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(e);
            }
        });
    }

    /// The reporter a `progress=` argument asks for: nothing for `None` or `False`, a tqdm bar
    /// per phase for `True` (`quantir._convert.tqdm_progress`), else the callable itself.
    pub fn from_arg(value: Option<&Bound<'_, PyAny>>) -> PyResult<PyProgress> {
        let callback = match value {
            None => None,
            Some(v) if v.is_none() => None,
            Some(v) if v.is_instance_of::<pyo3::types::PyBool>() => match v.is_truthy()? {
                true => Some(v.py().import("quantir._convert")?.getattr("tqdm_progress")?.call0()?.unbind()),
                false => None,
            },
            Some(v) if v.is_callable() => Some(v.clone().unbind()),
            Some(v) => return Err(pyo3::exceptions::PyTypeError::new_err(format!("progress: expected None, True or a callable progress(phase, done, total), found {}", v.get_type().name()?))),
        };
        Ok(PyProgress::new(callback))
    }

    /// The call's result, or the first exception the callable raised.
    pub fn finish_with<T>(self, result: PyResult<T>) -> PyResult<T> {
        let value = result?;
        match self.error.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Some(e) => Err(e),
            None => Ok(value),
        }
    }
}

impl Progress for PyProgress {
    fn start(&self, phase: &str, total: Option<u64>) {
        {
            let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            *state = State { phase: phase.to_string(), total, done: 0, last: None };
        }
        self.report(true);
    }

    fn advance(&self, done: u64) {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).done += done;
        self.report(false);
    }

    fn finish(&self) {
        {
            let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(total) = state.total {
                state.done = state.done.max(total);
            }
        }
        self.report(true);
    }
}
