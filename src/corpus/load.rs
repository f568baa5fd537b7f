//! The one loader behind every format: positions, ids, dates, empty records and errors.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::path::Path;

use rayon::prelude::*;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::fields::{describe, Fields};
use super::{beir, detect, jsonl, quantemp, Claim, Corpus, Document, Format, PubDate};
use crate::error::{Error, Position, Result};
use crate::io::{json_error, read_utf8, read_utf8_digested, JsonlLines, Positions, Record};

/// How many undated records a [`LoadSummary`] shows.
const UNDATED_EXAMPLES: usize = 5;

/// A document as a format reader maps it, before the shared checks.
pub(super) struct RawDocument {
    pub id: String,
    pub title: String,
    pub text: String,
    pub url: Option<String>,
    pub date: Option<String>,
}

/// A claim as a format reader maps it, before the shared checks.
pub(super) struct RawClaim<'a> {
    pub id: String,
    pub text: Cow<'a, str>,
    /// The date field's name in this format and its value.
    pub date: Option<(&'static str, Cow<'a, str>)>,
}

/// The records of a file, each with its position, and the key it was stored under (QuanTemp++
/// objects) or its index (QuanTemp++ lists).
struct Records<'a> {
    items: Vec<(Option<String>, Record<'a>)>,
}

/// Reads the evidence collection at `path`.
pub fn load_corpus(path: &Path, format: Format) -> Result<Corpus> {
    let (format, file) = detect::corpus(path, format)?;
    let (text, digest) = read_utf8_digested(&file)?;
    let records = match format {
        Format::Quantemp => object_records(&file, &text)?,
        _ => line_records(&text),
    };
    // Parsing and date reading are per record, so they run on every core; the checks that span
    // records (duplicate ids, the first error in file order) run after, in file order.
    let parsed: Vec<Result<(RawDocument, Option<PubDate>)>> = records
        .items
        .par_iter()
        .map(|(key, record)| {
            let fields = Fields::parse(&file, record.at, record.text)?;
            let raw = match format {
                Format::Beir => beir::document(&fields)?,
                Format::Quantemp => quantemp::document(key.as_deref().unwrap_or_default(), &fields)?,
                Format::Jsonl | Format::Auto => jsonl::document(&fields)?,
            };
            let date = raw.date.as_deref().and_then(PubDate::parse);
            Ok((raw, date))
        })
        .collect();
    let mut corpus = Corpus::default();
    corpus.summary.file = file.clone();
    corpus.summary.digest = Some(digest);
    corpus.documents.reserve(parsed.len());
    let mut first_line: HashMap<String, usize> = HashMap::with_capacity(parsed.len());
    for ((_, record), result) in records.items.iter().zip(parsed) {
        let (raw, date) = result?;
        corpus.summary.records += 1;
        check_unique(&file, &mut first_line, &raw.id, record.at.line)?;
        if raw.title.trim().is_empty() && raw.text.trim().is_empty() {
            corpus.summary.skipped_empty += 1;
            continue;
        }
        if date.is_none() {
            corpus.summary.undated += 1;
            match &raw.date {
                None => corpus.summary.no_date_field += 1,
                Some(found) if corpus.summary.undated_examples.len() < UNDATED_EXAMPLES => {
                    corpus.summary.undated_examples.push((record.at.line, found.clone()));
                }
                Some(_) => {}
            }
        }
        corpus.documents.push(Document { id: raw.id, title: raw.title, text: raw.text, url: raw.url, date });
    }
    corpus.summary.documents = corpus.documents.len();
    if corpus.documents.is_empty() {
        let what = match corpus.summary.records {
            0 => "no documents: the file holds no records".to_string(),
            n => format!("no documents: each of its {n} records has an empty title and text"),
        };
        return Err(Error::Empty { path: file, what, hint: "index a corpus that holds documents (nothing was changed)".into() });
    }
    Ok(corpus)
}

/// Reads the claims at `path`; with `only`, keeps just the claims whose ids it holds (the queries
/// judged in a qrels file), in file order.
pub fn load_claims(path: &Path, format: Format, only: Option<&HashSet<String>>) -> Result<Vec<Claim>> {
    let (format, file) = detect::claims(path, format)?;
    let text = read_utf8(&file)?;
    let records = match format {
        Format::Quantemp => list_records(&file, &text)?,
        _ => line_records(&text),
    };
    let mut claims = Vec::with_capacity(records.items.len());
    let mut first_line: HashMap<String, usize> = HashMap::new();
    for (index, record) in &records.items {
        let fields = Fields::parse(&file, record.at, record.text)?;
        let raw = match format {
            Format::Beir => beir::claim(&fields)?,
            Format::Quantemp => quantemp::claim(index.as_deref().unwrap_or_default(), &fields)?,
            Format::Jsonl | Format::Auto => jsonl::claim(&fields)?,
        };
        check_unique(&file, &mut first_line, &raw.id, record.at.line)?;
        if only.is_some_and(|keep| !keep.contains(&raw.id)) {
            continue;
        }
        if raw.text.trim().is_empty() {
            return Err(fields.error(if format == Format::Quantemp { "claim" } else { "text" }, "the claim's text", "an empty string".into()));
        }
        let date = match raw.date {
            None => None,
            Some((field, value)) => Some(PubDate::parse(&value).ok_or_else(|| {
                fields.error(field, "a date like 2021-03-21 (see the date forms in the README)", describe(&value.as_ref().into()))
            })?),
        };
        claims.push(Claim { id: raw.id, text: raw.text.into_owned(), date });
    }
    if claims.is_empty() {
        let (what, hint) = match (records.items.len(), only) {
            (0, _) => ("no claims: the file holds no records".to_string(), "give it at least one claim".to_string()),
            (n, Some(judged)) => (format!("none of its {n} claims is among the {} queries the qrels judge", judged.len()), "check that the claims and the qrels use the same ids".to_string()),
            (n, None) => (format!("no claims among its {n} records"), "give it at least one claim".to_string()),
        };
        return Err(Error::Empty { path: file, what, hint });
    }
    Ok(claims)
}

/// What an id must be: one TREC files can carry (no whitespace, no control characters: runs and
/// qrels are whitespace-separated, so such an id would write a run that cannot be read back).
const CLEAN_ID: &str = "an id without spaces, tabs, newlines or control characters (TREC runs and qrels cannot carry them)";

fn is_clean_id(id: &str) -> bool {
    !id.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// Checks an id: clean ([`CLEAN_ID`]) and not seen before in the file.
fn check_unique(path: &Path, first_line: &mut HashMap<String, usize>, id: &str, line: usize) -> Result<()> {
    if !is_clean_id(id) {
        return Err(Error::Parse { path: path.to_path_buf(), at: Position { line, column: None }, field: "id".into(), expected: CLEAN_ID.into(), found: format!("{id:?}") });
    }
    if let Some(&first) = first_line.get(id) {
        return Err(Error::DuplicateId { path: path.to_path_buf(), id: id.to_string(), first_line: first, line });
    }
    first_line.insert(id.to_string(), line);
    Ok(())
}

/// A claim given in memory (the Python API's dicts and DataFrames), before the checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimFields {
    /// The claim's id.
    pub id: String,
    /// Its text.
    pub text: String,
    /// Its date as written (`2023-08-29`, `2023-08`, `2023`, or any form [`PubDate`] reads).
    pub date: Option<String>,
}

/// Claims given in memory, with the checks [`load_claims`] makes on a file's: ids clean and
/// unique, text not empty, dates that parse. `list` names the collection in errors
/// (`claims[3]["date"]: expected …`).
pub fn claims_from(list: &str, items: Vec<ClaimFields>) -> Result<Vec<Claim>> {
    if items.is_empty() {
        return Err(Error::Value { at: list.to_string(), expected: "at least one claim".into(), found: "none".into() });
    }
    let mut first: HashMap<String, usize> = HashMap::with_capacity(items.len());
    let mut claims = Vec::with_capacity(items.len());
    for (i, item) in items.into_iter().enumerate() {
        let at = |field: &str| format!("{list}[{i}][\"{field}\"]");
        if !is_clean_id(&item.id) {
            return Err(Error::Value { at: at("id"), expected: CLEAN_ID.into(), found: format!("{:?}", item.id) });
        }
        if let Some(j) = first.insert(item.id.clone(), i) {
            return Err(Error::Value { at: at("id"), expected: format!("an id not given before (\"{}\" is also {list}[{j}]'s)", item.id), found: format!("{:?}", item.id) });
        }
        if item.text.trim().is_empty() {
            return Err(Error::Value { at: at("text"), expected: "the claim's text".into(), found: "an empty string".into() });
        }
        let date = match &item.date {
            None => None,
            Some(text) => Some(PubDate::parse(text).ok_or_else(|| Error::Value {
                at: at("date"),
                expected: "a date like 2021-03-21 (see the date forms in the README)".into(),
                found: crate::error::shorten(text),
            })?),
        };
        claims.push(Claim { id: item.id, text: item.text, date });
    }
    Ok(claims)
}

fn line_records(text: &str) -> Records<'_> {
    Records { items: JsonlLines::new(text).map(|r| (None, r)).collect() }
}

/// The entries of a top-level JSON object, each with the position of its value.
fn object_records<'a>(path: &Path, text: &'a str) -> Result<Records<'a>> {
    struct Entries<'a>(Vec<(String, &'a RawValue)>);
    struct EntriesVisitor;
    impl<'de> Visitor<'de> for EntriesVisitor {
        type Value = Entries<'de>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a JSON object of documents keyed by id")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut entries = Vec::new();
            // Entries are kept in file order, repeats included, so a duplicate key is reported
            // with both lines instead of silently overwriting the first.
            while let Some(entry) = map.next_entry::<String, &'de RawValue>()? {
                entries.push(entry);
            }
            Ok(Entries(entries))
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let entries = de
        .deserialize_map(EntriesVisitor)
        .and_then(|e| de.end().map(|()| e))
        .map_err(|e| json_error(path, Position { line: 1, column: Some(1) }, &e))?;
    let mut positions = Positions::new(text);
    Ok(Records { items: entries.0.into_iter().map(|(key, raw)| (Some(key), record_in(text, &mut positions, raw))).collect() })
}

/// The items of a top-level JSON array, each with its index and position.
fn list_records<'a>(path: &Path, text: &'a str) -> Result<Records<'a>> {
    let items: Vec<&RawValue> =
        serde_json::from_str(text).map_err(|e| json_error(path, Position { line: 1, column: Some(1) }, &e))?;
    let mut positions = Positions::new(text);
    Ok(Records { items: items.into_iter().enumerate().map(|(i, raw)| (Some(i.to_string()), record_in(text, &mut positions, raw))).collect() })
}

/// A raw value borrowed from `text`, with its position from where it lies in `text` (records come
/// in file order, so `positions` counts on from the previous one).
fn record_in<'a>(text: &'a str, positions: &mut Positions<'_>, raw: &'a RawValue) -> Record<'a> {
    let offset = raw.get().as_ptr() as usize - text.as_ptr() as usize;
    Record { text: raw.get(), at: positions.at(offset) }
}
