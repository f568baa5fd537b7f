//! Library errors as Python exceptions, each with the library's message.
//!
//! | library error | Python exception |
//! |---|---|
//! | a file or folder that is not there (`Io`, not found) | `FileNotFoundError` |
//! | any other operating-system error | `OSError` |
//! | an argument out of range (`Range`: the same ranges as the CLI's flags), a value given in memory that is wrong | `ValueError` |
//! | a run setting of the wrong kind (`Setting` with `wrong_type`: a number for a name) | `TypeError` |
//! | no node of an OpenSearch cluster answered | `ConnectionError` |
//! | the cluster refused the credentials | `PermissionError` |
//! | everything else: a malformed input file, a duplicate id, an incompatible index | `QuantirError` (a `ValueError`) |
//!
//! A Python object of the wrong type raises `TypeError` (PyO3's extraction).

use pyo3::exceptions::{PyConnectionError, PyFileNotFoundError, PyOSError, PyPermissionError, PyTypeError, PyValueError};
use pyo3::PyErr;

pyo3::create_exception!(
    _quantir,
    QuantirError,
    PyValueError,
    "An input quantir cannot use: a malformed file (the message names file:line:col and the field), a duplicate id, an incompatible index."
);

/// The exception for a library error.
pub fn to_py(error: quantir::Error) -> PyErr {
    let message = error.to_string();
    match &error {
        quantir::Error::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => PyFileNotFoundError::new_err(message),
        quantir::Error::Io { .. } => PyOSError::new_err(message),
        quantir::Error::Setting { wrong_type: true, .. } => PyTypeError::new_err(message),
        quantir::Error::Setting { .. } => PyValueError::new_err(message),
        quantir::Error::InvalidArgument { .. } | quantir::Error::Value { .. } | quantir::Error::Range { .. } | quantir::Error::Unmatched { .. } | quantir::Error::OpenSearchNoVectors { .. } => PyValueError::new_err(message),
        quantir::Error::OpenSearchUnreachable { .. } => PyConnectionError::new_err(message),
        quantir::Error::OpenSearchAuth { .. } => PyPermissionError::new_err(message),
        _ => QuantirError::new_err(message),
    }
}

/// `?` for library results inside binding code.
pub trait OrRaise<T> {
    /// The value, or the library error as a Python exception.
    fn or_raise(self) -> pyo3::PyResult<T>;
}

impl<T> OrRaise<T> for quantir::Result<T> {
    fn or_raise(self) -> pyo3::PyResult<T> {
        self.map_err(to_py)
    }
}
