//! BM25 scores equal the formula for any k1 and b, computed here independently by brute force.

use std::collections::HashMap;

use proptest::prelude::*;
use quantir::analysis::Analyzer;
use quantir::index::Bm25Params;
use quantir::retrieve::{Bm25, Cutoff, Scratch};

use crate::util::{doc, index_of};

const TEXTS: [&str; 8] = [
    "inflation fell to 3.2% in july as energy prices eased",
    "inflation inflation inflation stayed close to 3 percent",
    "the minimum wage of $7.25 has not changed since 2009",
    "41 homicides per 100,000 people were recorded in 2019",
    "a short note",
    "unemployment fell to 3.5% and inflation to 3.2 percent while wages rose by 4% in a long article about the economy of 2019",
    "$1.5 billion was spent on 1,200 jobs",
    "jobs jobs jobs 1200 jobs",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]
    #[test]
    fn scores_equal_the_formula(k1 in 0.0f32..3.0, b in 0.0f32..=1.0, query in 0usize..6) {
        let queries = ["inflation 3.2%", "1,200 jobs", "$7.25 minimum wage", "homicides per 100000", "3 percent inflation inflation", "2019 economy"];
        let dir = tempfile::tempdir().unwrap();
        let docs = TEXTS.iter().enumerate().map(|(i, t)| doc(&format!("d{i}"), t, None)).collect();
        let index = index_of(dir.path(), "idx", docs);
        let params = Bm25Params { k1, b };
        let got: HashMap<String, f32> = Bm25::new(&index, Some(params)).unwrap()
            .search(queries[query], &Cutoff::none(), 100, None, &mut Scratch::default()).unwrap()
            .iter().map(|h| (index.id(h.rank).to_string(), h.score)).collect();
        let want = brute_force(queries[query], params);
        prop_assert_eq!(got.len(), want.len());
        for (id, score) in &want {
            let ours = got[id] as f64;
            prop_assert!((ours - score).abs() <= 1e-4 * score.abs().max(1.0), "{}: {} vs {}", id, ours, score);
        }
    }
}

/// BM25 over the analysed texts, with lengths quantised as Lucene and tantivy store them.
fn brute_force(query: &str, p: Bm25Params) -> HashMap<String, f64> {
    let analyzer = Analyzer::default();
    let docs: Vec<Vec<String>> = TEXTS.iter().map(|t| analyzer.terms(t)).collect();
    let n = docs.len() as f64;
    let avg = docs.iter().map(|d| d.len()).sum::<usize>() as f64 / n;
    let mut qtf: HashMap<String, f64> = HashMap::new();
    for t in analyzer.terms(query) {
        *qtf.entry(t).or_default() += 1.0;
    }
    let mut scores = HashMap::new();
    for (i, d) in docs.iter().enumerate() {
        let len = tantivy::fieldnorm::FieldNormReader::id_to_fieldnorm(tantivy::fieldnorm::FieldNormReader::fieldnorm_to_id(d.len() as u32)) as f64;
        let mut score = 0.0;
        let mut matched = false;
        for (term, w) in &qtf {
            let df = docs.iter().filter(|d| d.contains(term)).count() as f64;
            let tf = d.iter().filter(|t| *t == term).count() as f64;
            if tf > 0.0 {
                matched = true;
                let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                let k1 = p.k1 as f64;
                score += w * idf * tf / (tf + k1 * (1.0 - p.b as f64 + p.b as f64 * len / avg));
            }
        }
        if matched {
            scores.insert(format!("d{i}"), score);
        }
    }
    scores
}

#[test]
fn numbers_match_across_forms() {
    let dir = tempfile::tempdir().unwrap();
    let index = index_of(dir.path(), "idx", TEXTS.iter().enumerate().map(|(i, t)| doc(&format!("d{i}"), t, None)).collect());
    let bm25 = Bm25::new(&index, None).unwrap();
    let ids = |q: &str| -> Vec<String> {
        bm25.search(q, &Cutoff::none(), 10, None, &mut Scratch::default()).unwrap().iter().map(|h| index.id(h.rank).to_string()).collect()
    };
    assert_eq!(ids("100000"), ["d3"], "100,000 is indexed as 100000");
    assert_eq!(ids("7.25"), ["d2"], "7.25 stays whole");
    assert!(ids("25").is_empty(), "no stray fraction terms");
    assert_eq!(ids("1200").len(), 2, "1,200 and 1200 meet");
}

/// The oracle is the exhaustive scorer over an index in corpus order, where every candidate's
/// date is checked. The same scorer over a date-ordered index (cutoffs read as document ranges,
/// no date checks), over one without `bounds.bin`, and MaxScore and the pruned scorer over all
/// three, and over one-segment indexes with their postings decoded (read from `decoded.bin`, or
/// from the segment where it is missing) give its hits bit for bit — the same documents, order
/// and f32 scores — for random claims, k, k1, b, cutoffs, undated policies and excluded
/// documents, over real dated QuanTemp snippets and SciFact abstracts.
#[test]
fn every_layout_and_strategy_equals_the_exhaustive_scorer() {
    use quantir::corpus::{load_claims, load_corpus, Format, PubDate};
    use quantir::index::{build, DocOrder, IndexConfig};
    use quantir::io::NoProgress;
    use quantir::retrieve::{Strategy, UndatedPolicy};
    use rand_chacha::rand_core::{Rng, SeedableRng};

    let dir = tempfile::tempdir().unwrap();
    let repo = crate::util::repo();
    let sets = [
        (repo.join("data/quantemp-sample/corpus.json"), repo.join("data/quantemp-sample/claims.jsonl")),
        (repo.join("data/scifact"), repo.join("data/scifact/queries.jsonl")),
    ];
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(16);
    let mut compared = 0;
    for (n, (corpus, claims)) in sets.iter().enumerate() {
        let loaded = load_corpus(corpus, Format::Auto).unwrap();
        let [index, dated] = [DocOrder::Corpus, DocOrder::Date].map(|doc_order| {
            let path = dir.path().join(format!("idx{n}-{doc_order:?}"));
            build(&loaded, corpus, &path, &IndexConfig { threads: 2, doc_order, ..IndexConfig::default() }, &NoProgress).unwrap();
            quantir::index::Index::open(&path).unwrap()
        });
        assert!(dated.segments().iter().all(|s| s.date_sorted && s.bounds.is_some()));
        // An index built before bounds.bin existed: the pruned scorer bounds terms by weight.
        let old = dir.path().join(format!("idx{n}-old"));
        build(&loaded, corpus, &old, &IndexConfig { threads: 2, ..IndexConfig::default() }, &NoProgress).unwrap();
        std::fs::remove_file(quantir::index::testing::current_generation_dir(&old).join("bounds.bin")).unwrap();
        quantir::index::testing::restamp(&old).unwrap();
        let unbounded = quantir::index::Index::open(&old).unwrap();
        assert!(unbounded.segments().iter().all(|s| s.bounds.is_none()));
        // One segment: the postings decoded into arrays (src/index/decoded.rs), in either order.
        let single = [DocOrder::Corpus, DocOrder::Date].map(|doc_order| {
            let path = dir.path().join(format!("idx{n}-single-{doc_order:?}"));
            build(&loaded, corpus, &path, &IndexConfig { threads: 1, doc_order, ..IndexConfig::default() }, &NoProgress).unwrap();
            path
        });
        let single_corpus_order = quantir::index::Index::open(&single[0]).unwrap();
        assert!(single_corpus_order.decoded().unwrap().is_some(), "a small one-segment index is decoded");
        // One built before decoded.bin existed: its postings decoded from its segment.
        let undecoded = dir.path().join(format!("idx{n}-single-undecoded"));
        build(&loaded, corpus, &undecoded, &IndexConfig { threads: 1, ..IndexConfig::default() }, &NoProgress).unwrap();
        std::fs::remove_file(quantir::index::testing::current_generation_dir(&undecoded).join("decoded.bin")).unwrap();
        quantir::index::testing::restamp(&undecoded).unwrap();
        let undecoded = quantir::index::Index::open(&undecoded).unwrap();
        assert!(undecoded.decoded().unwrap().is_some(), "decoded from the segment without decoded.bin");
        assert_eq!((index.segments().len(), dated.segments().len()), (2, 2), "two writer threads asked for: two segments to search across");
        assert_eq!(dated.manifest().doc_order, DocOrder::Date);
        if n == 0 {
            assert!(index.segments().iter().any(|s| !s.date_sorted), "the corpus-order index exercises the date checks");
        }
        let claims = load_claims(claims, Format::Auto, None).unwrap();
        let mut scratch = Scratch::default();
        for _ in 0..300 {
            let claim = &claims[(rng.next_u64() % claims.len() as u64) as usize];
            let k = [1, 2, 3, 10, 50, 99, 100, 1000][(rng.next_u64() % 8) as usize];
            let params = Bm25Params { k1: (rng.next_u64() % 300) as f32 / 100.0, b: (rng.next_u64() % 101) as f32 / 100.0 };
            let undated = if rng.next_u64() % 2 == 0 { UndatedPolicy::Exclude } else { UndatedPolicy::Include };
            let cutoff = match rng.next_u64() % 3 {
                0 => Cutoff::none(),
                _ => Cutoff::before(PubDate::parse(&format!("{}-{:02}-{:02}", 2008 + rng.next_u64() % 16, 1 + rng.next_u64() % 12, 1 + rng.next_u64() % 28)).unwrap(), undated),
            };
            let exclude = (rng.next_u64() % 4 == 0).then(|| (rng.next_u64() % index.num_docs()) as u32);
            let bm25 = Bm25::new(&index, Some(params)).unwrap();
            let exhaustive = bm25.search_with(Strategy::Exhaustive, &claim.text, &cutoff, k, exclude, &mut scratch).unwrap();
            let same = |hits: Vec<quantir::retrieve::Hit>| hits.iter().map(|h| (h.rank, h.score)).collect::<Vec<_>>();
            for strategy in [Strategy::MaxScore, Strategy::Pruned] {
                let got = bm25.search_with(strategy, &claim.text, &cutoff, k, exclude, &mut scratch).unwrap();
                assert_eq!(same(got), same(exhaustive.clone()), "{strategy:?}: {:?} k {k} {params:?} {cutoff:?} exclude {exclude:?}", claim.text);
            }
            for (layout, other) in [("date order", &dated), ("no bounds.bin", &unbounded)] {
                let other = Bm25::new(other, Some(params)).unwrap();
                for strategy in [Strategy::Exhaustive, Strategy::MaxScore, Strategy::Pruned] {
                    let got = other.search_with(strategy, &claim.text, &cutoff, k, exclude, &mut scratch).unwrap();
                    assert_eq!(same(got), same(exhaustive.clone()), "{layout}, {strategy:?}: {:?} k {k} {params:?} {cutoff:?} exclude {exclude:?}", claim.text);
                }
            }
            // Decoded postings: each posting's contribution computed for this search's
            // parameters (an index opened for them), and computed as it is added (an index
            // whose contributions were computed for the first parameters it was searched with).
            let single_dated = quantir::index::Index::open(&single[1]).unwrap();
            for (layout, other) in [
                ("one segment, date order, contributions", &single_dated),
                ("one segment, corpus order", &single_corpus_order),
                ("one segment without decoded.bin", &undecoded),
            ] {
                let got = Bm25::new(other, Some(params)).unwrap().search_with(Strategy::Exhaustive, &claim.text, &cutoff, k, exclude, &mut scratch).unwrap();
                assert_eq!(same(got), same(exhaustive.clone()), "{layout}: {:?} k {k} {params:?} {cutoff:?} exclude {exclude:?}", claim.text);
            }
            // The scratch is clean after either: a third search gives the first's answer.
            assert_eq!(bm25.search_with(Strategy::Exhaustive, &claim.text, &cutoff, k, exclude, &mut scratch).unwrap(), exhaustive);
            compared += exhaustive.len();
        }
    }
    assert!(compared > 10_000, "the searches found too little to compare: {compared} hits");
}

/// `run --bm25-strategy`: every strategy writes the same run, byte for byte, over SciFact with
/// `--remove-query` (the documents left out must be left out by each).
#[test]
fn every_bm25_strategy_writes_the_same_run() {
    use crate::util::{quantir, repo};
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    quantir().args(["index", "--corpus"]).arg(repo().join("data/scifact")).arg("--index").arg(&index).assert().success();
    let run = |strategy: &str, k: &str| {
        let out = dir.path().join(format!("{strategy}-{k}.run"));
        quantir().args(["run", "--remove-query", "-k", k, "--bm25-strategy", strategy, "--index"]).arg(&index).arg("--claims").arg(repo().join("data/scifact")).arg("--output").arg(&out).assert().success();
        std::fs::read_to_string(&out).unwrap()
    };
    for k in ["10", "100"] {
        let exhaustive = run("exhaustive", k);
        assert!(exhaustive.lines().count() > 5000, "{k}: {} lines", exhaustive.lines().count());
        for strategy in ["pruned", "maxscore"] {
            assert!(run(strategy, k) == exhaustive, "{strategy} at k = {k} wrote another run");
        }
    }
}
