//! Relevance judgments in the three published layouts.
//!
//! | format | layout |
//! |---|---|
//! | `trec` | `qid 0 docid rel`, whitespace-separated |
//! | `beir` | `query-id<TAB>corpus-id<TAB>score`, with that header line |
//! | `quantemp` | QuanTemp++ `{split}_qrels.json`: `{"<claim index>": {"<doc id>": 1}}` |
//!
//! Graded relevance is kept as given; rel ≤ 0 means not relevant.

use std::collections::BTreeMap;
use std::path::Path;

use crate::error::{Error, Position, Result};

/// How a qrels file is laid out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum QrelsFormat {
    /// `.json` is QuanTemp++; a `query-id` header or three columns is BEIR; four columns TREC.
    #[default]
    Auto,
    /// `qid 0 docid rel`.
    Trec,
    /// BEIR tsv.
    Beir,
    /// QuanTemp++ JSON.
    Quantemp,
}

/// Judgments: query id → document id → relevance grade.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Qrels {
    /// The grades, by query then document.
    pub judgments: BTreeMap<String, BTreeMap<String, i32>>,
}

impl Qrels {
    /// Reads `path` in `format`. A (query, document) pair judged twice is an error.
    pub fn read(path: &Path, format: QrelsFormat) -> Result<Qrels> {
        let text = crate::io::read_utf8(path)?;
        let format = match format {
            QrelsFormat::Auto => detect(path, &text),
            other => other,
        };
        let qrels = match format {
            QrelsFormat::Quantemp => read_quantemp(path, &text)?,
            other => read_columns(path, &text, other == QrelsFormat::Beir)?,
        };
        if qrels.judgments.is_empty() {
            // Every measure over no judgments is 0: never a table of zeros.
            return Err(Error::Empty { path: path.to_path_buf(), what: "no judgments".into(), hint: "evaluate against qrels that judge the run's queries".into() });
        }
        Ok(qrels)
    }

    /// The ids of the queries with at least one judgment.
    pub fn query_ids(&self) -> std::collections::HashSet<String> {
        self.judgments.keys().cloned().collect()
    }
}

fn detect(path: &Path, text: &str) -> QrelsFormat {
    if path.extension().is_some_and(|e| e == "json") || text.trim_start().starts_with('{') {
        return QrelsFormat::Quantemp;
    }
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    if first.starts_with("query-id") || first.split_whitespace().count() == 3 {
        QrelsFormat::Beir
    } else {
        QrelsFormat::Trec
    }
}

fn read_columns(path: &Path, text: &str, beir: bool) -> Result<Qrels> {
    let mut qrels = Qrels::default();
    let (want, shape) = if beir { (3, "`query-id corpus-id score`") } else { (4, "`qid 0 docid rel`") };
    for (i, line) in text.lines().enumerate() {
        let at = Position { line: i + 1, column: None };
        let line = line.trim_end_matches('\r');
        // `#` lines are comments, as trec_eval reads qrels.
        if line.trim().is_empty() || line.trim_start().starts_with('#') || (beir && i == 0 && line.starts_with("query-id")) {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() != want {
            return Err(Error::Malformed { path: path.to_path_buf(), at, message: format!("expected {want} fields {shape}, found {}", fields.len()) });
        }
        let (qid, docid, rel) = if beir { (fields[0], fields[1], fields[2]) } else { (fields[0], fields[2], fields[3]) };
        let rel: i32 = rel.parse().map_err(|_| Error::Parse {
            path: path.to_path_buf(),
            at,
            field: if beir { "score".into() } else { "rel".into() },
            expected: "an integer relevance grade".into(),
            found: crate::error::shorten(rel),
        })?;
        insert(&mut qrels, path, at, qid, docid, rel)?;
    }
    Ok(qrels)
}

fn read_quantemp(path: &Path, text: &str) -> Result<Qrels> {
    let at = Position { line: 1, column: Some(1) };
    let parsed: BTreeMap<String, BTreeMap<String, serde_json::Value>> =
        serde_json::from_str(text).map_err(|e| crate::io::json_error(path, at, &e))?;
    let mut qrels = Qrels::default();
    for (qid, docs) in parsed {
        for (docid, rel) in docs {
            let rel = rel.as_i64().and_then(|r| i32::try_from(r).ok()).ok_or_else(|| Error::Parse {
                path: path.to_path_buf(),
                at,
                field: format!("{qid}.{docid}"),
                expected: "an integer relevance grade".into(),
                found: rel.to_string(),
            })?;
            insert(&mut qrels, path, at, &qid, &docid, rel)?;
        }
    }
    Ok(qrels)
}

fn insert(qrels: &mut Qrels, path: &Path, at: Position, qid: &str, docid: &str, rel: i32) -> Result<()> {
    let previous = qrels.judgments.entry(qid.to_string()).or_default().insert(docid.to_string(), rel);
    if previous.is_some() {
        return Err(Error::Malformed { path: path.to_path_buf(), at, message: format!("query {qid} judges document {docid} twice") });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(name: &str, text: &str) -> Result<Qrels> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        Qrels::read(&path, QrelsFormat::Auto)
    }

    #[test]
    fn three_layouts_read_alike() {
        let trec = read("q.txt", "1 0 d1 1\n1 0 d2 2\n2 0 d3 0\n").unwrap();
        let beir = read("q.tsv", "query-id\tcorpus-id\tscore\r\n1\td1\t1\r\n1\td2\t2\r\n2\td3\t0\r\n").unwrap();
        let quantemp = read("test_qrels.json", r#"{"1": {"d1": 1, "d2": 2}, "2": {"d3": 0}}"#).unwrap();
        assert_eq!(trec, beir);
        assert_eq!(trec, quantemp);
        assert_eq!(trec.judgments["1"]["d2"], 2);
    }

    #[test]
    fn bad_lines_are_named() {
        let err = read("q.txt", "1 0 d1 1\n1 0 d2 high\n").unwrap_err().to_string();
        assert!(err.ends_with("q.txt:2: field \"rel\": expected an integer relevance grade, found \"high\""), "{err}");
    }
}
