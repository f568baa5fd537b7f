//! Pseudo-relevance feedback (`retrieve::feedback`, RM3 and Rocchio): the expansion equals a
//! reference written from the published definitions (scripts/oracle/feedback.py) over quantir's
//! own first pass and term statistics, and under a cutoff no feedback document is one the claim
//! may not see.

use std::collections::HashMap;

use proptest::prelude::*;
use quantir::corpus::{passage, PubDate};
use quantir::index::Index;
use quantir::retrieve::{Bm25, Cutoff, Feedback, Rm3, Rocchio, Scratch, UndatedPolicy};
use serde_json::{json, Value};

use crate::cutoff::admitted;
use crate::util::{index_of, python, repo, scifact_run};

use crate::small_corpus::{small_corpus, WORDS};

/// What the reference reads for one query: the first pass and the term statistics.
fn reference_input(bm25: &Bm25<'_>, index: &Index, query: &str, feedback: &Feedback, cutoff: &Cutoff) -> Value {
    let mut scratch = Scratch::default();
    let (method, fb_docs, fb_terms, weights) = match feedback {
        Feedback::Rm3(p) => ("rm3", p.fb_docs, p.fb_terms, json!({ "original_weight": p.original_weight })),
        Feedback::Rocchio(p) => ("rocchio", p.fb_docs, p.fb_terms, json!({ "alpha": p.alpha, "beta": p.beta })),
    };
    let first = bm25.search(query, cutoff, fb_docs, None, &mut scratch).unwrap();
    let mut df: HashMap<String, u64> = HashMap::new();
    let documents: Vec<Value> = first
        .iter()
        .map(|hit| {
            let stored = index.stored_by_rank(hit.rank).unwrap();
            let mut terms: HashMap<String, u64> = HashMap::new();
            bm25.analyzer().analyze(&passage(&stored.title, &stored.text), &mut |t| *terms.entry(t.to_string()).or_default() += 1);
            for t in terms.keys() {
                df.entry(t.clone()).or_insert_with(|| bm25.doc_freq(t).unwrap());
            }
            json!({ "score": f64::from(hit.score), "terms": terms })
        })
        .collect();
    let mut query_terms = Vec::new();
    bm25.analyzer().analyze(query, &mut |t| query_terms.push(t.to_string()));
    let mut input = json!({ "method": method, "query_terms": query_terms, "feedback": documents, "df": df, "n": index.num_docs(), "fb_terms": fb_terms });
    input.as_object_mut().unwrap().extend(weights.as_object().unwrap().clone());
    input
}

fn assert_same_terms(ours: &[(String, f64)], theirs: &Value, what: &str) {
    let theirs: Vec<(String, f64)> = theirs.as_array().unwrap().iter().map(|p| (p[0].as_str().unwrap().to_string(), p[1].as_f64().unwrap())).collect();
    assert_eq!(ours.iter().map(|(t, _)| t).collect::<Vec<_>>(), theirs.iter().map(|(t, _)| t).collect::<Vec<_>>(), "{what}: terms");
    for ((t, a), (_, b)) in ours.iter().zip(&theirs) {
        assert!((a - b).abs() <= 1e-9, "{what}: {t} weighs {a}, the reference {b}");
    }
}

/// SciFact's 300 test queries, RM3 and Rocchio each under Anserini's defaults and two other
/// settings: the same feedback documents' terms, model and expanded query as the reference, term
/// for term, weights to 1e-9.
#[test]
fn feedback_equals_the_reference_on_scifact() {
    let index = Index::open(&scifact_run().index).unwrap();
    let bm25 = Bm25::new(&index, None).unwrap();
    let queries: Vec<String> = std::fs::read_to_string(repo().join("data/scifact/queries.jsonl")).unwrap().lines().map(|l| serde_json::from_str::<Value>(l).unwrap()["text"].as_str().unwrap().to_string()).collect();
    let test: std::collections::HashSet<String> = std::fs::read_to_string(repo().join("data/scifact/qrels/test.tsv")).unwrap().lines().skip(1).map(|l| l.split('\t').next().unwrap().to_string()).collect();
    let ids: Vec<String> = std::fs::read_to_string(repo().join("data/scifact/queries.jsonl")).unwrap().lines().map(|l| serde_json::from_str::<Value>(l).unwrap()["_id"].as_str().unwrap().to_string()).collect();
    let queries: Vec<&String> = queries.iter().zip(&ids).filter(|(_, id)| test.contains(*id)).map(|(q, _)| q).collect();
    assert_eq!(queries.len(), 300);
    let settings = [
        Feedback::Rm3(Rm3::default()),
        Feedback::Rm3(Rm3 { fb_docs: 3, fb_terms: 25, original_weight: 0.2 }),
        Feedback::Rm3(Rm3 { fb_docs: 20, fb_terms: 5, original_weight: 0.9 }),
        Feedback::Rocchio(Rocchio::default()),
        Feedback::Rocchio(Rocchio { fb_docs: 3, fb_terms: 25, alpha: 0.5, beta: 2.0 }),
        Feedback::Rocchio(Rocchio { fb_docs: 20, fb_terms: 5, alpha: 0.0, beta: 1.0 }),
    ];
    for feedback in settings {
        let inputs: Vec<Value> = queries.iter().map(|q| reference_input(&bm25, &index, q, &feedback, &Cutoff::none())).collect();
        let mut child = std::process::Command::new(python()).arg(repo().join("scripts/oracle/feedback.py")).stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).spawn().unwrap();
        serde_json::to_writer(child.stdin.take().unwrap(), &inputs).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        let theirs: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
        let mut expanded_terms = 0;
        for (q, reference) in queries.iter().zip(&theirs) {
            let ours = feedback.expand(&bm25, q, &Cutoff::none(), None, &mut Scratch::default()).unwrap();
            for (i, doc) in ours.document_terms.iter().enumerate() {
                assert_same_terms(doc, &reference["document_terms"][i], &format!("{feedback:?} {q:?} document {i}"));
            }
            assert_same_terms(&ours.model, &reference["model"], &format!("{feedback:?} {q:?} model"));
            assert_same_terms(&ours.query, &reference["query"], &format!("{feedback:?} {q:?} query"));
            expanded_terms += ours.model.len();
        }
        // Not a vacuous comparison: the models hold terms.
        assert!(expanded_terms >= 300 * 5, "{feedback:?}: {expanded_terms} model terms");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Under a claim's cutoff every feedback document is one the claim may see — the first pass's
    /// top documents among the admitted — and every expanded hit is admitted too.
    #[test]
    fn feedback_never_reads_a_document_the_cutoff_refuses(
        words in proptest::collection::vec(0..WORDS.len(), 1..4),
        (y, m) in (2014i32..2024, 1u32..13),
        include in any::<bool>(),
        fb_docs in 1usize..15,
        rocchio in any::<bool>(),
    ) {
        static FIXTURE: std::sync::OnceLock<(tempfile::TempDir, Index, HashMap<String, Option<PubDate>>)> = std::sync::OnceLock::new();
        let (_, index, dates) = FIXTURE.get_or_init(|| {
            let documents = small_corpus(400, 11);
            let dates = documents.iter().map(|d| (d.id.clone(), d.date)).collect();
            let dir = tempfile::tempdir().unwrap();
            let index = index_of(dir.path(), "idx", documents);
            (dir, index, dates)
        });
        let query = words.iter().map(|&w| WORDS[w]).collect::<Vec<_>>().join(" ");
        let before = PubDate::parse(&format!("{y}-{m:02}")).unwrap();
        let undated = if include { UndatedPolicy::Include } else { UndatedPolicy::Exclude };
        let cutoff = Cutoff::before(before, undated);
        let bm25 = Bm25::new(index, None).unwrap();
        let feedback = if rocchio { Feedback::Rocchio(Rocchio { fb_docs, ..Rocchio::default() }) } else { Feedback::Rm3(Rm3 { fb_docs, ..Rm3::default() }) };
        let mut scratch = Scratch::default();
        let (hits, expansion) = feedback.search(&bm25, &query, &cutoff, 50, None, &mut scratch).unwrap();
        for (rank, _) in &expansion.feedback {
            let id = index.id(*rank);
            prop_assert!(admitted(dates[id], before, undated), "feedback document {} dated {:?}", id, dates[id]);
        }
        let first: Vec<(u32, f32)> = bm25.search(&query, &cutoff, fb_docs, None, &mut scratch).unwrap().iter().map(|h| (h.rank, h.score)).collect();
        prop_assert_eq!(&expansion.feedback, &first);
        for hit in &hits {
            let id = index.id(hit.rank);
            prop_assert!(admitted(dates[id], before, undated), "hit {} dated {:?}", id, dates[id]);
        }
    }
}
