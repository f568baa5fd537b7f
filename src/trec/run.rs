//! TREC run files: `qid Q0 docid rank score tag`, one line per retrieved document.

use std::io::Write;
use std::path::Path;

use crate::error::{Error, Position, Result};

/// The run tag quantir writes.
pub const DEFAULT_TAG: &str = "quantir";

/// The order of every ranked list quantir makes, writes or reads — trec_eval's: score descending,
/// then id descending. `Less` means `a` ranks before `b`. Ids are docids (strings) in runs and
/// id ranks (`u32`, assigned in docid order) inside retrieval, which order the same way. The one
/// place this rule is written.
pub fn ranking<K: Ord>(a: (K, f64), b: (K, f64)) -> std::cmp::Ordering {
    b.1.total_cmp(&a.1).then_with(|| b.0.cmp(&a.0))
}

/// Writes ranked lists as a TREC run, `qid Q0 docid rank score tag` a line, ranks from 1 in the
/// order given, whole or not at all ([`crate::io::write_replacing_with`]: a file at `path` is
/// always a whole run; `/dev/stdout` and pipes are streamed into). The lists may borrow their ids
/// from anywhere (an index's id table, a parsed file), so a run of millions of lines is written
/// without a `String` per line. A score is written by [`ScoreText`]: the shortest text that reads
/// back to the same `f64`.
pub fn write_trec<'a, Q, D>(path: &Path, tag: &str, queries: Q) -> Result<()>
where
    Q: IntoIterator<Item = (&'a str, D)>,
    D: IntoIterator<Item = (&'a str, f64)>,
{
    crate::io::write_replacing_with(path, |file| {
        const FLUSH_AT: usize = 1 << 20;
        let (mut ranks, mut scores) = (itoa::Buffer::new(), ScoreText::default());
        // Lines go straight into one buffer, flushed to the file every megabyte; a query's
        // `qid Q0 ` and the ` tag\n` every line ends with are made once.
        let mut out = Vec::with_capacity(FLUSH_AT + 4096);
        let mut written = 0u64;
        let tail = format!(" {tag}\n");
        let mut head = Vec::new();
        for (qid, docs) in queries {
            head.clear();
            head.extend_from_slice(qid.as_bytes());
            head.extend_from_slice(b" Q0 ");
            for (i, (docid, score)) in docs.into_iter().enumerate() {
                out.extend_from_slice(&head);
                out.extend_from_slice(docid.as_bytes());
                out.push(b' ');
                out.extend_from_slice(ranks.format(i + 1).as_bytes());
                out.push(b' ');
                out.extend_from_slice(scores.format(score).as_bytes());
                out.extend_from_slice(tail.as_bytes());
                if out.len() >= FLUSH_AT {
                    file.write_all(&out)?;
                    crate::io::start_writeback(file, written, out.len() as u64);
                    written += out.len() as u64;
                    out.clear();
                }
            }
        }
        file.write_all(&out)
    })
}

/// A score's text: the shortest decimal that reads back to the same `f64`, the digit nearest the
/// exact value when two shortest texts are equally near (ties to even: the digits of Python's
/// `repr`, ryu and zmij), laid out as Rust's `Display` lays it out (no exponent, `1` for 1.0). Std's
/// `Display` breaks such ties upward instead (20.3238677978515625, a widened f32 BM25 score, is
/// `…562` here and `…563` there); both read back to the same value, and this is several times
/// faster. Tested against std's digits and, in the Python suite, against `repr`.
#[derive(Default)]
pub(crate) struct ScoreText {
    digits: zmij::Buffer,
    fallback: String,
}

impl ScoreText {
    pub(crate) fn format(&mut self, score: f64) -> &str {
        // zmij writes an exponent only for a magnitude below 1e-5 or from 1e16 up: scores in
        // between (every BM25 score of a real collection) skip looking for one.
        if (1e-5..1e16).contains(&score.abs()) {
            let text = self.digits.format_finite(score);
            return text.strip_suffix(".0").unwrap_or(text);
        }
        if score.is_finite() {
            let text = self.digits.format_finite(score);
            if !text.contains('e') {
                return text.strip_suffix(".0").unwrap_or(text);
            }
        }
        self.fallback.clear();
        std::fmt::Write::write_fmt(&mut self.fallback, format_args!("{score}")).expect("a String takes any text");
        &self.fallback
    }
}

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
/// the scores (trec_eval's rule, [`ranking`]: score descending, then docid descending), not from the rank
/// column, so a run written by quantir reads back in the same order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Run {
    /// The ranked lists.
    pub queries: Vec<RankedList>,
}

impl Run {
    /// Writes the run in TREC format with `tag`, whole or not at all ([`write_trec`]).
    pub fn write_trec(&self, path: &Path, tag: &str) -> Result<()> {
        write_trec(path, tag, self.queries.iter().map(|list| (list.qid.as_str(), list.docs.iter().map(|doc| (doc.docid.as_str(), doc.score)))))
    }

    /// Reads a TREC run file (see [`parse_trec`]) into owned strings.
    pub fn read_trec(path: &Path) -> Result<Run> {
        let text = crate::io::read_utf8(path)?;
        Ok(parse_trec(path, &text)?.to_owned_run())
    }

    /// A run from scores given in memory (the Python API's `{qid: {docid: score}}`), each query's
    /// documents put in [`ranking`] order and cut at `k` when given. Scores must be finite: NaN
    /// has no place in the order. `name` names the run in errors (`run["q1"]["d7"]`).
    pub fn from_scores(name: &str, queries: Vec<(String, Vec<(String, f64)>)>, k: Option<usize>) -> Result<Run> {
        let mut run = Run { queries: Vec::with_capacity(queries.len()) };
        for (qid, mut docs) in queries {
            if let Some((docid, score)) = docs.iter().find(|(_, s)| !s.is_finite()) {
                return Err(Error::Value { at: format!("{name}[{qid:?}][{docid:?}]"), expected: "a finite score".into(), found: score.to_string() });
            }
            docs.sort_unstable_by(|a, b| ranking((a.0.as_str(), a.1), (b.0.as_str(), b.1)));
            if let Some(k) = k {
                docs.truncate(k);
            }
            run.queries.push(RankedList { qid, docs: docs.into_iter().map(|(docid, score)| ScoredDoc { docid, score }).collect() });
        }
        Ok(run)
    }

    /// A borrowed view, for evaluation.
    pub fn view(&self) -> RunView<'_> {
        RunView {
            queries: self
                .queries
                .iter()
                .map(|l| QueryView { qid: &l.qid, docs: l.docs.iter().map(|d| (d.docid.as_str(), d.score)).collect() })
                .collect(),
        }
    }
}

/// A run whose ids borrow from the file's text: what evaluation reads, without an allocation per
/// line. Each query's documents are in trec_eval's order (score descending, docid descending).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RunView<'a> {
    /// The queries, in order of first appearance.
    pub queries: Vec<QueryView<'a>>,
}

/// One query of a [`RunView`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct QueryView<'a> {
    /// The query id.
    pub qid: &'a str,
    /// `(docid, score)`, in trec_eval's order.
    pub docs: Vec<(&'a str, f64)>,
}

impl RunView<'_> {
    fn to_owned_run(&self) -> Run {
        Run {
            queries: self
                .queries
                .iter()
                .map(|q| RankedList { qid: q.qid.to_string(), docs: q.docs.iter().map(|(d, s)| ScoredDoc { docid: d.to_string(), score: *s }).collect() })
                .collect(),
        }
    }
}

/// Consecutive lines of one query within a chunk of the file.
struct Group<'a> {
    qid: &'a str,
    docs: Vec<(&'a str, f64)>,
    /// Byte offset of each line, for error positions.
    offsets: Vec<usize>,
}

/// Parses a TREC run's text: six whitespace-separated fields a line with a numeric score; a docid
/// repeated within one query is an error naming both lines. The file is parsed in chunks on all
/// cores (a run of 2.5M lines is typical), then grouped by query in order of first appearance.
pub fn parse_trec<'a>(path: &Path, text: &'a str) -> Result<RunView<'a>> {
    use rayon::prelude::*;
    const CHUNK_BYTES: usize = 1 << 20;
    let mut bounds = vec![0];
    while let Some(&last) = bounds.last() {
        if last >= text.len() {
            break;
        }
        let target = (last + CHUNK_BYTES).min(text.len());
        // Byte search: `target` may fall inside a multi-byte character, a newline never does.
        let end = text.as_bytes()[target..].iter().position(|&b| b == b'\n').map_or(text.len(), |i| target + i + 1);
        bounds.push(end);
    }
    let chunks: Vec<Vec<Group<'a>>> = bounds
        .par_windows(2)
        .map(|w| parse_chunk(path, text, w[0], w[1]))
        .collect::<Result<_>>()?;
    let mut index: rustc_hash::FxHashMap<&'a str, usize> = Default::default();
    let mut queries: Vec<(QueryView<'a>, Vec<usize>)> = Vec::new();
    for group in chunks.into_iter().flatten() {
        let q = *index.entry(group.qid).or_insert_with(|| {
            queries.push((QueryView { qid: group.qid, docs: Vec::new() }, Vec::new()));
            queries.len() - 1
        });
        let (query, offsets) = &mut queries[q];
        if query.docs.is_empty() {
            query.docs = group.docs;
            *offsets = group.offsets;
        } else {
            query.docs.extend(group.docs);
            offsets.extend(group.offsets);
        }
    }
    let queries = queries
        .into_par_iter()
        .map(|(mut query, offsets)| {
            let mut seen: rustc_hash::FxHashMap<&str, usize> = rustc_hash::FxHashMap::with_capacity_and_hasher(query.docs.len(), Default::default());
            for (i, (docid, _)) in query.docs.iter().enumerate() {
                if let Some(first) = seen.insert(docid, i) {
                    let line = |i: usize| crate::io::position_at(text, offsets[i]).line;
                    return Err(Error::DuplicateId {
                        path: path.to_path_buf(),
                        id: format!("{docid} (query {})", query.qid),
                        first_line: line(first),
                        line: line(i),
                    });
                }
            }
            // Runs are usually written in this order already (quantir's are): check before sorting.
            let order = |a: &(&str, f64), b: &(&str, f64)| ranking(*a, *b);
            if !query.docs.is_sorted_by(|a, b| order(a, b).is_le()) {
                query.docs.sort_unstable_by(order);
            }
            Ok(query)
        })
        .collect::<Result<_>>()?;
    Ok(RunView { queries })
}

fn parse_chunk<'a>(path: &Path, text: &'a str, start: usize, end: usize) -> Result<Vec<Group<'a>>> {
    let mut groups: Vec<Group<'a>> = Vec::new();
    let mut offset = start;
    for raw in text[start..end].split_inclusive('\n') {
        let line_offset = offset;
        offset += raw.len();
        if raw.trim_start().starts_with('#') {
            continue;
        }
        let mut fields = raw.split_ascii_whitespace();
        // Columns after the sixth are ignored, and `#` lines are comments, as trec_eval reads runs.
        let (Some(qid), Some(_q0), Some(docid), Some(_rank), Some(score), Some(_tag)) =
            (fields.next(), fields.next(), fields.next(), fields.next(), fields.next(), fields.next())
        else {
            if raw.trim().is_empty() {
                continue;
            }
            let found = raw.split_ascii_whitespace().count();
            let at = Position { line: crate::io::position_at(text, line_offset).line, column: None };
            return Err(Error::Malformed { path: path.to_path_buf(), at, message: format!("expected 6 fields `qid Q0 docid rank score tag`, found {found}") });
        };
        let score: f64 = score.parse().ok().filter(|s: &f64| s.is_finite()).ok_or_else(|| Error::Parse {
            path: path.to_path_buf(),
            at: Position { line: crate::io::position_at(text, line_offset).line, column: None },
            field: "score".into(),
            expected: "a finite number".into(),
            found: crate::error::shorten(score),
        })?;
        match groups.last_mut() {
            Some(group) if group.qid == qid => {
                group.docs.push((docid, score));
                group.offsets.push(line_offset);
            }
            _ => groups.push(Group { qid, docs: vec![(docid, score)], offsets: vec![line_offset] }),
        }
    }
    Ok(groups)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Std's `Display` text, and whether `ours` is it up to the tie rule: the same length (both
    /// shortest) and, where they differ, only in the last digit, by one, ours even.
    fn agrees_with_std(ours: &str, score: f64) -> Result<(), String> {
        let std_text = format!("{score}");
        if ours == std_text {
            return Ok(());
        }
        let (a, b) = (ours.as_bytes(), std_text.as_bytes());
        let last = a.len().wrapping_sub(1);
        let tie = a.len() == b.len() && a[..last] == b[..last] && b[last].wrapping_sub(a[last]) == 1 && (a[last] - b'0').is_multiple_of(2);
        if tie && ours.parse::<f64>() == Ok(score) {
            Ok(())
        } else {
            Err(format!("{score:?}: {ours} against std's {std_text}"))
        }
    }

    #[test]
    fn score_text_at_the_edges() {
        let mut text = ScoreText::default();
        for score in [0.0, -0.0, 1.0, -1.0, 0.1, 1e-5, 1e-5f64.next_down(), 1e-5f64.next_up(), -1e-5, 1e-6, 1.5e-7, 9.999e15, 1e16f64.next_down(), -1e16f64.next_down(), 1e16, 1e17, 123456789012345.0, f64::MIN_POSITIVE, 5e-324, f64::MAX, f64::MIN, f64::from(12.345_679_f32), f64::from(f32::MAX)] {
            agrees_with_std(text.format(score), score).unwrap();
        }
        for score in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(text.format(score), format!("{score}"));
        }
        // The tie: std rounds the 17th digit up, Python and zmij to even. The literal is the
        // double's exact decimal value, every digit meant.
        #[allow(clippy::excessive_precision)]
        let tie = 20.3238677978515625;
        assert_eq!(text.format(tie), "20.323867797851562");
        assert_eq!(format!("{tie}"), "20.323867797851563");
    }

    proptest! {
        /// Any f64 bit pattern, and f32 scores widened as retrieval widens them.
        #[test]
        fn score_text_is_shortest_and_reads_back(bits in any::<u64>(), small in any::<u32>()) {
            let mut text = ScoreText::default();
            for score in [f64::from_bits(bits), f64::from(f32::from_bits(small)), f64::from(f32::from_bits(small) % 100.0)] {
                if score.is_finite() {
                    let ours = text.format(score).to_string();
                    prop_assert_eq!(ours.parse::<f64>().unwrap().to_bits(), score.to_bits());
                    if let Err(e) = agrees_with_std(&ours, score) {
                        return Err(TestCaseError::fail(e));
                    }
                }
            }
        }
    }

    #[test]
    fn written_lines_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.run");
        let run = Run {
            queries: vec![RankedList { qid: "q1".into(), docs: vec![ScoredDoc { docid: "d2".into(), score: 2.5 }, ScoredDoc { docid: "d1".into(), score: 1.0 }] }, RankedList { qid: "q2".into(), docs: vec![ScoredDoc { docid: "d9".into(), score: 1e-7 }] }],
        };
        run.write_trec(&path, "t").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "q1 Q0 d2 1 2.5 t\nq1 Q0 d1 2 1 t\nq2 Q0 d9 1 0.0000001 t\n");
        assert_eq!(Run::read_trec(&path).unwrap(), run);
    }
}
