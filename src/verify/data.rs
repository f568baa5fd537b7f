//! Reading verification inputs: claims with evidence, gold labels and predictions.
//!
//! | file | layout | ids |
//! |---|---|---|
//! | QuanTemp evidence mapping (`.json`) | a list of `{"claim", "label"?, "evidences": [{"top_k_doc": [...]}]}` | position in the list |
//! | evidence JSONL | `{"id", "claim", "evidence": [...], "label"?}` a line | `id` |
//! | given evidence (`verify --evidence`) | evidence JSONL, `claim` optional, or a QuanTemp evidence mapping | `id` |
//! | gold JSONL | `{"id", "label"}` a line | `id` |
//! | predictions JSONL | `{"id", "label", "confidence", "evidence"}` a line | `id` |

use std::collections::HashMap;
use std::path::Path;

use super::Label;
use crate::error::{shorten, Error, Position, Result};
use crate::io::{json_error, read_utf8, JsonlLines};

/// A claim to verify with its evidence.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct VerifyExample {
    /// Claim id.
    pub id: String,
    /// Claim text.
    pub claim: String,
    /// Evidence texts, best first.
    pub evidence: Vec<String>,
    /// Gold label, when known.
    pub label: Option<Label>,
}

/// A verdict for one claim.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Prediction {
    /// Claim id.
    pub id: String,
    /// The verdict.
    pub label: Label,
    /// The model's probability for it.
    pub confidence: f64,
    /// The evidence it saw.
    #[serde(default)]
    pub evidence: Vec<String>,
}

fn label_of(path: &Path, at: Position, field: &str, value: Option<&serde_json::Value>) -> Result<Option<Label>> {
    match value {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(serde_json::Value::String(s)) => Label::parse(s).map(Some).ok_or_else(|| Error::Parse {
            path: path.to_path_buf(),
            at,
            field: field.into(),
            expected: "True, False or Conflicting (also \"Half True/False\")".into(),
            found: shorten(s),
        }),
        Some(other) => Err(Error::Parse { path: path.to_path_buf(), at, field: field.into(), expected: "a label string".into(), found: shorten(&other.to_string()) }),
    }
}

/// Reads claims with evidence (and gold labels when present) from a QuanTemp evidence mapping
/// (`.json`) or evidence JSONL.
pub fn read_examples(path: &Path) -> Result<Vec<VerifyExample>> {
    let text = read_utf8(path)?;
    let start = Position { line: 1, column: Some(1) };
    if path.extension().is_some_and(|e| e == "json") {
        let items: Vec<serde_json::Value> = serde_json::from_str(&text).map_err(|e| json_error(path, start, &e))?;
        return items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let claim = item["claim"].as_str().ok_or_else(|| Error::Parse { path: path.to_path_buf(), at: start, field: format!("[{i}].claim"), expected: "a string".into(), found: shorten(&item["claim"].to_string()) })?;
                let evidence = item["evidences"].as_array().into_iter().flatten().flat_map(|e| e["top_k_doc"].as_array().into_iter().flatten()).filter_map(|d| d.as_str()).map(str::to_string).collect();
                Ok(VerifyExample { id: i.to_string(), claim: claim.replace("/n", " "), evidence, label: label_of(path, start, &format!("[{i}].label"), item.get("label"))? })
            })
            .collect();
    }
    JsonlLines::new(&text)
        .map(|record| {
            let v: serde_json::Value = serde_json::from_str(record.text).map_err(|e| json_error(path, record.at, &e))?;
            let field = |name: &str| v.get(name).and_then(|x| x.as_str()).map(str::to_string);
            let id = field("id").ok_or_else(|| Error::Parse { path: path.to_path_buf(), at: record.at, field: "id".into(), expected: "a string".into(), found: "nothing".into() })?;
            let claim = field("claim").ok_or_else(|| Error::Parse { path: path.to_path_buf(), at: record.at, field: "claim".into(), expected: "a string".into(), found: "nothing".into() })?;
            let evidence = v["evidence"].as_array().into_iter().flatten().filter_map(|d| d.as_str()).map(str::to_string).collect();
            Ok(VerifyExample { id, claim, evidence, label: label_of(path, record.at, "label", v.get("label"))? })
        })
        .collect()
}

/// Reads the evidence given per claim (`verify --evidence`): JSONL `{"id", "evidence": [...]}`
/// (other fields ignored) or a QuanTemp evidence mapping; claim id → evidence texts.
pub fn read_evidence(path: &Path) -> Result<HashMap<String, Vec<String>>> {
    if path.extension().is_some_and(|e| e == "json") {
        return Ok(read_examples(path)?.into_iter().map(|e| (e.id, e.evidence)).collect());
    }
    let text = read_utf8(path)?;
    let mut given = HashMap::new();
    for record in JsonlLines::new(&text) {
        let v: serde_json::Value = serde_json::from_str(record.text).map_err(|e| json_error(path, record.at, &e))?;
        let bad = |field: &str, expected: &str, found: &serde_json::Value| Error::Parse { path: path.to_path_buf(), at: record.at, field: field.into(), expected: expected.into(), found: shorten(&found.to_string()) };
        let id = v["id"].as_str().ok_or_else(|| bad("id", "a string", &v["id"]))?;
        let texts = v["evidence"].as_array().ok_or_else(|| bad("evidence", "an array of strings", &v["evidence"]))?;
        let texts = texts.iter().enumerate().map(|(i, t)| t.as_str().map(str::to_string).ok_or_else(|| bad(&format!("evidence[{i}]"), "a string", t))).collect::<Result<Vec<_>>>()?;
        given.insert(id.to_string(), texts);
    }
    Ok(given)
}

/// Reads gold labels: JSONL `{"id", "label"}`, or the labels of a QuanTemp evidence mapping.
pub fn read_gold(path: &Path) -> Result<HashMap<String, Label>> {
    if path.extension().is_some_and(|e| e == "json") {
        return Ok(read_examples(path)?.into_iter().filter_map(|e| e.label.map(|l| (e.id, l))).collect());
    }
    let text = read_utf8(path)?;
    let mut gold = HashMap::new();
    for record in JsonlLines::new(&text) {
        let v: serde_json::Value = serde_json::from_str(record.text).map_err(|e| json_error(path, record.at, &e))?;
        let id = match &v["id"] {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Number(n) => n.to_string(),
            other => return Err(Error::Parse { path: path.to_path_buf(), at: record.at, field: "id".into(), expected: "a string".into(), found: shorten(&other.to_string()) }),
        };
        let label = label_of(path, record.at, "label", v.get("label"))?
            .ok_or_else(|| Error::Parse { path: path.to_path_buf(), at: record.at, field: "label".into(), expected: "a label".into(), found: "nothing".into() })?;
        gold.insert(id, label);
    }
    Ok(gold)
}

/// Reads predictions JSONL.
pub fn read_predictions(path: &Path) -> Result<Vec<Prediction>> {
    let text = read_utf8(path)?;
    JsonlLines::new(&text)
        .map(|record| {
            let v: serde_json::Value = serde_json::from_str(record.text).map_err(|e| json_error(path, record.at, &e))?;
            let label = label_of(path, record.at, "label", v.get("label"))?
                .ok_or_else(|| Error::Parse { path: path.to_path_buf(), at: record.at, field: "label".into(), expected: "a label".into(), found: "nothing".into() })?;
            let id = v["id"].as_str().map(str::to_string).or_else(|| v["id"].as_u64().map(|n| n.to_string()));
            let id = id.ok_or_else(|| Error::Parse { path: path.to_path_buf(), at: record.at, field: "id".into(), expected: "a string".into(), found: shorten(&v["id"].to_string()) })?;
            Ok(Prediction { id, label, confidence: v["confidence"].as_f64().unwrap_or(1.0), evidence: Vec::new() })
        })
        .collect()
}
