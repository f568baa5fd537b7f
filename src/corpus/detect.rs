//! Telling the layout of an input from its path and first record ([`Format::Auto`]).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use super::Format;
use crate::error::{Error, Result};

/// The format and the file to read for a corpus path.
pub(super) fn corpus(path: &Path, format: Format) -> Result<(Format, PathBuf)> {
    resolve(path, format, "corpus.jsonl", Role::Corpus)
}

/// The format and the file to read for a claims path.
pub(super) fn claims(path: &Path, format: Format) -> Result<(Format, PathBuf)> {
    resolve(path, format, "queries.jsonl", Role::Claims)
}

#[derive(Clone, Copy, PartialEq)]
enum Role {
    Corpus,
    Claims,
}

fn resolve(path: &Path, format: Format, beir_file: &str, role: Role) -> Result<(Format, PathBuf)> {
    let unknown = |why: String| Error::UnknownFormat { path: path.to_path_buf(), why, choices: Format::CHOICES.into() };
    if path.is_dir() {
        let file = path.join(beir_file);
        return match format {
            Format::Auto | Format::Beir if file.is_file() => Ok((Format::Beir, file)),
            Format::Auto | Format::Beir => Err(unknown(format!("a folder without {beir_file} (a BEIR folder has one)"))),
            other => Err(unknown(format!("a folder, but --format {} reads a file", name(other)))),
        };
    }
    let file = path.to_path_buf();
    if format != Format::Auto {
        return Ok((format, file));
    }
    let first = first_line(path)?;
    let trimmed = first.trim_start();
    if trimmed.starts_with('[') {
        return if role == Role::Claims {
            Ok((Format::Quantemp, file))
        } else {
            Err(unknown("a JSON list; a corpus is JSONL or a QuanTemp++ object keyed by id".into()))
        };
    }
    if !trimmed.starts_with('{') {
        return Err(unknown(format!("the first line starts with {:?}, not a JSON object or list", trimmed.chars().next().unwrap_or(' '))));
    }
    match serde_json::from_str::<serde_json::Value>(trimmed) {
        Ok(serde_json::Value::Object(map)) if map.contains_key("_id") => Ok((Format::Beir, file)),
        Ok(serde_json::Value::Object(map)) if map.contains_key("id") => Ok((Format::Jsonl, file)),
        Ok(serde_json::Value::Object(map)) if role == Role::Corpus && map.values().all(|v| v.is_object()) && !map.is_empty() => {
            Ok((Format::Quantemp, file))
        }
        Ok(_) => Err(unknown("the first record has neither \"id\" (quantir JSONL) nor \"_id\" (BEIR)".into())),
        // A malformed first line of a .jsonl file is reported as such by the JSONL reader.
        Err(_) if path.extension().is_some_and(|e| e == "jsonl") => Ok((Format::Jsonl, file)),
        // A JSON document spread over lines: an object keyed by id is QuanTemp++'s corpus.json.
        Err(_) if role == Role::Corpus => Ok((Format::Quantemp, file)),
        Err(e) => Err(unknown(format!("the first line is not a JSON record ({e})"))),
    }
}

fn name(format: Format) -> &'static str {
    match format {
        Format::Auto => "auto",
        Format::Jsonl => "jsonl",
        Format::Beir => "beir",
        Format::Quantemp => "quantemp",
    }
}

/// The first non-blank line (lossily decoded: this only peeks; the loader checks UTF-8).
fn first_line(path: &Path) -> Result<String> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut reader = BufReader::new(file);
    let mut buf = Vec::new();
    let mut first = true;
    loop {
        buf.clear();
        let n = reader.read_until(b'\n', &mut buf).map_err(|e| Error::io(path, e))?;
        if n == 0 {
            return Ok(String::new());
        }
        let bytes = if std::mem::take(&mut first) { crate::io::strip_bom(&buf) } else { &buf[..] };
        let line = String::from_utf8_lossy(bytes).into_owned();
        if !line.trim().is_empty() {
            return Ok(line);
        }
    }
}
