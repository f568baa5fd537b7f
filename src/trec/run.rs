//! TREC run files: `qid Q0 docid rank score tag`, one line per retrieved document.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use crate::error::{Error, Position, Result};

/// The run tag quantir writes.
pub const DEFAULT_TAG: &str = "quantir";

/// One retrieved document and its score.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoredDoc {
    /// The document id.
    pub docid: String,
    /// Its score (higher is better).
    pub score: f64,
}

/// One query's ranked documents, best first.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RankedList {
    /// The query id.
    pub qid: String,
    /// The documents, in rank order.
    pub docs: Vec<ScoredDoc>,
}

/// A run: ranked lists for a set of queries, in the order the queries were given.
///
/// Invariant: ranks written are positions in `docs` plus one; a reader recovers the order from
/// the scores (trec_eval's rule: score descending, then docid descending), not from the rank
/// column, so a run written by quantir reads back in the same order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Run {
    /// The ranked lists.
    pub queries: Vec<RankedList>,
}

impl Run {
    /// Writes the run in TREC format with `tag`, through a temporary file renamed into place.
    pub fn write_trec(&self, path: &Path, tag: &str) -> Result<()> {
        let tmp = path.with_extension("tmp-quantir");
        let write = || -> std::io::Result<()> {
            let mut out = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
            for list in &self.queries {
                for (i, doc) in list.docs.iter().enumerate() {
                    writeln!(out, "{} Q0 {} {} {} {}", list.qid, doc.docid, i + 1, doc.score, tag)?;
                }
            }
            out.into_inner().map_err(|e| e.into_error())?.sync_all()
        };
        if let Err(e) = write() {
            let _ = std::fs::remove_file(&tmp);
            return Err(Error::io(path, e));
        }
        std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e))
    }

    /// Reads a TREC run file. Every line needs six whitespace-separated fields with a numeric
    /// score; a docid repeated within one query is an error naming both lines.
    pub fn read_trec(path: &Path) -> Result<Run> {
        let text = crate::io::read_utf8(path)?;
        let mut run = Run::default();
        let mut query_index: HashMap<String, usize> = HashMap::new();
        let mut seen: HashMap<(usize, String), usize> = HashMap::new();
        for (i, line) in text.lines().enumerate() {
            let line_no = i + 1;
            if line.trim().is_empty() {
                continue;
            }
            let at = Position { line: line_no, column: None };
            let fields: Vec<&str> = line.split_whitespace().collect();
            if fields.len() != 6 {
                return Err(Error::Malformed {
                    path: path.to_path_buf(),
                    at,
                    message: format!("expected 6 fields `qid Q0 docid rank score tag`, found {}", fields.len()),
                });
            }
            let score: f64 = fields[4].parse().map_err(|_| Error::Parse {
                path: path.to_path_buf(),
                at,
                field: "score".into(),
                expected: "a number".into(),
                found: crate::error::shorten(fields[4]),
            })?;
            let q = *query_index.entry(fields[0].to_string()).or_insert_with(|| {
                run.queries.push(RankedList { qid: fields[0].to_string(), docs: Vec::new() });
                run.queries.len() - 1
            });
            if let Some(first_line) = seen.insert((q, fields[2].to_string()), line_no) {
                return Err(Error::DuplicateId { path: path.to_path_buf(), id: format!("{} (query {})", fields[2], fields[0]), first_line, line: line_no });
            }
            run.queries[q].docs.push(ScoredDoc { docid: fields[2].to_string(), score });
        }
        for list in &mut run.queries {
            sort_trec_eval(&mut list.docs);
        }
        Ok(run)
    }
}

/// Sorts documents as trec_eval ranks them: score descending, ties by docid descending (bytes).
pub fn sort_trec_eval(docs: &mut [ScoredDoc]) {
    docs.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| b.docid.cmp(&a.docid)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_then_read_keeps_order_and_scores() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.trec");
        let run = Run {
            queries: vec![RankedList {
                qid: "q1".into(),
                docs: vec![
                    ScoredDoc { docid: "b".into(), score: 2.5 },
                    ScoredDoc { docid: "c".into(), score: 1.0 },
                    ScoredDoc { docid: "a".into(), score: 1.0 },
                ],
            }],
        };
        run.write_trec(&path, DEFAULT_TAG).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().next().unwrap(), "q1 Q0 b 1 2.5 quantir");
        assert_eq!(Run::read_trec(&path).unwrap(), run);
    }

    #[test]
    fn duplicate_docid_names_both_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.trec");
        std::fs::write(&path, "1 Q0 d1 1 3 x\n1 Q0 d2 2 2 x\n1 Q0 d1 3 1 x\n").unwrap();
        let err = Run::read_trec(&path).unwrap_err().to_string();
        assert!(err.ends_with("run.trec:3: duplicate id \"d1 (query 1)\" (first at line 1)"), "{err}");
    }
}
