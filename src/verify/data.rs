//! Reading verification inputs: claims with evidence, gold labels and predictions.
//!
//! | file | layout | ids |
//! |---|---|---|
//! | QuanTemp evidence mapping (`.json`) | a list of `{"claim", "label"?, "evidences": [{"top_k_doc": [...]}]}` | position in the list |
//! | evidence JSONL | `{"id"?, "claim", "evidence"?: [...], "context"?, "db_id"?, "label"?, "category"?}` a line | `id`, else the record's position (from 0) |
//! | given evidence (`verify --evidence`) | evidence JSONL, `claim` optional, or a QuanTemp evidence mapping | as above |
//! | gold JSONL | `{"id"?, "label", "category"?}` a line (other fields ignored) | as above |
//! | predictions JSONL | `{"id", "label", "confidence", "evidence", …}` a line | `id` |
//! | stance-labelled claims (CLIMATE-FEVER's published JSONL) | `{"claim_id", "claim", "claim_label", "evidences": [{"evidence", "evidence_label"}, …]}` a line (other fields ignored) | `claim_id` |
//!
//! The evidence JSONL takes the benchmarks' own schemas as they are: CoverBench's records
//! (`claim`, one long `context` — text with tables —, `label` true/false or "Correct"/"Incorrect",
//! metadata fields ignored) and ClaimDB's (`claim`, the database id `db_id`, `label`
//! entailed/contradicted/not-enough-info, and for not-enough-info claims the `category`:
//! out-of-schema, counterfactual or subjective). `evidence` and `context` may both be given; the
//! context comes after the evidence list. An `id` is a string or a number.

use std::collections::HashMap;
use std::path::Path;

use super::{EvidenceStance, Label, Stance};
use crate::analysis::quantity::Comparison;
use crate::error::{shorten, Error, Position, Result};
use crate::io::{json_error, read_utf8, JsonlLines};

/// A claim to verify with its evidence.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct VerifyExample {
    /// Claim id.
    pub id: String,
    /// Claim text.
    pub claim: String,
    /// Evidence texts, best first (they may hold tables: [`VerifyExample::tables`]).
    pub evidence: Vec<String>,
    /// Gold label, when known.
    pub label: Option<Label>,
    /// The database the claim is checked against (ClaimDB's `db_id`), when it names one.
    pub database: Option<String>,
}

impl VerifyExample {
    /// A claim with its evidence and no database.
    pub fn new(id: impl Into<String>, claim: impl Into<String>, evidence: Vec<String>, label: Option<Label>) -> VerifyExample {
        VerifyExample { id: id.into(), claim: claim.into(), evidence, label, database: None }
    }
}

/// Why a verdict was withheld.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Abstention {
    /// The evidence does not bear on the claim.
    Evidence,
    /// The verifier is unsure.
    Confidence,
}

/// Why a not-enough-info claim cannot be decided, as ClaimDB sorts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NeiCategory {
    /// The claim needs data the database does not have.
    OutOfSchema,
    /// The claim supposes something that did not happen.
    Counterfactual,
    /// The claim is a matter of opinion.
    Subjective,
}

impl NeiCategory {
    /// Every category.
    pub const ALL: [NeiCategory; 3] = [NeiCategory::OutOfSchema, NeiCategory::Counterfactual, NeiCategory::Subjective];

    /// Reads a category (case-insensitive; hyphens, underscores or spaces).
    pub fn parse(text: &str) -> Option<NeiCategory> {
        match text.trim().to_lowercase().replace(['_', ' '], "-").as_str() {
            "out-of-schema" => Some(NeiCategory::OutOfSchema),
            "counterfactual" => Some(NeiCategory::Counterfactual),
            "subjective" => Some(NeiCategory::Subjective),
            _ => None,
        }
    }

    /// The name printed.
    pub fn name(self) -> &'static str {
        match self {
            NeiCategory::OutOfSchema => "out-of-schema",
            NeiCategory::Counterfactual => "counterfactual",
            NeiCategory::Subjective => "subjective",
        }
    }
}

/// A gold label, with ClaimDB's not-enough-info category when the file gives one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gold {
    /// The label.
    pub label: Label,
    /// Why the claim is not-enough-info.
    pub category: Option<NeiCategory>,
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
    /// SQL statements run against the database (the database agent's explanation), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sql: Vec<String>,
    /// Tool calls the database agent made (refused and malformed ones included).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<usize>,
    /// Statements refused (writes, more than one statement), with the reason.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<String>,
    /// Why the run failed, when it did: then `label` is only the task's fallback and
    /// `verify-eval` counts the claim wrong, as ClaimDB does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// The verifier's verdict when an abstention rule was applied (withheld or not); then
    /// `confidence` is this verdict's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Label>,
    /// The probability that the evidence bears on the claim (`abstain.rs`), when judged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relevance: Option<f64>,
    /// Why the verdict was withheld (then `label` is Not Enough Info).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abstained: Option<Abstention>,
    /// The claim's quantities beside the evidence's (`quantity.rs`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub comparisons: Vec<Comparison>,
    /// Each evidence text's stance on the claim, in `evidence`'s order (a `stance:` or `onnx:`
    /// verifier).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stances: Vec<EvidenceStance>,
}

impl Prediction {
    /// A verdict from a verifier that reads evidence texts.
    pub fn verdict(id: impl Into<String>, label: Label, confidence: f64, evidence: Vec<String>) -> Prediction {
        Prediction { id: id.into(), label, confidence, evidence, sql: Vec::new(), tool_calls: None, refused: Vec::new(), failure: None, verdict: None, relevance: None, abstained: None, comparisons: Vec::new(), stances: Vec::new() }
    }

    /// Applies an abstention decision: keeps the verdict in `verdict` and, when `abstained` is
    /// set, says Not Enough Info.
    pub fn abstain(&mut self, abstained: Option<Abstention>, relevance: f64) {
        self.verdict = Some(self.verdict.unwrap_or(self.label));
        self.relevance = Some(relevance);
        self.abstained = abstained;
        if abstained.is_some() {
            self.label = Label::NotEnoughInfo;
        }
    }

    /// The verdict at full coverage: the one withheld, if any, else the label.
    pub fn full_verdict(&self) -> Label {
        self.verdict.unwrap_or(self.label)
    }
}

fn label_of(path: &Path, at: Position, field: &str, value: Option<&serde_json::Value>) -> Result<Option<Label>> {
    match value {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(serde_json::Value::String(s)) => Label::parse(s).map(Some).ok_or_else(|| Error::Parse {
            path: path.to_path_buf(),
            at,
            field: field.into(),
            expected: "True, False, Conflicting or Not Enough Info (also \"Half True/False\", entailed, contradicted)".into(),
            found: shorten(s),
        }),
        // CoverBench writes its binary label as a boolean.
        Some(serde_json::Value::Bool(b)) => Ok(Some(if *b { Label::True } else { Label::False })),
        Some(other) => Err(Error::Parse { path: path.to_path_buf(), at, field: field.into(), expected: "a label string".into(), found: shorten(&other.to_string()) }),
    }
}

/// One line of an evidence, gold or given-evidence JSONL file (module doc).
struct Line {
    id: String,
    claim: Option<String>,
    evidence: Vec<String>,
    label: Option<Label>,
    database: Option<String>,
    category: Option<NeiCategory>,
    /// Whether the record has an `evidence` list or a `context`.
    given: bool,
    at: Position,
}

/// Reads the lines of a verification JSONL file: the one place ids, evidence, labels and
/// categories are read and their errors worded.
fn read_lines(path: &Path, text: &str) -> Result<Vec<Line>> {
    JsonlLines::new(text)
        .enumerate()
        .map(|(position, record)| {
            let v: serde_json::Value = serde_json::from_str(record.text).map_err(|e| json_error(path, record.at, &e))?;
            let bad = |field: &str, expected: &str, found: &serde_json::Value| Error::Parse { path: path.to_path_buf(), at: record.at, field: field.into(), expected: expected.into(), found: shorten(&found.to_string()) };
            let string = |field: &str| match v.get(field) {
                None | Some(serde_json::Value::Null) => Ok(None),
                Some(serde_json::Value::String(s)) => Ok(Some(s.clone())),
                Some(other) => Err(bad(field, "a string", other)),
            };
            let id = match v.get("id") {
                None | Some(serde_json::Value::Null) => position.to_string(),
                Some(serde_json::Value::String(s)) => s.clone(),
                Some(serde_json::Value::Number(n)) => n.to_string(),
                Some(other) => return Err(bad("id", "a string or a number", other)),
            };
            let mut evidence = match v.get("evidence") {
                None | Some(serde_json::Value::Null) => Vec::new(),
                Some(serde_json::Value::Array(texts)) => texts.iter().enumerate().map(|(i, t)| t.as_str().map(str::to_string).ok_or_else(|| bad(&format!("evidence[{i}]"), "a string", t))).collect::<Result<Vec<_>>>()?,
                Some(other) => return Err(bad("evidence", "an array of strings", other)),
            };
            let context = string("context")?;
            let given = context.is_some() || v.get("evidence").is_some_and(|e| !e.is_null());
            evidence.extend(context);
            let category = match string("category")? {
                None => None,
                Some(c) => Some(NeiCategory::parse(&c).ok_or_else(|| bad("category", "out-of-schema, counterfactual or subjective", &serde_json::Value::String(c)))?),
            };
            Ok(Line { id, claim: string("claim")?, evidence, label: label_of(path, record.at, "label", v.get("label"))?, database: string("db_id")?, category, given, at: record.at })
        })
        .collect()
}

/// Reads claims with evidence (and gold labels when present) from a QuanTemp evidence mapping
/// (`.json`) or evidence JSONL (CoverBench and ClaimDB records included).
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
                Ok(VerifyExample::new(i.to_string(), claim.replace("/n", " "), evidence, label_of(path, start, &format!("[{i}].label"), item.get("label"))?))
            })
            .collect();
    }
    read_lines(path, &text)?
        .into_iter()
        .map(|line| {
            let claim = line.claim.ok_or_else(|| Error::Parse { path: path.to_path_buf(), at: line.at, field: "claim".into(), expected: "a string".into(), found: "nothing".into() })?;
            Ok(VerifyExample { id: line.id, claim, evidence: line.evidence, label: line.label, database: line.database })
        })
        .collect()
}

/// A claim with evidence texts each labelled with its stance, and the claim's own label
/// (CLIMATE-FEVER's SUPPORTS, REFUTES, DISPUTED — read as Conflicting — or NOT_ENOUGH_INFO).
#[derive(Debug, Clone, PartialEq)]
pub struct StanceClaim {
    /// `claim_id`.
    pub id: String,
    /// The claim.
    pub claim: String,
    /// The claim's label.
    pub label: Label,
    /// The evidence texts and their stances, in the file's order.
    pub evidence: Vec<(String, Stance)>,
}

/// Reads stance-labelled claims (module doc), in the file's order. Every field named there is
/// required; a claim without evidence is an error, as is a repeated `claim_id`.
pub fn read_stance_claims(path: &Path) -> Result<Vec<StanceClaim>> {
    let text = read_utf8(path)?;
    let mut seen: HashMap<String, usize> = HashMap::new();
    let claims = JsonlLines::new(&text)
        .map(|record| {
            let v: serde_json::Value = serde_json::from_str(record.text).map_err(|e| json_error(path, record.at, &e))?;
            let bad = |field: &str, expected: &str, found: Option<&serde_json::Value>| Error::Parse { path: path.to_path_buf(), at: record.at, field: field.into(), expected: expected.into(), found: match found {
                None => "nothing".into(),
                Some(serde_json::Value::String(text)) => shorten(text),
                Some(other) => shorten(&other.to_string()),
            } };
            let string = |value: Option<&serde_json::Value>, field: &str| value.and_then(serde_json::Value::as_str).map(str::to_string).ok_or_else(|| bad(field, "a string", value));
            let id = match v.get("claim_id") {
                Some(serde_json::Value::String(s)) => s.clone(),
                Some(serde_json::Value::Number(n)) => n.to_string(),
                other => return Err(bad("claim_id", "a string or a number", other)),
            };
            if let Some(&first_line) = seen.get(&id) {
                return Err(Error::DuplicateId { path: path.to_path_buf(), id, first_line, line: record.at.line });
            }
            seen.insert(id.clone(), record.at.line);
            let claim = string(v.get("claim"), "claim")?;
            let label_text = string(v.get("claim_label"), "claim_label")?;
            let label = Label::parse(&label_text).ok_or_else(|| bad("claim_label", "SUPPORTS, REFUTES, DISPUTED or NOT_ENOUGH_INFO", v.get("claim_label")))?;
            let evidences = v.get("evidences").and_then(serde_json::Value::as_array).filter(|e| !e.is_empty()).ok_or_else(|| bad("evidences", "a non-empty array of {\"evidence\", \"evidence_label\"}", v.get("evidences")))?;
            let evidence = evidences
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    let text = string(e.get("evidence"), &format!("evidences[{i}].evidence"))?;
                    let field = format!("evidences[{i}].evidence_label");
                    let stance = string(e.get("evidence_label"), &field)?;
                    let stance = Stance::parse(&stance).ok_or_else(|| bad(&field, "SUPPORTS, REFUTES or NOT_ENOUGH_INFO", e.get("evidence_label")))?;
                    Ok((text, stance))
                })
                .collect::<Result<Vec<_>>>()?;
            Ok(StanceClaim { id, claim, label, evidence })
        })
        .collect::<Result<Vec<_>>>()?;
    if claims.is_empty() {
        return Err(Error::Empty { path: path.to_path_buf(), what: "no stance-labelled claims".into(), hint: "give CLIMATE-FEVER's JSONL, e.g. data/climate-fever/claims.jsonl".into() });
    }
    Ok(claims)
}

/// Reads the evidence given per claim (`verify --evidence`): evidence JSONL (`evidence` and/or
/// `context`; other fields ignored) or a QuanTemp evidence mapping; claim id → evidence texts.
pub fn read_evidence(path: &Path) -> Result<HashMap<String, Vec<String>>> {
    if path.extension().is_some_and(|e| e == "json") {
        return Ok(read_examples(path)?.into_iter().map(|e| (e.id, e.evidence)).collect());
    }
    read_lines(path, &read_utf8(path)?)?
        .into_iter()
        .map(|line| match line.given {
            true => Ok((line.id, line.evidence)),
            false => Err(Error::Parse { path: path.to_path_buf(), at: line.at, field: "evidence".into(), expected: "an array of strings (or a \"context\" string)".into(), found: "nothing".into() }),
        })
        .collect()
}

/// Reads gold labels: JSONL `{"id", "label", "category"?}`, or the labels of a QuanTemp evidence
/// mapping.
pub fn read_gold(path: &Path) -> Result<HashMap<String, Gold>> {
    if path.extension().is_some_and(|e| e == "json") {
        return Ok(read_examples(path)?.into_iter().filter_map(|e| e.label.map(|label| (e.id, Gold { label, category: None }))).collect());
    }
    read_lines(path, &read_utf8(path)?)?
        .into_iter()
        .map(|line| {
            let label = line.label.ok_or_else(|| Error::Parse { path: path.to_path_buf(), at: line.at, field: "label".into(), expected: "a label".into(), found: "nothing".into() })?;
            Ok((line.id, Gold { label, category: line.category }))
        })
        .collect()
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
            let mut prediction = Prediction::verdict(id, label, v["confidence"].as_f64().unwrap_or(1.0), Vec::new());
            prediction.tool_calls = v["tool_calls"].as_u64().map(|n| n as usize);
            prediction.failure = v["failure"].as_str().map(str::to_string);
            prediction.verdict = label_of(path, record.at, "verdict", v.get("verdict"))?;
            prediction.relevance = v["relevance"].as_f64();
            prediction.abstained = match v.get("abstained") {
                None | Some(serde_json::Value::Null) => None,
                Some(a) => Some(serde_json::from_value(a.clone()).map_err(|_| Error::Parse { path: path.to_path_buf(), at: record.at, field: "abstained".into(), expected: "\"evidence\" or \"confidence\"".into(), found: shorten(&a.to_string()) })?),
            };
            Ok(prediction)
        })
        .collect()
}
