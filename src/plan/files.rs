//! Decomposition files, in the forms they were published in.
//!
//! | file | layout | claim ids |
//! |---|---|---|
//! | quantir JSONL (`.jsonl`) | `{"id", "queries": [...]}` a line | `id` |
//! | QuanTemp++ claims JSON (`.json`) | a list; `decomp_questions` = ClaimDecomp, `pgmfc_questions` = PgmFC, the keys of `in_file` = the FCDecomp oracle queries; pick one with `:claimdecomp`, `:pgmfc` or `:fcdecomp` | position in the list |
//! | QuanTemp ClaimDecomp CSV | `@`-separated, header `claims@questions`, questions joined by `Next Question:` | row (0-based), the QuanTemp test order |
//! | QGen output CSV | a `gpt_out` column, queries joined by `[SEP]`; an `id` column when present | `id`, else row (0-based) |

use std::collections::HashMap;
use std::path::Path;

use super::Decomposition;
use crate::error::{shorten, Error, Position, Result};
use crate::io::{json_error, read_utf8, JsonlLines};

/// Reads a decomposition file into claim id → queries (in file order).
pub fn read_plan_file(path: &Path, field: Option<Decomposition>) -> Result<HashMap<String, Vec<String>>> {
    let text = read_utf8(path)?;
    let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    match extension {
        "jsonl" => read_jsonl(path, &text),
        "json" => read_quantemp(path, &text, field),
        "csv" => read_csv(path, &text),
        _ => Err(Error::UnknownFormat {
            path: path.to_path_buf(),
            why: "a decomposition file ends in .jsonl (quantir), .json (QuanTemp++ claims) or .csv (ClaimDecomp, QGen)".into(),
            choices: "file:PATH.jsonl|file:PATH.json:claimdecomp|pgmfc|fcdecomp|file:PATH.csv".into(),
        }),
    }
}

fn read_jsonl(path: &Path, text: &str) -> Result<HashMap<String, Vec<String>>> {
    #[derive(serde::Deserialize)]
    struct Line {
        id: serde_json::Value,
        queries: Vec<String>,
    }
    let mut out = HashMap::new();
    for record in JsonlLines::new(text) {
        let line: Line = serde_json::from_str(record.text).map_err(|e| json_error(path, record.at, &e))?;
        let id = match line.id {
            serde_json::Value::String(s) => s,
            serde_json::Value::Number(n) => n.to_string(),
            other => return Err(Error::Parse { path: path.to_path_buf(), at: record.at, field: "id".into(), expected: "a string id".into(), found: shorten(&other.to_string()) }),
        };
        if out.insert(id.clone(), line.queries).is_some() {
            return Err(Error::Malformed { path: path.to_path_buf(), at: record.at, message: format!("claim {id} has two lines") });
        }
    }
    Ok(out)
}

fn read_quantemp(path: &Path, text: &str, field: Option<Decomposition>) -> Result<HashMap<String, Vec<String>>> {
    let field = field.ok_or_else(|| Error::InvalidArgument {
        name: "plan",
        message: format!("{} is a QuanTemp++ claims file: name the decomposition, e.g. file:{}:claimdecomp (or :pgmfc, :fcdecomp)", path.display(), path.display()),
    })?;
    let start = Position { line: 1, column: Some(1) };
    let claims: Vec<serde_json::Map<String, serde_json::Value>> = serde_json::from_str(text).map_err(|e| json_error(path, start, &e))?;
    let mut out = HashMap::new();
    for (i, claim) in claims.iter().enumerate() {
        let (name, value) = match field {
            Decomposition::ClaimDecomp => ("decomp_questions", claim.get("decomp_questions")),
            Decomposition::PgmFc => ("pgmfc_questions", claim.get("pgmfc_questions")),
            Decomposition::FcDecomp => ("in_file", claim.get("in_file")),
        };
        let queries: Vec<String> = match value {
            None | Some(serde_json::Value::Null) => Vec::new(),
            Some(serde_json::Value::Array(items)) => items.iter().filter_map(|v| v.as_str()).map(clean_question).collect(),
            Some(serde_json::Value::Object(map)) if field == Decomposition::FcDecomp => map.keys().map(|k| clean_question(k)).collect(),
            Some(other) => {
                return Err(Error::Parse {
                    path: path.to_path_buf(),
                    at: start,
                    field: format!("[{i}].{name}"),
                    expected: if field == Decomposition::FcDecomp { "an object keyed by query".into() } else { "a list of questions".into() },
                    found: shorten(&other.to_string()),
                })
            }
        };
        out.insert(i.to_string(), queries);
    }
    Ok(out)
}

fn read_csv(path: &Path, text: &str) -> Result<HashMap<String, Vec<String>>> {
    let header = text.lines().next().unwrap_or("");
    let (delimiter, claimdecomp) = if header.trim() == "claims@questions" { (b'@', true) } else { (b',', false) };
    let mut reader = csv::ReaderBuilder::new().delimiter(delimiter).from_reader(text.as_bytes());
    let csv_error = |e: csv::Error| {
        let line = e.position().map_or(1, |p| p.line() as usize);
        Error::Malformed { path: path.to_path_buf(), at: Position { line, column: None }, message: e.to_string() }
    };
    let headers = reader.headers().map_err(csv_error)?.clone();
    let column = |name: &str| headers.iter().position(|h| h == name);
    let (queries_col, separator) = if claimdecomp {
        (1, "Next Question:")
    } else {
        let col = column("gpt_out").ok_or_else(|| Error::UnknownFormat {
            path: path.to_path_buf(),
            why: format!("a CSV with neither the ClaimDecomp header `claims@questions` nor a QGen `gpt_out` column (header: {})", shorten(header)),
            choices: "file:PATH.csv with a ClaimDecomp or QGen CSV".into(),
        })?;
        (col, "[SEP]")
    };
    let id_col = column("id");
    let mut out = HashMap::new();
    for (row, record) in reader.records().enumerate() {
        let record = record.map_err(csv_error)?;
        let id = id_col.and_then(|c| record.get(c)).map_or_else(|| row.to_string(), str::to_string);
        let queries = record.get(queries_col).unwrap_or("").split(separator).map(clean_question).filter(|q| !q.is_empty()).collect();
        out.insert(id, queries);
    }
    Ok(out)
}

/// Trims a question and drops a PgmFC-style `QuestionN = ` label.
fn clean_question(q: &str) -> String {
    let q = q.trim();
    let unlabelled = q
        .strip_prefix("Question")
        .and_then(|rest| rest.trim_start_matches(|c: char| c.is_ascii_digit()).trim_start().strip_prefix('='))
        .map_or(q, str::trim);
    unlabelled.trim_matches('"').trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claimdecomp_csv_as_published() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("test_claimdecomp.csv");
        std::fs::write(&path, "claims@questions\n\"\"\"A claim with 800,000 jobs.\"\"\"@\"Did it cost 800,000 jobs?\nNext Question: Is the CBO non-partisan?\"\n\"\"\"Second\"\"\"@\"Q2?\"\n").unwrap();
        let plans = read_plan_file(&path, None).unwrap();
        assert_eq!(plans["0"], ["Did it cost 800,000 jobs?", "Is the CBO non-partisan?"]);
        assert_eq!(plans["1"], ["Q2?"]);
    }

    #[test]
    fn qgen_csv_and_labels() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("qgen_out.csv");
        std::fs::write(&path, "claim,gpt_out\nx,\"inflation 2023 [SEP] CPI July 2023\"\n").unwrap();
        assert_eq!(read_plan_file(&path, None).unwrap()["0"], ["inflation 2023", "CPI July 2023"]);
        assert_eq!(clean_question("Question2 = How many jobs?"), "How many jobs?");
    }
}
