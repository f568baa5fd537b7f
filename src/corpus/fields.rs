//! Typed access to the fields of one JSON record, with errors that name the field and place.

use std::borrow::Cow;
use std::path::Path;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::Value;

use crate::error::{shorten, Error, Position, Result};

/// The fields of one JSON object record and where it stands in its file. Each field's value is
/// kept as written and parsed only when a format reads it, so a record costs one scan and one
/// copy of each string read (building a `Value` tree first cost a second copy, a tree and a
/// field map per record).
pub(crate) struct Fields<'a> {
    /// The fields in record order; a key given twice counts once, with its last value (as in a
    /// parsed JSON object).
    entries: Vec<(Key<'a>, &'a RawValue)>,
    /// The record as written.
    text: &'a str,
    pub path: &'a Path,
    pub at: Position,
}

/// A field name: borrowed from the record unless it has escapes.
struct Key<'a>(Cow<'a, str>);

impl<'de> serde::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a field name")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> std::result::Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> std::result::Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_string())))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

impl<'a> Fields<'a> {
    /// Parses `text` (a record starting at `at`) into its fields.
    pub fn parse(path: &'a Path, at: Position, text: &'a str) -> Result<Fields<'a>> {
        struct Entries;
        impl<'de> Visitor<'de> for Entries {
            type Value = Vec<(Key<'de>, &'de RawValue)>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Self::Value, A::Error> {
                let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(8));
                while let Some(entry) = map.next_entry()? {
                    entries.push(entry);
                }
                Ok(entries)
            }
        }
        let mut de = serde_json::Deserializer::from_str(text);
        match de.deserialize_map(Entries).and_then(|entries| de.end().map(|()| entries)) {
            Ok(entries) => Ok(Fields { entries, text, path, at }),
            // Not an object, or not JSON: the parsed value says which, as it always has.
            Err(_) => match serde_json::from_str::<Value>(text) {
                Ok(other) => Err(Error::Malformed {
                    path: path.to_path_buf(),
                    at,
                    message: format!("expected a JSON object, found {}", kind(&other)),
                }),
                Err(e) => Err(crate::io::json_error(path, at, &e)),
            },
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

    /// The value of `field` as written (its last, when given twice).
    fn get(&self, field: &str) -> Option<&'a RawValue> {
        self.entries.iter().rev().find(|(key, _)| key.0 == field).map(|&(_, raw)| raw)
    }

    /// A string field that may be absent or null.
    pub fn optional_str(&self, field: &str) -> Result<Option<Cow<'a, str>>> {
        let Some(raw) = self.get(field) else { return Ok(None) };
        match raw.get().as_bytes().first() {
            Some(b'"') => Ok(Some(self.string(raw)?)),
            _ => match self.value(raw)? {
                Value::Null => Ok(None),
                other => Err(self.error(field, "a string", describe(&other))),
            },
        }
    }

    /// A string field that must be present.
    pub fn required_str(&self, field: &str) -> Result<Cow<'a, str>> {
        self.optional_str(field)?.ok_or_else(|| self.error(field, "a string", "nothing".into()))
    }

    /// An id: a string, or an integer written as a number.
    pub fn id(&self, field: &str) -> Result<String> {
        let expected = "a non-empty string id";
        let Some(raw) = self.get(field) else { return Err(self.error(field, expected, "nothing".into())) };
        if raw.get().starts_with('"') {
            let id = self.string(raw)?;
            if !id.trim().is_empty() {
                return Ok(id.into_owned());
            }
        }
        match self.value(raw)? {
            Value::Number(n) if n.is_u64() || n.is_i64() => Ok(n.to_string()),
            other => Err(self.error(field, expected, describe(&other))),
        }
    }

    /// The raw date field for a document: `Some(text)` when it is a string, `Some(json)` otherwise
    /// (so that an unparseable value can be shown), `None` when absent or null.
    pub fn raw_date(&self, field: &str) -> Result<Option<String>> {
        let Some(raw) = self.get(field) else { return Ok(None) };
        if raw.get().starts_with('"') {
            return Ok(Some(self.string(raw)?.into_owned()));
        }
        Ok(match self.value(raw)? {
            Value::Null => None,
            other => Some(other.to_string()),
        })
    }

    /// A string value as written (`raw` starts with its quote): borrowed from the record unless
    /// it has escapes. The scan that found it checked it ends with a quote and holds no raw
    /// control character, so without a backslash its text is what lies between the quotes.
    fn string(&self, raw: &'a RawValue) -> Result<Cow<'a, str>> {
        let quoted = raw.get();
        if !quoted.contains('\\') {
            return Ok(Cow::Borrowed(&quoted[1..quoted.len() - 1]));
        }
        serde_json::from_str::<String>(quoted).map(Cow::Owned).map_err(|e| self.record_error(&e))
    }

    /// A value as written, parsed (for the rare non-string field and for messages). The scan
    /// that found it checked its shape; a string in it can still hold an escape that is no
    /// character, which only parsing finds.
    fn value(&self, raw: &RawValue) -> Result<Value> {
        serde_json::from_str(raw.get()).map_err(|e| self.record_error(&e))
    }

    /// The error for a value that does not parse: the whole record's, with its place in the
    /// file, as parsing the record at once gives it (`fallback` should the record parse).
    fn record_error(&self, fallback: &serde_json::Error) -> Error {
        let e = serde_json::from_str::<Value>(self.text).err();
        crate::io::json_error(self.path, self.at, e.as_ref().unwrap_or(fallback))
    }
}

/// "a number", "an object": a JSON value's kind, for messages.
pub(crate) fn kind(value: &Value) -> &'static str {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn at() -> Position {
        Position { line: 7, column: None }
    }

    #[test]
    fn fields_read_as_a_parsed_object_reads_them() {
        let path = Path::new("c.jsonl");
        let text = r#"{"id": 12, "title": "a \"quoted\" \u00e9", "text": "plain", "text": "last wins", "date": null, "url": 3, "x": {"y": [1, "\n"]}}"#;
        let fields = Fields::parse(path, at(), text).unwrap();
        assert_eq!(fields.id("id").unwrap(), "12");
        assert_eq!(fields.optional_str("title").unwrap().as_deref(), Some("a \"quoted\" é"));
        assert!(matches!(fields.required_str("text").unwrap(), Cow::Borrowed("last wins")));
        assert_eq!(fields.optional_str("date").unwrap(), None);
        assert_eq!(fields.raw_date("date").unwrap(), None);
        assert_eq!(fields.raw_date("url").unwrap().as_deref(), Some("3"));
        assert_eq!(fields.optional_str("missing").unwrap(), None);
        let err = fields.optional_str("url").unwrap_err().to_string();
        assert!(err.contains("url") && err.contains("a string") && err.contains("a number"), "{err}");
        assert!(fields.id("title").is_ok() && fields.id("date").is_err() && fields.id("missing").is_err());
    }

    /// What is not an object, or not JSON, or holds an escape that is no character in a field
    /// read, gets the error parsing the whole record gives.
    #[test]
    fn bad_records_get_the_whole_records_error() {
        let path = Path::new("c.jsonl");
        let whole = |text: &str| crate::io::json_error(path, at(), &serde_json::from_str::<Value>(text).unwrap_err()).to_string();
        let err = Fields::parse(path, at(), "[1, 2]").err().unwrap().to_string();
        assert!(err.contains("expected a JSON object, found an array"), "{err}");
        for text in [r#"{"id": "a", "text": "b""#, r#"{"id": "a"} x"#, "nope", "{\"id\": \"a\", \"x\": \"tab\there\"}", r#"{"x": "\q"}"#] {
            assert_eq!(Fields::parse(path, at(), text).err().unwrap().to_string(), whole(text));
        }
        let lone = r#"{"id": "a", "text": "b \ud800 c", "date": ["\udc00"]}"#;
        match Fields::parse(path, at(), lone) {
            Ok(fields) => {
                assert_eq!(fields.required_str("text").unwrap_err().to_string(), whole(lone));
                assert_eq!(fields.raw_date("date").unwrap_err().to_string(), whole(lone));
            }
            Err(e) => assert_eq!(e.to_string(), whole(lone)),
        }
    }
}
