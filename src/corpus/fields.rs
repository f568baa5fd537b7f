//! Typed access to the fields of one JSON record, with errors that name the field and place.

use std::path::Path;

use serde_json::{Map, Value};

use crate::error::{shorten, Error, Position, Result};

/// The fields of one JSON object record and where it stands in its file.
pub(crate) struct Fields<'a> {
    pub map: &'a Map<String, Value>,
    pub path: &'a Path,
    pub at: Position,
}

impl<'a> Fields<'a> {
    /// Parses `text` (a record starting at `at`) into its object.
    pub fn parse(path: &Path, at: Position, text: &str) -> Result<Map<String, Value>> {
        match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(map)) => Ok(map),
            Ok(other) => Err(Error::Malformed {
                path: path.to_path_buf(),
                at,
                message: format!("expected a JSON object, found {}", kind(&other)),
            }),
            Err(e) => Err(crate::io::json_error(path, at, &e)),
        }
    }

    /// An error about `field`.
    pub fn error(&self, field: &str, expected: &str, found: String) -> Error {
        Error::Parse {
            path: self.path.to_path_buf(),
            at: self.at,
            field: field.to_string(),
            expected: expected.to_string(),
            found,
        }
    }

    /// A string field that may be absent or null.
    pub fn optional_str(&self, field: &str) -> Result<Option<&'a str>> {
        match self.map.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(self.error(field, "a string", describe(other))),
        }
    }

    /// A string field that must be present.
    pub fn required_str(&self, field: &str) -> Result<&'a str> {
        self.optional_str(field)?.ok_or_else(|| self.error(field, "a string", "nothing".into()))
    }

    /// An id: a string, or an integer written as a number.
    pub fn id(&self, field: &str) -> Result<String> {
        match self.map.get(field) {
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
            Some(Value::Number(n)) if n.is_u64() || n.is_i64() => Ok(n.to_string()),
            Some(other) => Err(self.error(field, "a non-empty string id", describe(other))),
            None => Err(self.error(field, "a non-empty string id", "nothing".into())),
        }
    }

    /// The raw date field for a document: `Some(text)` when it is a string, `Some(json)` otherwise
    /// (so that an unparseable value can be shown), `None` when absent or null.
    pub fn raw_date(&self, field: &str) -> Option<String> {
        match self.map.get(field) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => Some(other.to_string()),
        }
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A value as an error message shows it: its kind and a short rendering.
pub(crate) fn describe(value: &Value) -> String {
    match value {
        Value::String(s) => shorten(s),
        Value::Null => "null".into(),
        other => format!("{} {}", kind(other), shorten(&other.to_string())),
    }
}
