//! The date cutoff is exact: top-k with `before D` equals the full ranking filtered to documents
//! published before D, cut at k — for any query, date, policy and k.

use std::collections::HashMap;
use std::sync::OnceLock;

use proptest::prelude::*;
use quantir::corpus::PubDate;
use quantir::index::Index;
use quantir::retrieve::{Bm25, Cutoff, Scratch, UndatedPolicy};

use crate::util::index_of;

use crate::small_corpus::{small_corpus, WORDS};

struct Fixture {
    _dir: tempfile::TempDir,
    index: Index,
    dates: HashMap<String, Option<PubDate>>,
}

/// 400 documents over a small vocabulary (so scores tie often) with day, month, year and no dates.
fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let documents = small_corpus(400, 7);
        let dates = documents.iter().map(|d| (d.id.clone(), d.date)).collect();
        let dir = tempfile::tempdir().unwrap();
        let index = index_of(dir.path(), "idx", documents);
        Fixture { _dir: dir, index, dates }
    })
}

/// The reference rule, written from the spec and not from `Cutoff`: a dated document is admitted
/// when its last possible day is before the cutoff's first day.
pub(crate) fn admitted(date: Option<PubDate>, before: PubDate, undated: UndatedPolicy) -> bool {
    match date {
        None => undated == UndatedPolicy::Include,
        Some(d) => d.last_day() < before.first_day(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn top_k_with_cutoff_equals_filter_then_cut(
        words in proptest::collection::vec(0..WORDS.len(), 1..4),
        (y, m, d) in (2014i32..2024, 1u32..13, 1u32..29),
        precision in 0..3,
        include in any::<bool>(),
        k in 1usize..60,
    ) {
        let f = fixture();
        let query: Vec<&str> = words.iter().map(|&w| WORDS[w]).collect();
        let query = query.join(" ");
        let before = PubDate::parse(&match precision { 0 => format!("{y}"), 1 => format!("{y}-{m:02}"), _ => format!("{y}-{m:02}-{d:02}") }).unwrap();
        let undated = if include { UndatedPolicy::Include } else { UndatedPolicy::Exclude };
        let bm25 = Bm25::new(&f.index, None).unwrap();
        let mut scratch = Scratch::default();
        let got: Vec<(String, f32)> = bm25.search(&query, &Cutoff::before(before, undated), k, None, &mut scratch).unwrap()
            .iter().map(|h| (f.index.id(h.rank).to_string(), h.score)).collect();
        let all = bm25.search(&query, &Cutoff::none(), 10_000, None, &mut scratch).unwrap();
        let want: Vec<(String, f32)> = all.iter()
            .map(|h| (f.index.id(h.rank).to_string(), h.score))
            .filter(|(id, _)| admitted(f.dates[id], before, undated))
            .take(k)
            .collect();
        prop_assert_eq!(got, want);
    }
}

#[test]
fn without_a_cutoff_undated_documents_are_kept() {
    let f = fixture();
    let bm25 = Bm25::new(&f.index, None).unwrap();
    let all = bm25.search("inflation rate jobs tax wage crime 2021 billion", &Cutoff::none(), 10_000, None, &mut Scratch::default()).unwrap();
    assert!(all.iter().any(|h| f.dates[f.index.id(h.rank)].is_none()));
}

/// `run --temporal-filter off` searches the whole collection, as QuanTemp++'s "without temporal
/// filter" rows do; the default cuts each claim off at its own date.
#[test]
fn runs_with_and_without_the_temporal_filter() {
    use crate::util::{quantir, repo};
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    quantir().args(["index", "--corpus"]).arg(repo().join("data/quantemp-sample/corpus.json")).arg("--index").arg(&index).assert().success();
    let corpus: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(repo().join("data/quantemp-sample/corpus.json")).unwrap()).unwrap();
    let claims: HashMap<String, String> = std::fs::read_to_string(repo().join("data/quantemp-sample/claims.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .map(|c| (c["id"].as_str().unwrap().to_string(), c["date"].as_str().unwrap().to_string()))
        .collect();
    let late = |filter: &str| -> usize {
        let out = dir.path().join(filter);
        quantir().args(["run", "-k", "20", "--temporal-filter", filter, "--index"]).arg(&index).arg("--claims").arg(repo().join("data/quantemp-sample/claims.jsonl")).arg("--output").arg(&out).assert().success();
        std::fs::read_to_string(&out).unwrap().lines().filter(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            corpus[f[2]]["date"].as_str().unwrap() >= claims[f[0]].as_str()
        }).count()
    };
    assert_eq!(late("claim"), 0);
    assert!(late("off") >= 12, "each claim's newest own snippet is dated on its cutoff");
}
