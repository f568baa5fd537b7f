//! Every corpus and claims format, auto-detected and named.

use quantir::corpus::{load_claims, load_corpus, Format};
use quantir::Error;

use crate::util::fixture;

#[test]
fn quantemp_corpus_in_the_published_schema() {
    let corpus = load_corpus(&fixture("quantemp/corpus.json"), Format::Auto).unwrap();
    assert_eq!(corpus.documents.len(), 5);
    let d0 = &corpus.documents[0];
    assert_eq!((d0.id.as_str(), d0.url.as_deref()), ("0", Some("https://example.org/cbo-health-law")));
    assert_eq!(d0.date.unwrap().to_string(), "2014-02-05");
    assert_eq!(corpus.documents[2].url.as_deref(), Some("https://example.org/homicides"), "url when there is no link");
    assert_eq!(corpus.documents[2].date.unwrap().to_string(), "2019-03", "month precision kept");
    assert!(corpus.documents[3].text.contains("longest stretch"), "text wins over snippet when present");
    assert_eq!(corpus.documents[4].date, None);
    assert_eq!(corpus.summary.undated, 1);
    assert_eq!(corpus.summary.undated_examples, vec![(26, "3 days ago".to_string())], "the line where the record starts");
    assert_eq!(load_corpus(&fixture("quantemp/corpus.json"), Format::Quantemp).unwrap().documents, corpus.documents);
    // The folder as a user has it: its corpus.json is read.
    assert_eq!(load_corpus(&fixture("quantemp"), Format::Auto).unwrap().documents, corpus.documents);
    assert_eq!(load_corpus(&fixture("quantemp"), Format::Quantemp).unwrap().documents, corpus.documents);
}

#[test]
fn quantemp_claims_are_keyed_by_position() {
    let claims = load_claims(&fixture("quantemp/test.json"), Format::Auto, None).unwrap();
    let ids: Vec<&str> = claims.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["0", "1", "2"]);
    assert_eq!(claims[1].date.unwrap().to_string(), "2023-08-20");
    assert_eq!(claims[2].date, None);
    // A QuanTemp++ folder holds several splits: the error names them and the file to give.
    let err = load_claims(&fixture("quantemp"), Format::Auto, None).unwrap_err();
    let Error::SplitClaims { splits, suggestion, .. } = &err else { panic!("{err}") };
    assert_eq!((splits.as_slice(), suggestion.as_path()), (["test.json".to_string()].as_slice(), fixture("quantemp/test.json").as_path()));
    let err = err.to_string();
    assert!(err.contains("a QuanTemp++ folder, whose claims are split over test.json: name the one to read"), "{err}");
    assert!(err.ends_with(&format!("hint: --claims {}", fixture("quantemp/test.json").display())) && !err.contains("--format"), "{err}");
}

#[test]
fn jsonl_corpus_counts_undated_and_empty() {
    let corpus = load_corpus(&fixture("jsonl/corpus.jsonl"), Format::Auto).unwrap();
    let ids: Vec<&str> = corpus.documents.iter().map(|d| d.id.as_str()).collect();
    assert_eq!(ids, ["d1", "d2", "d3", "d4", "d5"]);
    let s = &corpus.summary;
    assert_eq!((s.records, s.documents, s.undated, s.skipped_empty, s.no_date_field), (6, 5, 2, 1, 1));
    assert_eq!(s.undated_examples, vec![(5, "yesterday".to_string())]);
}

#[test]
fn beir_folder_and_file() {
    let from_dir = load_corpus(&fixture("beir"), Format::Auto).unwrap();
    let from_file = load_corpus(&fixture("beir/corpus.jsonl"), Format::Auto).unwrap();
    assert_eq!(from_dir.documents, from_file.documents);
    assert_eq!(from_dir.documents[0].title, "Vitamin D");
    let judged = ["q1".to_string()].into_iter().collect();
    let claims = load_claims(&fixture("beir"), Format::Auto, Some(&judged)).unwrap();
    assert_eq!(claims.len(), 1, "only judged queries with --qrels");
    assert_eq!(load_claims(&fixture("beir/queries.jsonl"), Format::Beir, None).unwrap().len(), 2);
}

#[test]
fn jsonl_claims() {
    let claims = load_claims(&fixture("jsonl/claims.jsonl"), Format::Jsonl, None).unwrap();
    assert_eq!(claims[0].date.unwrap().to_string(), "2020-01-15");
    assert_eq!(claims[1].date, None);
}
