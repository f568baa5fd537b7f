//! Telling the layout of an input from its path and first record ([`Format::Auto`]).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use super::Format;
use crate::error::{Error, Result};

/// The format and the file to read for a corpus path; detection reads at most `max_record`
/// bytes of the first line.
pub(super) fn corpus(path: &Path, format: Format, max_record: usize) -> Result<(Format, PathBuf)> {
    resolve(path, format, Role::Corpus, max_record)
}

/// The format and the file to read for a claims path.
pub(super) fn claims(path: &Path, format: Format) -> Result<(Format, PathBuf)> {
    resolve(path, format, Role::Claims, crate::io::DEFAULT_MAX_RECORD_BYTES)
}

#[derive(Clone, Copy, PartialEq)]
enum Role {
    Corpus,
    Claims,
}

impl Role {
    /// The file a BEIR folder holds for this role.
    fn beir_file(self) -> &'static str {
        match self {
            Role::Corpus => "corpus.jsonl",
            Role::Claims => "queries.jsonl",
        }
    }
}

/// The claims files of a QuanTemp++ folder (the benchmark's splits).
const QUANTEMP_SPLITS: [&str; 3] = ["test.json", "val.json", "train.json"];

fn resolve(path: &Path, format: Format, role: Role, max_record: usize) -> Result<(Format, PathBuf)> {
    let unknown = |why: String| unknown(path, why);
    if path.is_dir() {
        return folder(path, format, role);
    }
    let file = path.to_path_buf();
    if format != Format::Auto {
        return Ok((format, file));
    }
    let first = match first_line(path, PEEK_BYTES.min(max_record))? {
        // A first line longer than the peek: an object whose first value is an object is
        // QuanTemp++'s one-line corpus.json (the published file), told from its start; anything
        // else is read whole, up to the record limit.
        Peeked::Cut(start) if role == Role::Corpus && opens_keyed_object(&start) => return Ok((Format::Quantemp, file)),
        Peeked::Cut(_) => match first_line(path, max_record)? {
            Peeked::Line(line) | Peeked::Cut(line) => line,
        },
        Peeked::Line(line) => line,
    };
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

/// The format and file of a folder: a BEIR folder's `corpus.jsonl` / `queries.jsonl`, or a
/// QuanTemp++ folder's `corpus.json` (its claims are split over several files, so a claims path
/// names one of them: [`Error::SplitClaims`]); otherwise why not.
fn folder(path: &Path, format: Format, role: Role) -> Result<(Format, PathBuf)> {
    let beir = path.join(role.beir_file());
    let quantemp = path.join("corpus.json");
    let why = match format {
        Format::Auto | Format::Beir if beir.is_file() => return Ok((Format::Beir, beir)),
        Format::Auto | Format::Quantemp if role == Role::Corpus && quantemp.is_file() => return Ok((Format::Quantemp, quantemp)),
        Format::Auto | Format::Quantemp if role == Role::Claims && QUANTEMP_SPLITS.iter().any(|f| path.join(f).is_file()) => {
            let splits: Vec<String> = QUANTEMP_SPLITS.into_iter().filter(|f| path.join(f).is_file()).map(String::from).collect();
            return Err(Error::SplitClaims { path: path.to_path_buf(), suggestion: path.join(&splits[0]), splits });
        }
        Format::Auto => format!("a folder without {} (a BEIR folder has one){}", role.beir_file(), if role == Role::Corpus { " or corpus.json (a QuanTemp++ folder has one)" } else { "" }),
        Format::Beir => format!("a folder without {} (a BEIR folder has one)", role.beir_file()),
        Format::Quantemp if role == Role::Corpus => "a folder without corpus.json (a QuanTemp++ folder has one)".into(),
        other => format!("a folder, but --format {} reads a file", name(other)),
    };
    Err(unknown(path, why))
}

/// The error for a `path` whose format is not recognised, and `why`, with the formats to name.
fn unknown(path: &Path, why: String) -> Error {
    Error::UnknownFormat { path: path.to_path_buf(), why, choices: Format::CHOICES.into() }
}

fn name(format: Format) -> &'static str {
    match format {
        Format::Auto => "auto",
        Format::Jsonl => "jsonl",
        Format::Beir => "beir",
        Format::Quantemp => "quantemp",
    }
}

/// Bytes read to tell a file's format: a first line longer than this (a one-line corpus.json)
/// is told from its start ([`opens_keyed_object`]), not read whole.
const PEEK_BYTES: usize = 1 << 20;

/// The first non-blank line as far as it was read.
enum Peeked {
    /// The whole line.
    Line(String),
    /// Its first `max` bytes: the line goes on.
    Cut(String),
}

/// The first non-blank line, of at most `max` bytes (lossily decoded: this only peeks; the
/// loader checks UTF-8 and reports a longer record).
fn first_line(path: &Path, max: usize) -> Result<Peeked> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut reader = BufReader::new(file.take(max as u64));
    let mut buf = Vec::new();
    let mut first = true;
    loop {
        buf.clear();
        let n = reader.read_until(b'\n', &mut buf).map_err(|e| Error::io(path, e))?;
        if n == 0 {
            return Ok(Peeked::Line(String::new()));
        }
        let bytes = if std::mem::take(&mut first) { crate::io::strip_bom(&buf) } else { &buf[..] };
        let line = String::from_utf8_lossy(bytes).into_owned();
        if !line.trim().is_empty() {
            let cut = !buf.ends_with(b"\n") && reader.fill_buf().map_err(|e| Error::io(path, e))?.is_empty() && reader.get_ref().limit() == 0;
            return Ok(if cut { Peeked::Cut(line) } else { Peeked::Line(line) });
        }
    }
}

/// Whether `text` starts as a JSON object whose first value is an object: `{ "key": {`.
fn opens_keyed_object(text: &str) -> bool {
    let rest = text.trim_start();
    let Some(rest) = rest.strip_prefix('{') else { return false };
    let Some(rest) = rest.trim_start().strip_prefix('"') else { return false };
    // The key, escapes skipped.
    let mut chars = rest.char_indices();
    let end = loop {
        match chars.next() {
            Some((_, '\\')) => {
                chars.next();
            }
            Some((i, '"')) => break i,
            Some(_) => {}
            None => return false,
        }
    };
    let rest = rest[end + 1..].trim_start();
    rest.strip_prefix(':').is_some_and(|r| r.trim_start().starts_with('{'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_keyed_object_is_told_from_its_start() {
        assert!(opens_keyed_object(" {\"131212\": {\"title\": \"x\""));
        assert!(opens_keyed_object("{ \"a\\\"b\" :\n {"));
        assert!(!opens_keyed_object("{\"id\": \"a\", \"text\": \"b\""));
        assert!(!opens_keyed_object("{\"id\": [{"));
        assert!(!opens_keyed_object("{\"unterminated"));
        assert!(!opens_keyed_object("[{\"a\": {"));
    }

    /// A one-line corpus.json longer than the peek is QuanTemp++ without being read whole; a
    /// JSONL file whose first record is longer than the peek is still read whole and detected.
    #[test]
    fn a_first_line_longer_than_the_peek() {
        let dir = tempfile::tempdir().unwrap();
        let long = "x".repeat(PEEK_BYTES + 10);
        let object = dir.path().join("corpus.json");
        std::fs::write(&object, format!("{{\"1\": {{\"title\": \"{long}\", \"snippet\": \"s\"}}}}")).unwrap();
        assert_eq!(corpus(&object, Format::Auto, 64 << 20).unwrap().0, Format::Quantemp);
        let lines = dir.path().join("corpus.txt");
        std::fs::write(&lines, format!("{{\"id\": \"a\", \"text\": \"{long}\"}}\n{{\"id\": \"b\", \"text\": \"c\"}}\n")).unwrap();
        assert_eq!(corpus(&lines, Format::Auto, 64 << 20).unwrap().0, Format::Jsonl);
        let short = dir.path().join("short.txt");
        std::fs::write(&short, "{\"id\": \"a\", \"text\": \"b\"}").unwrap();
        assert_eq!(corpus(&short, Format::Auto, 64 << 20).unwrap().0, Format::Jsonl);
    }
}
