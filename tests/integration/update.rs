//! Issue 39: an index updated in place (`add`, `delete`, `compact`) answers every search as a
//! fresh build of the final collection does, bit for bit; a killed update leaves the old
//! generation; a running server moves forward through updates.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use proptest::prelude::*;
use quantir::corpus::{Corpus, Document, LoadSummary, PubDate};
use quantir::index::dense::{Encoder, TextKind, VectorDtype};
use quantir::index::{build, DenseConfig, Index, IndexConfig, MergePolicy, UpdateConfig};
use quantir::io::NoProgress;
use quantir::retrieve::{Ann, Bm25, Cutoff, DenseQuery, Scratch, Strategy as Bm25Strategy, UndatedPolicy};

use crate::util::{quantir, repo, write};

/// The QuanTemp sample's 732 dated snippets, every ninth made undated, in file order.
fn pool() -> &'static [Document] {
    static POOL: OnceLock<Vec<Document>> = OnceLock::new();
    POOL.get_or_init(|| {
        let all: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&std::fs::read_to_string(repo().join("data/quantemp-sample/corpus.json")).unwrap()).unwrap();
        all.into_iter()
            .enumerate()
            .map(|(i, (id, v))| Document {
                id,
                title: String::new(),
                text: v["snippet"].as_str().unwrap().to_string(),
                url: None,
                date: if i % 9 == 4 { None } else { v["date"].as_str().and_then(PubDate::parse) },
            })
            .collect()
    })
}

fn corpus(documents: Vec<Document>) -> Corpus {
    let undated = documents.iter().filter(|d| d.date.is_none()).count();
    Corpus { summary: LoadSummary { documents: documents.len(), undated, ..Default::default() }, documents }
}

fn encoder() -> &'static Encoder {
    static ENCODER: OnceLock<Encoder> = OnceLock::new();
    ENCODER.get_or_init(crate::dense::encoder)
}

/// The sample's claims, their dates and their query vectors.
struct Queries {
    texts: Vec<String>,
    dates: Vec<PubDate>,
    vectors: Vec<Vec<f32>>,
}

fn queries() -> &'static Queries {
    static QUERIES: OnceLock<Queries> = OnceLock::new();
    QUERIES.get_or_init(|| {
        let lines: Vec<serde_json::Value> = std::fs::read_to_string(repo().join("data/quantemp-sample/claims.jsonl")).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let mut texts: Vec<String> = lines.iter().map(|c| c["text"].as_str().unwrap().to_string()).collect();
        let mut dates: Vec<PubDate> = lines.iter().map(|c| PubDate::parse(c["date"].as_str().unwrap()).unwrap()).collect();
        // And queries from the collection's own words, dated across its years.
        for (i, d) in pool().iter().step_by(37).enumerate() {
            texts.push(d.text.split_whitespace().take(10).collect::<Vec<_>>().join(" "));
            dates.push(PubDate::parse(&format!("{}-06-15", 2012 + i % 12)).unwrap());
        }
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let (flat, dim) = encoder().encode(&refs, TextKind::Query).unwrap();
        Queries { texts, dates, vectors: flat.chunks(dim).map(<[f32]>::to_vec).collect() }
    })
}

/// Every answer the index gives the queries, as (id, score bits): BM25 by each strategy and dense
/// exact search, each under the claim's cutoff (undated excluded and included) and none.
fn answers(index: &Index) -> Vec<Vec<(String, u32)>> {
    let q = queries();
    let cutoffs = |i: usize| [Cutoff::before(q.dates[i], UndatedPolicy::Exclude), Cutoff::before(q.dates[i], UndatedPolicy::Include), Cutoff::none()];
    let named = |hits: Vec<(u32, f32)>| hits.into_iter().map(|(rank, score)| (index.id(rank).to_string(), score.to_bits())).collect::<Vec<_>>();
    let mut all = Vec::new();
    let mut scratch = Scratch::default();
    for strategy in [Bm25Strategy::Exhaustive, Bm25Strategy::MaxScore, Bm25Strategy::Pruned] {
        let bm25 = Bm25::new(index, None).unwrap().with_strategy(strategy);
        for (i, text) in q.texts.iter().enumerate() {
            for cutoff in cutoffs(i) {
                all.push(named(bm25.search(text, &cutoff, 15, None, &mut scratch).unwrap().into_iter().map(|h| (h.rank, h.score)).collect()));
            }
        }
    }
    let dense: Vec<DenseQuery> = (0..q.texts.len()).flat_map(|i| cutoffs(i).map(|cutoff| DenseQuery { vector: &q.vectors[i], cutoff, exclude: None })).collect();
    all.extend(quantir::retrieve::dense::search(index, &dense, 15, Ann::Exact, 64).unwrap().into_iter().map(named));
    all
}

fn build_config(encoder: &Encoder) -> IndexConfig<'_> {
    IndexConfig { dense: Some(DenseConfig { encoder, dtype: VectorDtype::F32, hnsw: None }), ..Default::default() }
}

/// A fresh build of `documents` in `dir`, opened.
fn fresh(dir: &Path, documents: &BTreeMap<String, Document>) -> Index {
    let path = dir.join("fresh");
    build(&corpus(documents.values().cloned().collect()), Path::new("fresh"), &path, &build_config(encoder()), &NoProgress).unwrap();
    Index::open(&path).unwrap()
}

/// One step of an update sequence.
#[derive(Debug, Clone)]
enum Step {
    /// `new` documents not in the index, and documents of the index picked by `picks`: replaced
    /// (another text, another date) or, every third, given again as they are.
    Upsert { new: usize, picks: Vec<usize> },
    /// Documents of the index picked by `picks`, and an id it does not hold.
    Delete { picks: Vec<usize> },
    Compact,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (0usize..12, proptest::collection::vec(0usize..1000, 0..8)).prop_map(|(new, picks)| Step::Upsert { new, picks }),
        3 => proptest::collection::vec(0usize..1000, 1..10).prop_map(|picks| Step::Delete { picks }),
        1 => Just(Step::Compact),
    ]
}

/// The policies tried: the default, and one that never merges, so that deleted documents stay
/// in their segments and the statistics must subtract them.
fn policy(never_merge: bool) -> MergePolicy {
    match never_merge {
        true => MergePolicy { factor: 1000, floor: 1, deleted_share: 1.0 },
        false => MergePolicy { factor: 2, floor: 8, ..MergePolicy::default() },
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10))]

    /// After every step of a random sequence of additions, replacements, deletions and
    /// compactions, every BM25 search (three strategies, each claim's cutoff with undated
    /// documents excluded and included, and none) and every exact dense search returns the same
    /// documents with the same score bits as a fresh build of the same final collection.
    #[test]
    fn updates_equal_a_rebuild_after_every_step(initial in 20usize..60, steps in proptest::collection::vec(step(), 1..5), never_merge: bool) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("idx");
        let pool = pool();
        let mut current: BTreeMap<String, Document> = pool[..initial].iter().map(|d| (d.id.clone(), d.clone())).collect();
        let mut next = initial;
        build(&corpus(current.values().cloned().collect()), Path::new("base"), &path, &build_config(encoder()), &NoProgress).unwrap();
        let config = UpdateConfig { encoder: Some(encoder()), merge: policy(never_merge), threads: 0 };
        for (n, step) in steps.iter().enumerate() {
            let ids: Vec<String> = current.keys().cloned().collect();
            let (summary, expected) = match step {
                Step::Upsert { new, picks } => {
                    let mut documents: Vec<Document> = pool[next..(next + new).min(pool.len())].to_vec();
                    next = (next + new).min(pool.len());
                    let mut replaced = 0;
                    let mut seen = std::collections::HashSet::new();
                    for (j, &pick) in picks.iter().enumerate() {
                        let id = &ids[pick % ids.len()];
                        if !seen.insert(id.clone()) {
                            continue;
                        }
                        let mut document = current[id].clone();
                        if j % 3 != 2 {
                            document.text.push_str(&format!(" revised in step {n}: 4.{j} percent"));
                            document.date = PubDate::parse(&format!("{}-0{}-1{}", 2014 + j, 1 + j % 9, j % 10));
                            replaced += 1;
                        }
                        documents.push(document);
                    }
                    let added = documents.len() - seen.len();
                    for d in &documents {
                        current.insert(d.id.clone(), d.clone());
                    }
                    let summary = quantir::index::update(&path, &corpus(documents), Path::new("step"), &config, &NoProgress).unwrap();
                    prop_assert_eq!((summary.counts.added, summary.counts.replaced, summary.counts.unchanged), (added, replaced, seen.len() - replaced));
                    (summary, added + replaced > 0)
                }
                Step::Delete { picks } => {
                    let mut doomed: Vec<String> = picks.iter().map(|&p| ids[p % ids.len()].clone()).collect();
                    doomed.sort();
                    doomed.dedup();
                    // Never the last document.
                    doomed.truncate(ids.len() - 1);
                    for id in &doomed {
                        current.remove(id);
                    }
                    let mut asked = doomed.clone();
                    asked.push("no-such-id".into());
                    let summary = quantir::index::delete(&path, &asked, &config, &NoProgress).unwrap();
                    prop_assert_eq!((summary.counts.deleted, summary.counts.not_found), (doomed.len(), 1));
                    (summary, !doomed.is_empty())
                }
                Step::Compact => (quantir::index::compact(&path, &config, &NoProgress).unwrap(), true),
            };
            prop_assert_eq!(summary.committed, expected, "{:?}", step);
            prop_assert_eq!(summary.documents, current.len());
            let updated = Index::open(&path).unwrap();
            let rebuilt = fresh(dir.path(), &current);
            prop_assert_eq!(updated.num_docs(), rebuilt.num_docs());
            prop_assert_eq!(updated.average_length().to_bits(), rebuilt.average_length().to_bits());
            prop_assert_eq!(updated.manifest().undated, rebuilt.manifest().undated);
            prop_assert!(answers(&updated) == answers(&rebuilt), "step {} ({:?}) of {:?}: answers differ from a rebuild", n, step, steps);
        }
    }
}

/// The command line over a fixed sequence: `add` (new, replaced and unchanged documents),
/// `delete` and `compact` leave an index whose BM25, dense and hybrid run files (each claim's
/// cutoff, undated documents excluded and included) are byte-identical to a fresh build's, and
/// every command reports its counts.
#[test]
fn add_delete_and_compact_from_the_command_line_equal_a_rebuild() {
    let (model, lib) = crate::dense::model();
    let dir = tempfile::tempdir().unwrap();
    let jsonl = |name: &str, documents: &[Document]| {
        let lines: Vec<String> = documents.iter().map(|d| serde_json::json!({"id": d.id, "text": d.text, "date": d.date.map(|x| x.to_string())}).to_string()).collect();
        write(dir.path(), name, lines.join("\n") + "\n")
    };
    let pool = pool();
    let base = jsonl("base.jsonl", &pool[..400]);
    let mut changed: Vec<Document> = pool[400..500].to_vec();
    for d in pool[..400].iter().step_by(10) {
        changed.push(Document { text: format!("{} corrected: 12 of 19", d.text), ..d.clone() });
    }
    changed.extend(pool[1..400].iter().step_by(50).cloned());
    let changes = jsonl("changes.jsonl", &changed);
    let doomed: Vec<&str> = pool[..500].iter().skip(3).step_by(7).map(|d| d.id.as_str()).collect();
    let doomed_file = write(dir.path(), "doomed.txt", doomed.join("\n") + "\n");
    let mut final_docs: BTreeMap<String, Document> = pool[..400].iter().map(|d| (d.id.clone(), d.clone())).collect();
    for d in &changed {
        final_docs.insert(d.id.clone(), d.clone());
    }
    for id in &doomed {
        final_docs.remove(*id);
    }
    let final_file = jsonl("final.jsonl", &final_docs.values().cloned().collect::<Vec<_>>());
    let (index, rebuilt) = (dir.path().join("idx"), dir.path().join("rebuilt"));
    let dense = |cmd: &mut assert_cmd::Command| -> assert_cmd::assert::Assert { cmd.arg("--dense").arg(&model).arg("--ort-lib").arg(&lib).assert() };
    dense(quantir().args(["index", "--hnsw", "--corpus"]).arg(&base).arg("--index").arg(&index)).success();
    let add = dense(quantir().args(["add", "--json", "--corpus"]).arg(&changes).arg("--index").arg(&index)).success();
    let summary: serde_json::Value = serde_json::from_slice(&add.get_output().stdout).unwrap();
    assert_eq!((summary["added"].as_u64(), summary["replaced"].as_u64(), summary["unchanged"].as_u64(), summary["encoded"].as_u64()), (Some(100), Some(40), Some(8), Some(140)), "{summary}");
    // Again: nothing to change, no new generation.
    let again = dense(quantir().args(["add", "--corpus"]).arg(&changes).arg("--index").arg(&index)).success();
    let said = String::from_utf8_lossy(&again.get_output().stderr).into_owned();
    assert!(said.contains("0 added, 0 replaced, 148 unchanged, 0 deleted: nothing to change") && said.contains("generation 2"), "{said}");
    quantir().args(["delete", "--index"]).arg(&index).arg("--ids").arg(&doomed_file).args(["--id", "not-there"]).assert().success().stderr(predicates::str::contains(format!("{} deleted, 1 ids to delete not in the index", doomed.len())));
    dense(quantir().args(["index", "--corpus"]).arg(&final_file).arg("--index").arg(&rebuilt)).success();
    let claims = repo().join("data/quantemp-sample/claims.jsonl");
    let run = |index: &Path, name: &str, flags: &[&str]| -> Vec<u8> {
        let out = dir.path().join(name);
        quantir().args(["run", "-k", "30", "--index"]).arg(index).arg("--claims").arg(&claims).args(flags).arg("--ort-lib").arg(&lib).arg("--output").arg(&out).assert().success();
        std::fs::read(out).unwrap()
    };
    let compare = |stage: &str| {
        for flags in [&["--retriever", "bm25"][..], &["--retriever", "bm25", "--undated", "include"], &["--retriever", "dense"], &["--retriever", "hybrid"], &["--retriever", "hybrid", "--plan", "numeric", "--undated", "include"]] {
            let (ours, theirs) = (run(&index, "updated.run", flags), run(&rebuilt, "rebuilt.run", flags));
            assert!(!ours.is_empty());
            assert!(ours == theirs, "{stage}, {flags:?}: the updated index's run differs from the rebuilt one's");
        }
    };
    compare("after add and delete");
    // The graph was built again over the updated vectors: HNSW finds what exact search finds.
    let lines = |run: Vec<u8>| -> std::collections::HashSet<String> { String::from_utf8(run).unwrap().lines().map(|l| l.split(' ').take(3).collect::<Vec<_>>().join(" ")).collect() };
    let exact = lines(run(&index, "exact.run", &["--retriever", "dense"]));
    let graph = lines(run(&index, "hnsw.run", &["--retriever", "dense", "--ann", "hnsw"]));
    let found = exact.intersection(&graph).count() as f64 / exact.len() as f64;
    assert!(found >= 0.95, "HNSW over the updated index found {found:.3} of exact search's hits");
    quantir().args(["compact", "--index"]).arg(&index).assert().success().stderr(predicates::str::contains("0 deleted: "));
    compare("after compact");
    let generation = std::fs::read_to_string(index.join("CURRENT")).unwrap();
    assert!(generation.starts_with("gen-000004 "), "{generation}");
}

/// A document file for the crash test: `n` documents from `first` on.
fn many(dir: &Path, name: &str, first: usize, n: usize) -> PathBuf {
    let mut text = String::new();
    for i in first..first + n {
        text.push_str(&format!("{{\"id\": \"n{i:07}\", \"text\": \"unemployment was {}.{} percent in {} while inflation reached {}%\", \"date\": \"20{:02}-01-01\"}}\n", i % 13, i % 10, 1990 + i % 30, i % 9, i % 20));
    }
    write(dir, name, text)
}

/// `kill -9` at each point of an update (the new segment indexed, the kept segments linked
/// beside it, the generation written but not committed) leaves the generation served as it was,
/// answering; killed just after its commit, the new one is served. The next update clears what
/// the killed ones left and takes the folder forward.
#[test]
fn kill_9_during_an_update_leaves_the_old_generation() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    quantir().args(["index", "--corpus"]).arg(many(dir.path(), "base.jsonl", 0, 2_000)).arg("--index").arg(&index).assert().success();
    let more = many(dir.path(), "more.jsonl", 2_000, 500);
    let doomed = write(dir.path(), "doomed.txt", (0..2_000).step_by(9).map(|i| format!("n{i:07}\n")).collect::<String>());
    let searchable = || {
        let opened = Index::open(&index).unwrap();
        let mut scratch = Scratch::default();
        let hits = Bm25::new(&opened, None).unwrap().search("unemployment inflation percent", &Cutoff::none(), 5, None, &mut scratch).unwrap();
        assert_eq!(hits.len(), 5);
        (opened.generation(), opened.num_docs())
    };
    let kill_at = |args: &[&str], point: &str| {
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("quantir"))
            .args(args)
            .arg("--index")
            .arg(&index)
            .env("QUANTIR_PAUSE_AT", point)
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = std::io::BufReader::new(child.stderr.take().unwrap()).lines();
        let said = lines.by_ref().map_while(Result::ok).find(|l| l.contains("paused at"));
        assert_eq!(said, Some(format!("quantir: paused at {point}")), "{args:?}: {:?}", child.wait());
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        searchable()
    };
    let add = ["add", "--corpus", more.to_str().unwrap()];
    let delete = ["delete", "--merge-factor", "1000", "--ids", doomed.to_str().unwrap()];
    for point in ["update:indexed", "update:linked", "update:written"] {
        assert_eq!(kill_at(&add, point), (1, 2_000), "killed at {point}");
        assert_eq!(kill_at(&delete, point), (1, 2_000), "killed at {point}");
    }
    let staging = std::fs::read_dir(&index).unwrap().filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().contains(".staging-")).count();
    assert_eq!(staging, 6, "each killed update left its staging folder");
    // Killed once committed: the new generation is served.
    let (generation, documents) = kill_at(&add, "update:committed");
    assert_eq!(documents, 2_500);
    assert!(generation > 2, "the killed updates' numbers are not reused: {generation}");
    quantir().args(delete).arg("--index").arg(&index).assert().success().stderr(predicates::str::contains("223 deleted"));
    let names: Vec<String> = std::fs::read_dir(&index).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(!names.iter().any(|n| n.contains(".staging-")), "{names:?}");
    assert_eq!(searchable(), (generation + 1, 2_277));
}

/// A server answers across 20 updates (additions and deletions) under concurrent searches:
/// every answer a 200, each client's generations only moving forward, the last one served.
#[test]
fn a_running_server_follows_twenty_updates() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    let jsonl = |name: &str, documents: &[Document]| {
        let lines: Vec<String> = documents.iter().map(|d| serde_json::json!({"id": d.id, "text": d.text, "date": d.date.map(|x| x.to_string())}).to_string()).collect();
        write(dir.path(), name, lines.join("\n") + "\n")
    };
    let pool = pool();
    quantir().args(["index", "--corpus"]).arg(jsonl("base.jsonl", &pool[..300])).arg("--index").arg(&index).assert().success();
    let server = crate::serve::Server::start(&index);
    let search = || {
        let response = reqwest::blocking::Client::new()
            .post(format!("{}/api/search", server.url))
            .header("content-type", "application/json")
            .body(serde_json::json!({"claim": crate::serve::FLORIDA, "date": "2023-04-24", "k": 5}).to_string())
            .send()
            .unwrap();
        let status = response.status().as_u16();
        let json: serde_json::Value = response.json().unwrap();
        (status, json["generation"].as_u64())
    };
    crate::serve::searches_move_forward_across(search, 10, 21, || {
        for round in 0..20 {
            let chunk = &pool[300 + round * 20..320 + round * 20];
            match round % 2 {
                0 => quantir().args(["add", "--corpus"]).arg(jsonl(&format!("add{round}.jsonl"), chunk)).arg("--index").arg(&index).assert().success(),
                _ => quantir().args(["delete", "--index"]).arg(&index).args(pool[300 + (round - 1) * 20..].iter().step_by(3).take(5).flat_map(|d| ["--id", d.id.as_str()])).assert().success(),
            };
            std::thread::sleep(Duration::from_millis(50));
        }
    });
    assert_eq!(search(), (200, Some(21)));
}
