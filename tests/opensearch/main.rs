//! The OpenSearch backend against a real three-node cluster on loopback
//! (`scripts/opensearch_cluster.sh`, which `scripts/test_opensearch.sh` starts before these tests
//! and stops after). Not part of plain `cargo test` (`test = false` in Cargo.toml): the test
//! command runs it with `--test opensearch`. Without a cluster every test fails; none is skipped.
//!
//! The tests run one at a time (one lock): several kill or stop nodes and bring them back.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use quantir::corpus::{Corpus, Document, LoadSummary, PubDate};
use quantir::index::{build, Index, IndexConfig};
use quantir::io::NoProgress;
use quantir::opensearch::{Cluster, ClusterConfig, LoadConfig, RemoteIndex, RemoteQuery};
use quantir::retrieve::{Bm25, Cutoff, Scratch, UndatedPolicy};
use serde_json::{json, Value};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn quantir() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_quantir"))
}

/// The cluster's URLs, from the test command.
fn urls() -> String {
    std::env::var("QUANTIR_TEST_OPENSEARCH_URL").expect(
        "QUANTIR_TEST_OPENSEARCH_URL is not set\n\nhint: run scripts/test_opensearch.sh (scripts/test.sh does), which starts the cluster with scripts/opensearch_cluster.sh and sets it",
    )
}

fn first_url() -> String {
    urls().split(',').next().unwrap().to_string()
}

/// One test at a time; a test that failed while holding the lock does not block the others.
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// `scripts/opensearch_cluster.sh ARGS`, which must succeed.
fn cluster_script(args: &[&str]) {
    let status = Command::new(repo().join("scripts/opensearch_cluster.sh")).args(args).status().unwrap();
    assert!(status.success(), "opensearch_cluster.sh {args:?} failed");
}

fn connect(index: &str) -> Cluster {
    Cluster::connect(ClusterConfig::new(ClusterConfig::parse_urls(&urls()).unwrap(), index)).unwrap()
}

/// A plain HTTP call to the first node, for what the tests set up or inspect behind quantir's back.
fn http(method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    let client = reqwest::blocking::Client::new();
    let url = format!("{}{path}", first_url());
    let request = match method {
        "GET" => client.get(&url),
        "PUT" => client.put(&url),
        "POST" => client.post(&url),
        "DELETE" => client.delete(&url),
        other => panic!("{other}"),
    };
    let request = match body {
        Some(b) => request.json(&b),
        None => request,
    };
    let response = request.send().unwrap();
    let status = response.status().as_u16();
    let text = response.text().unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

/// Deletes every index (and so alias) whose name starts with `prefix`.
fn delete_indexes(prefix: &str) {
    http("DELETE", &format!("/{prefix}*?expand_wildcards=all"), None);
}

/// Runs the quantir binary with the cluster's URL in its environment.
fn run_quantir(args: &[&str]) -> std::process::Output {
    Command::new(quantir()).args(args).env("QUANTIR_OPENSEARCH_URL", urls()).output().unwrap()
}

fn assert_ok(output: &std::process::Output, what: &str) {
    assert!(output.status.success(), "{what} failed:\n{}", String::from_utf8_lossy(&output.stderr));
}

/// A TREC run file as qid → [(docid, score)] in file order.
fn read_run(path: &Path) -> HashMap<String, Vec<(String, f64)>> {
    let mut run: HashMap<String, Vec<(String, f64)>> = HashMap::new();
    for line in std::fs::read_to_string(path).unwrap().lines() {
        let f: Vec<&str> = line.split(' ').collect();
        run.entry(f[0].to_string()).or_default().push((f[2].to_string(), f[4].parse().unwrap()));
    }
    run
}

/// Two rankings of one query agree: the same length, scores equal to `1e-4` relative position by
/// position, and the same ids except where neighbouring scores tie to that precision (Lucene and
/// the embedded scorer sum in f32 in different orders, so near-ties may swap). Returns the
/// positions whose ids differ.
fn compare_lists(ours: &[(String, f64)], theirs: &[(String, f64)], what: &str) -> usize {
    compare_lists_within(ours, theirs, what, &|a, b| (a - b).abs() <= 1e-4 * a.abs().max(b.abs()).max(1e-9))
}

/// [`compare_lists`] with scores equal when `close` says so.
fn compare_lists_within(ours: &[(String, f64)], theirs: &[(String, f64)], what: &str, close: &dyn Fn(f64, f64) -> bool) -> usize {
    assert_eq!(ours.len(), theirs.len(), "{what}: lengths");
    let mut swapped = 0;
    for (i, ((a, sa), (b, sb))) in ours.iter().zip(theirs).enumerate() {
        assert!(close(*sa, *sb), "{what}: rank {}: score {sa} against {sb}", i + 1);
        if a != b {
            let tied = |j: usize| j < ours.len() && close(ours[j].1, *sa);
            assert!((i > 0 && tied(i - 1)) || tied(i + 1), "{what}: rank {}: {a} against {b} with no tie", i + 1);
            swapped += 1;
        }
    }
    swapped
}

/// Asserts that two run files agree query by query; returns (queries, swapped positions).
fn compare_runs(embedded: &Path, remote: &Path) -> (usize, usize) {
    let (a, b) = (read_run(embedded), read_run(remote));
    assert_eq!(a.len(), b.len(), "the same queries");
    let mut swapped = 0;
    for (qid, list) in &a {
        swapped += compare_lists(list, &b[qid], &format!("query {qid}"));
    }
    (a.len(), swapped)
}

/// [`compare_runs`] for dense and hybrid runs: scores within `within` in absolute terms (inner
/// products near zero and z-scored fusions near zero make a relative bound meaningless). Lucene and
/// the embedded index sum f32 products in different orders, and z-scoring divides those ~1e-7
/// differences by a list's spread, so a fused score moves by ~1e-5. Returns (queries,
/// swapped positions, the largest score difference).
fn compare_dense_runs(embedded: &Path, remote: &Path, within: f64) -> (usize, usize, f64) {
    let (a, b) = (read_run(embedded), read_run(remote));
    assert_eq!(a.len(), b.len(), "the same queries");
    let (mut swapped, mut largest) = (0, 0f64);
    for (qid, list) in &a {
        swapped += compare_lists_within(list, &b[qid], &format!("query {qid}"), &|x, y| (x - y).abs() <= within);
        largest = list.iter().zip(&b[qid]).filter(|(x, y)| x.0 == y.0).fold(largest, |m, (x, y)| m.max((x.1 - y.1).abs()));
    }
    (a.len(), swapped, largest)
}

/// The bundled encoder's folder (scripts/setup_models.sh installs it).
fn minilm() -> String {
    repo().join("models/all-minilm-l6-v2").display().to_string()
}

/// `corpus` as an embedded index with vectors at `index`, and loaded with those vectors as
/// `alias` on the cluster.
fn with_vectors(corpus: &Path, index: &Path, alias: &str) {
    if !index.exists() {
        assert_ok(&run_quantir(&["index", "--corpus", corpus.to_str().unwrap(), "--index", index.to_str().unwrap(), "--dense", &minilm()]), "embedded index with vectors");
    }
    let load = run_quantir(&["index", "--corpus", corpus.to_str().unwrap(), "--backend", "opensearch", "--opensearch-index", alias, "--vectors-from", index.to_str().unwrap()]);
    assert_ok(&load, "loading with vectors");
}

/// SciFact in both backends (the embedded index in `dir`), built once per test binary.
fn scifact(dir: &Path) -> PathBuf {
    let index = dir.join("scifact-index");
    if !index.exists() {
        assert_ok(&run_quantir(&["index", "--corpus", repo().join("data/scifact").to_str().unwrap(), "--index", index.to_str().unwrap()]), "embedded index");
    }
    let output = run_quantir(&["index", "--corpus", repo().join("data/scifact").to_str().unwrap(), "--backend", "opensearch", "--opensearch-index", "t-scifact"]);
    assert_ok(&output, "loading SciFact");
    index
}

fn scifact_run(args: &[&str], output: &Path) -> std::process::Output {
    let mut all = vec!["run", "--claims", "data/scifact", "--qrels", "data/scifact/qrels/test.tsv", "-k", "100", "--output", output.to_str().unwrap()];
    all.extend_from_slice(args);
    Command::new(quantir()).args(&all).current_dir(repo()).env("QUANTIR_OPENSEARCH_URL", urls()).output().unwrap()
}

fn workdir() -> &'static Path {
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().unwrap()).path()
}

#[test]
fn scifact_equals_the_embedded_index() {
    let _lock = serial();
    let index = scifact(workdir());
    let dir = tempfile::tempdir().unwrap();
    let (embedded, remote) = (dir.path().join("embedded.run"), dir.path().join("remote.run"));
    assert_ok(&scifact_run(&["--index", index.to_str().unwrap()], &embedded), "embedded run");
    assert_ok(&scifact_run(&["--backend", "opensearch", "--opensearch-index", "t-scifact"], &remote), "remote run");
    let (queries, swapped) = compare_runs(&embedded, &remote);
    assert_eq!(queries, 300);
    eprintln!("SciFact: 300 claims, top 100: {swapped} positions swapped within ties");
    // A second load of the same corpus sends nothing.
    let again = run_quantir(&["index", "--corpus", repo().join("data/scifact").to_str().unwrap(), "--backend", "opensearch", "--opensearch-index", "t-scifact"]);
    assert_ok(&again, "reloading");
    assert!(String::from_utf8_lossy(&again.stderr).contains("nothing sent"), "{}", String::from_utf8_lossy(&again.stderr));
}

/// The dated QuanTemp sample in both backends: the embedded index (in the returned folder) and
/// `t-quantemp` on the cluster.
fn quantemp_sample() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let corpus = repo().join("data/quantemp-sample/corpus.json");
    let index = dir.path().join("idx");
    assert_ok(&run_quantir(&["index", "--corpus", corpus.to_str().unwrap(), "--index", index.to_str().unwrap()]), "embedded index");
    assert_ok(&run_quantir(&["index", "--corpus", corpus.to_str().unwrap(), "--backend", "opensearch", "--opensearch-index", "t-quantemp"]), "loading");
    (dir, index)
}

/// QuanTemp's dated sample: claim-only, the numeric and the iterative planner (several sub-queries,
/// fused), each claim cut off at its own date, undated documents excluded or included, and without
/// the filter.
#[test]
fn planned_runs_with_cutoffs_equal_the_embedded_index() {
    let _lock = serial();
    let (dir, index) = quantemp_sample();
    let claims = repo().join("data/quantemp-sample/claims.jsonl");
    // The iterative planner reads evidence while it plans: on the cluster, through the cluster's
    // search under each claim's cutoff.
    for extra in [&["--plan", "claim-only"][..], &["--plan", "numeric"], &["--undated", "include"], &["--temporal-filter", "off"], &["--plan", "numeric", "--fusion", "rrf"], &["--plan", "iterative"]] {
        let run = |backend: &[&str], name: &str| {
            let out = dir.path().join(name);
            let mut args = vec!["run", "--claims", claims.to_str().unwrap(), "-k", "50", "--output", out.to_str().unwrap()];
            args.extend_from_slice(extra);
            args.extend_from_slice(backend);
            assert_ok(&run_quantir(&args), &format!("run {extra:?}"));
            out
        };
        let embedded = run(&["--index", index.to_str().unwrap()], "e.run");
        let remote = run(&["--backend", "opensearch", "--opensearch-index", "t-quantemp"], "r.run");
        let (queries, swapped) = compare_runs(&embedded, &remote);
        assert_eq!(queries, 12, "every claim of the sample has hits");
        eprintln!("QuanTemp sample {extra:?}: {queries} claims, top 50: {swapped} positions swapped within ties");
    }
    // --explain on the cluster: the same sub-queries, and each document found by the same ones.
    let explain = |backend: &[&str], name: &str| -> Vec<Value> {
        let (out, explained) = (dir.path().join(format!("{name}.run")), dir.path().join(format!("{name}.jsonl")));
        let mut args = vec!["run", "--claims", claims.to_str().unwrap(), "-k", "50", "--plan", "numeric", "--output", out.to_str().unwrap(), "--explain", explained.to_str().unwrap()];
        args.extend_from_slice(backend);
        assert_ok(&run_quantir(&args), &format!("run --explain {backend:?}"));
        std::fs::read_to_string(&explained).unwrap().lines().map(|line| serde_json::from_str(line).unwrap()).collect()
    };
    let embedded = explain(&["--index", index.to_str().unwrap()], "e-explain");
    let remote = explain(&["--backend", "opensearch", "--opensearch-index", "t-quantemp"], "r-explain");
    assert_eq!(embedded.len(), 12);
    assert_eq!(remote.len(), embedded.len());
    let mut compared = 0;
    for (e, r) in embedded.iter().zip(&remote) {
        assert_eq!((&e["id"], &e["subqueries"], &e["fell_back"]), (&r["id"], &r["subqueries"], &r["fell_back"]));
        let found: HashMap<&str, &Value> = r["hits"].as_array().unwrap().iter().map(|h| (h["id"].as_str().unwrap(), &h["from_subqueries"])).collect();
        for hit in e["hits"].as_array().unwrap() {
            if let Some(theirs) = found.get(hit["id"].as_str().unwrap()) {
                assert_eq!(&hit["from_subqueries"], *theirs, "claim {}, document {}", e["id"], hit["id"]);
                compared += 1;
            }
        }
    }
    assert!(compared > 300, "only {compared} explained hits in common");
}

#[path = "../common/small_corpus.rs"]
mod small_corpus;
use small_corpus::{small_corpus, WORDS};

fn corpus_of(documents: Vec<Document>) -> Corpus {
    let summary = LoadSummary { documents: documents.len(), ..Default::default() };
    Corpus { documents, summary }
}

fn load(alias: &str, corpus: &Corpus) -> RemoteIndex {
    let cluster = connect(alias);
    quantir::opensearch::build(&cluster, corpus, Path::new("test"), &LoadConfig::default(), None, &NoProgress).unwrap();
    RemoteIndex::open(cluster).unwrap()
}

/// The cutoff on the cluster: for random queries, dates (day, month, year), undated policies and
/// k, the cluster's hits are the embedded exhaustive scorer's — so no admitted document is dated
/// on or after the cutoff and nothing eligible is missing — and each hit is checked against the
/// rule written from the spec.
#[test]
fn the_cutoff_is_exact_on_the_cluster() {
    let _lock = serial();
    delete_indexes("t-cutoff");
    let corpus = corpus_of(small_corpus(400, 7));
    let dates: HashMap<String, Option<PubDate>> = corpus.documents.iter().map(|d| (d.id.clone(), d.date)).collect();
    let dir = tempfile::tempdir().unwrap();
    build(&corpus, Path::new("test"), &dir.path().join("idx"), &IndexConfig::default(), &NoProgress).unwrap();
    let embedded = Index::open(&dir.path().join("idx")).unwrap();
    let remote = load("t-cutoff", &corpus);
    let mut state = 99u64;
    let mut next = |n: u64| {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 33) % n
    };
    let mut cases: Vec<(String, Cutoff, usize)> = Vec::new();
    for _ in 0..300 {
        let words: Vec<&str> = (0..1 + next(3)).map(|_| WORDS[next(WORDS.len() as u64) as usize]).collect();
        let (y, m, d) = (2014 + next(10), 1 + next(12), 1 + next(28));
        let before = PubDate::parse(&match next(3) { 0 => format!("{y}"), 1 => format!("{y}-{m:02}"), _ => format!("{y}-{m:02}-{d:02}") }).unwrap();
        let undated = if next(2) == 0 { UndatedPolicy::Include } else { UndatedPolicy::Exclude };
        cases.push((words.join(" "), Cutoff::before(before, undated), 1 + next(60) as usize));
    }
    let queries: Vec<RemoteQuery> = cases.iter().map(|(text, cutoff, k)| RemoteQuery { text, cutoff: *cutoff, k: *k, exclude: None }).collect();
    let answers = remote.search_batch(&queries, false, &NoProgress).unwrap();
    let bm25 = Bm25::new(&embedded, None).unwrap();
    let mut scratch = Scratch::default();
    let mut swapped = 0;
    for ((text, cutoff, k), got) in cases.iter().zip(&answers) {
        for hit in got {
            let admitted = match dates[&hit.id] {
                None => cutoff.undated == UndatedPolicy::Include,
                Some(d) => d.last_day() < cutoff.before.unwrap().first_day(),
            };
            assert!(admitted, "{text:?} before {:?}: {} dated {:?} was admitted", cutoff.before, hit.id, dates[&hit.id]);
        }
        let want: Vec<(String, f64)> = bm25.search(text, cutoff, *k, None, &mut scratch).unwrap().iter().map(|h| (embedded.id(h.rank).to_string(), f64::from(h.score))).collect();
        let got: Vec<(String, f64)> = got.iter().map(|h| (h.id.clone(), f64::from(h.score))).collect();
        swapped += compare_lists(&want, &got, &format!("{text:?} before {:?} k {k}", cutoff.before));
    }
    eprintln!("cutoff: 300 random cases, {swapped} positions swapped within ties");
}

/// Waits for `child` at most `limit`; kills it and fails when it runs longer.
fn wait(mut child: std::process::Child, limit: Duration) -> std::process::Output {
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            child.kill().ok();
            panic!("still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

/// Lets `child` run for `after`, kills data node 2 (kill -9), waits for `child` (at most 300 s)
/// and brings the node back: whether `child` was still running once the node was dead, and its
/// output.
fn kill_a_node_during(mut child: std::process::Child, after: Duration) -> (bool, std::process::Output) {
    std::thread::sleep(after);
    cluster_script(&["kill", "2"]);
    let running = child.try_wait().unwrap().is_none();
    let output = wait(child, Duration::from_secs(300));
    cluster_script(&["revive", "2"]);
    (running, output)
}

/// Runs `spawn` into a new file with data node 2 killed `after` into it: the run completes and its
/// file is `healthy`'s, byte for byte. A run that ends before the node is dead proves nothing: it
/// is run again with the node killed sooner (a warm cluster answers faster than the healthy run's
/// timing said), and the test fails when no run outlives the kill.
fn assert_a_killed_node_changes_nothing(healthy: &Path, after: Duration, spawn: impl Fn(&Path) -> std::process::Child) {
    let faulty = healthy.with_file_name("faulty.run");
    let mut after = after;
    for _ in 0..6 {
        let (running, output) = kill_a_node_during(spawn(&faulty), after);
        assert_ok(&output, "run with a node killed");
        if running {
            assert_eq!(std::fs::read(healthy).unwrap(), std::fs::read(&faulty).unwrap(), "the same run file");
            return;
        }
        after /= 2;
    }
    panic!("every run had finished before the node was killed (the last kill {after:?} into it)");
}

/// Starts a run of SciFact's 300 test claims into `output`, with `args` naming the retrieval and
/// the backend.
fn spawn_scifact(output: &Path, args: &[&str]) -> std::process::Child {
    Command::new(quantir())
        .args(["run", "--claims", "data/scifact", "--qrels", "data/scifact/qrels/test.tsv", "-k", "100", "--output"])
        .arg(output)
        .args(args)
        .current_dir(repo())
        .env("QUANTIR_OPENSEARCH_URL", urls())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// [`spawn_scifact`] of the BM25 run on `t-scifact`, one request in flight.
fn spawn_scifact_run(output: &Path) -> std::process::Child {
    spawn_scifact(output, &["--opensearch-concurrency", "1", "--backend", "opensearch", "--opensearch-index", "t-scifact"])
}

/// kill -9 one data node while 300 claims run: the replicas answer, and the run file is the one a
/// healthy cluster writes, byte for byte.
#[test]
fn a_killed_data_node_does_not_change_the_run() {
    let _lock = serial();
    scifact(workdir());
    let dir = tempfile::tempdir().unwrap();
    let healthy = dir.path().join("healthy.run");
    let started = Instant::now();
    assert_ok(&wait(spawn_scifact_run(&healthy), Duration::from_secs(300)), "healthy run");
    assert_a_killed_node_changes_nothing(&healthy, started.elapsed() / 2, spawn_scifact_run);
}

/// Stopping the whole cluster mid-run: a clear error, and no run file written as if complete.
#[test]
fn a_stopped_cluster_is_a_clear_error_and_writes_nothing() {
    let _lock = serial();
    scifact(workdir());
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let child = spawn_scifact_run(&out);
    std::thread::sleep(Duration::from_millis(1000));
    cluster_script(&["stop"]);
    let output = wait(child, Duration::from_secs(300));
    cluster_script(&["revive"]);
    assert!(!output.status.success(), "the run must fail");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("cannot reach OpenSearch") || stderr.contains("OpenSearch searching"), "{stderr}");
    assert!(!out.exists(), "no run file");
    assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none(), "nothing written at all");
}

/// Starts `quantir ARGS` (a load into `alias`) and kills it (SIGKILL) as soon as its first
/// checkpoint is in the physical index's `_meta`; returns the documents it records as loaded.
fn kill_after_checkpoint(args: &[&str], alias: &str) -> u64 {
    let mut child = Command::new(quantir()).args(args).current_dir(repo()).env("QUANTIR_OPENSEARCH_URL", urls()).stderr(Stdio::null()).spawn().unwrap();
    let started = Instant::now();
    let loaded = loop {
        let (_, mapping) = http("GET", &format!("/{alias}-*/_mapping"), None);
        let loaded = mapping.as_object().and_then(|m| m.values().next()).and_then(|m| m["mappings"]["_meta"]["quantir"]["loaded"].as_u64()).unwrap_or(0);
        if loaded > 0 {
            break loaded;
        }
        assert!(child.try_wait().unwrap().is_none(), "the load ended before a checkpoint");
        assert!(started.elapsed() < Duration::from_secs(120));
        std::thread::sleep(Duration::from_millis(50));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    loaded
}

/// kill -9 the loader mid-bulk, then run it again: it resumes from its last checkpoint, and the
/// index holds exactly the corpus — every document once, a sample compared field by field.
#[test]
fn an_interrupted_load_resumes_exactly() {
    let _lock = serial();
    delete_indexes("t-resume");
    let args = ["index", "--corpus", "data/scifact", "--backend", "opensearch", "--opensearch-index", "t-resume", "--opensearch-batch", "100", "--opensearch-concurrency", "1"];
    let loaded = kill_after_checkpoint(&args, "t-resume");
    assert!(loaded < 5183, "killed mid-load ({loaded})");
    let (status, _) = http("GET", "/_alias/t-resume", None);
    assert_eq!(status, 404, "no alias before the load completes");
    let output = Command::new(quantir()).args(args).current_dir(repo()).env("QUANTIR_OPENSEARCH_URL", urls()).output().unwrap();
    assert_ok(&output, "resumed load");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("already sent by an interrupted load"), "{stderr}");
    let (_, count) = http("GET", "/t-resume/_count", None);
    assert_eq!(count["count"], 5183);
    // Every 97th document, field by field.
    let corpus: Vec<Value> = std::fs::read_to_string(repo().join("data/scifact/corpus.jsonl")).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    for doc in corpus.iter().step_by(97) {
        let id = doc["_id"].as_str().unwrap();
        let (status, got) = http("GET", &format!("/t-resume/_doc/{id}"), None);
        assert_eq!(status, 200, "{id}");
        assert_eq!(got["_source"]["title"], doc["title"], "{id}");
        assert_eq!(got["_source"]["text"], doc["text"], "{id}");
    }
    // Deleted copies of re-sent documents were merged away: document frequencies are exact.
    let (_, stats) = http("GET", "/t-resume/_stats/docs", None);
    assert_eq!(stats["_all"]["primaries"]["docs"]["deleted"], 0, "{stats}");
    delete_indexes("t-resume");
}

/// Rebuilding under load: searches keep answering from the old index until the alias moves, then
/// from the new one; none fails and none sees a half-built index.
#[test]
fn a_rebuild_under_load_keeps_answering() {
    let _lock = serial();
    delete_indexes("t-swap");
    let old = corpus_of(small_corpus(400, 7));
    let new = corpus_of(small_corpus(3000, 11));
    let remote = load("t-swap", &old);
    let queries: Vec<RemoteQuery> = WORDS.iter().map(|w| RemoteQuery { text: w, cutoff: Cutoff::none(), k: 20, exclude: None }).collect();
    let before = remote.search_batch(&queries, false, &NoProgress).unwrap();
    let done = std::sync::atomic::AtomicBool::new(false);
    let answers = std::thread::scope(|scope| {
        let searcher = scope.spawn(|| {
            let mut answers = Vec::new();
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                answers.push(remote.search_batch(&queries, false, &NoProgress).expect("a search during the rebuild"));
            }
            answers
        });
        quantir::opensearch::build(&connect("t-swap"), &new, Path::new("test"), &LoadConfig::default(), None, &NoProgress).unwrap();
        std::thread::sleep(Duration::from_millis(500));
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        searcher.join().unwrap()
    });
    let after = remote.search_batch(&queries, false, &NoProgress).unwrap();
    assert_ne!(before, after, "the new corpus answers differently");
    assert!(answers.len() > 3, "searched throughout ({} rounds)", answers.len());
    // Each search resolves the alias on its own: every answer is the old index's or the new
    // one's, and once a query has seen the new index it never sees the old one again. (A batch
    // that spans the swap may hold both: each of its searches still sees a complete index.)
    let (mut old_answers, mut new_answers) = (0, 0);
    for q in 0..queries.len() {
        let mut seen_new = false;
        for answer in &answers {
            if answer[q] == before[q] && !seen_new {
                old_answers += 1;
            } else {
                assert_eq!(answer[q], after[q], "query {q}: an answer from neither index, or the old one after the new");
                seen_new = true;
                new_answers += 1;
            }
        }
    }
    assert!(old_answers > 0 && new_answers > 0, "{old_answers} old answers, {new_answers} new");
    let (_, indexes) = http("GET", "/_cat/indices/t-swap-*?format=json", None);
    assert_eq!(indexes.as_array().unwrap().len(), 1, "the old physical index is deleted: {indexes}");
    delete_indexes("t-swap");
}

/// A loopback server that answers 401 to everything, as a cluster with security does to a wrong
/// password.
fn unauthorized_server() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            use std::io::{Read, Write};
            let Ok(mut stream) = stream else { continue };
            let mut buffer = [0u8; 4096];
            let _ = stream.read(&mut buffer);
            let body = r#"{"error":"Unauthorized","status":401}"#;
            let _ = write!(stream, "HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len());
        }
    });
    format!("http://{address}")
}

#[test]
fn bad_configuration_gets_one_clear_error_each() {
    let _lock = serial();
    let search = |url: &str, index: &str, extra: &[&str]| {
        let mut args = vec!["search", "--backend", "opensearch", "--opensearch-url", url, "--opensearch-index", index];
        args.extend_from_slice(extra);
        args.push("inflation 3%");
        let output = Command::new(quantir()).args(&args).output().unwrap();
        assert!(!output.status.success(), "{args:?} must fail");
        String::from_utf8_lossy(&output.stderr).to_string()
    };
    // Nothing listens there.
    let e = search("http://127.0.0.1:1", "t-any", &[]);
    assert!(e.contains("cannot reach OpenSearch at http://127.0.0.1:1") && e.contains("hint:"), "{e}");
    // Credentials refused.
    let e = search(&unauthorized_server(), "t-any", &["--opensearch-user", "me", "--opensearch-password", "wrong"]);
    assert!(e.contains("refused the credentials (HTTP 401)"), "{e}");
    // No such index.
    let e = search(&urls(), "t-missing", &[]);
    assert!(e.contains("has no quantir index \"t-missing\"") && e.contains("quantir index --corpus"), "{e}");
    // An index built by another analyzer version.
    delete_indexes("t-oldanalyzer");
    let meta = json!({ "layout_version": 1, "quantir_version": "0.0.1", "analyzer": "quantir-numeric-en", "analyzer_version": 999, "bm25": { "k1": 0.9, "b": 0.4 }, "fingerprint": "x", "documents": 0, "loaded": 0, "complete": true, "corpus": "old" });
    let (status, body) = http("PUT", "/t-oldanalyzer-x", Some(json!({ "mappings": { "_meta": { "quantir": meta } }, "aliases": { "t-oldanalyzer": {} } })));
    assert_eq!(status, 200, "{body}");
    let e = search(&urls(), "t-oldanalyzer", &[]);
    assert!(e.contains("the analyzer version is 999, this quantir needs 1") && e.contains("hint: rebuild"), "{e}");
    delete_indexes("t-oldanalyzer");
    // A concrete index where quantir expects its alias: never replaced.
    delete_indexes("t-concrete");
    http("PUT", "/t-concrete", Some(json!({})));
    let output = Command::new(quantir())
        .args(["index", "--corpus", "data/scifact", "--backend", "opensearch", "--opensearch-url", &urls(), "--opensearch-index", "t-concrete"])
        .current_dir(repo())
        .output()
        .unwrap();
    assert!(!output.status.success());
    let e = String::from_utf8_lossy(&output.stderr);
    assert!(e.contains("a concrete index, not an alias"), "{e}");
    let (status, _) = http("GET", "/t-concrete", None);
    assert_eq!(status, 200, "the concrete index is untouched");
    delete_indexes("t-concrete");
    // BM25 parameters other than the index's.
    scifact(workdir());
    let e = search(&urls(), "t-scifact", &["--k1", "1.2"]);
    assert!(e.contains("on a cluster BM25's parameters are index settings"), "{e}");
}

/// A `quantir serve` on a free loopback port; its URL from the first line it prints.
struct Server {
    child: std::process::Child,
    url: String,
}

impl Server {
    fn start(args: &[&str]) -> Server {
        use std::io::BufRead;
        let mut child = Command::new(quantir()).args(["serve", "--addr", "127.0.0.1:0"]).args(args).env("QUANTIR_OPENSEARCH_URL", urls()).stderr(Stdio::piped()).spawn().unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stderr.as_mut().unwrap()).read_line(&mut line).unwrap();
        let url = line.rsplit(" on ").next().unwrap_or_else(|| panic!("unexpected first line: {line}")).trim().trim_end_matches('/').to_string();
        Server { child, url }
    }

    fn post(&self, path: &str, body: Value) -> (u16, Value) {
        let response = reqwest::blocking::Client::new().post(format!("{}{path}", self.url)).json(&body).send().unwrap();
        (response.status().as_u16(), response.json().unwrap())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `quantir serve --backend opensearch`: the same evidence, sub-queries and scores as the embedded
/// server for the same claims, and a 503 (not a 422) when the cluster is gone.
#[test]
fn the_server_answers_from_the_cluster_as_from_the_folder() {
    let _lock = serial();
    // The folder lives as long as its guard.
    let (_dir, index) = quantemp_sample();
    let embedded = Server::start(&["--index", index.to_str().unwrap()]);
    let remote = Server::start(&["--backend", "opensearch", "--opensearch-index", "t-quantemp"]);
    let health: Value = reqwest::blocking::get(format!("{}/api/health", remote.url)).unwrap().json().unwrap();
    assert_eq!((health["backend"].as_str(), health["documents"].as_u64()), (Some("opensearch"), Some(732)), "{health}");
    let claims: Vec<Value> = std::fs::read_to_string(repo().join("data/quantemp-sample/claims.jsonl")).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    for claim in &claims {
        for plan in ["claim-only", "numeric"] {
            let request = json!({ "claim": claim["text"], "date": claim["date"], "plan": plan, "k": 10 });
            let (sa, a) = embedded.post("/api/search", request.clone());
            let (sb, b) = remote.post("/api/search", request);
            assert_eq!((sa, sb), (200, 200), "{a} {b}");
            assert_eq!(a["subqueries"], b["subqueries"]);
            let list = |v: &Value| v["hits"].as_array().unwrap().iter().map(|h| (h["id"].as_str().unwrap().to_string(), h["score"].as_f64().unwrap())).collect::<Vec<_>>();
            compare_lists(&list(&a), &list(&b), &format!("{} {plan}", claim["id"]));
            for (ha, hb) in a["hits"].as_array().unwrap().iter().zip(b["hits"].as_array().unwrap()) {
                if ha["id"] == hb["id"] {
                    for field in ["text", "title", "date", "url", "from_subqueries", "highlights"] {
                        assert_eq!(ha[field], hb[field], "{field} of {}", ha["id"]);
                    }
                }
            }
        }
    }
    let (status, body) = remote.post("/api/search", json!({ "claim": "x", "retriever": "dense" }));
    assert_eq!(status, 422, "{body}");
    // SIGTERM: a clean stop (the cluster client's runtime is dropped inside the server's).
    let mut remote = remote;
    // SAFETY: sending a signal to our own child process.
    unsafe { libc::kill(remote.child.id() as i32, libc::SIGTERM) };
    let status = remote.child.wait().unwrap();
    assert!(status.success(), "the server exited with {status}");
    // The cluster gone: the server's trouble (503), not the request's.
    let gone = Server::start(&["--backend", "opensearch", "--opensearch-index", "t-quantemp"]);
    cluster_script(&["stop"]);
    let (status, body) = gone.post("/api/search", json!({ "claim": "inflation 3%" }));
    cluster_script(&["revive"]);
    assert_eq!(status, 503, "{body}");
}

/// Documents the cluster refuses during a load (here: a write block set on the physical index
/// after a checkpoint) are reported with their ids and reasons, the alias is not created, and the
/// same command resumes once the cause is gone.
#[test]
fn refused_documents_are_reported_not_dropped() {
    let _lock = serial();
    delete_indexes("t-refused");
    let args = ["index", "--corpus", "data/scifact", "--backend", "opensearch", "--opensearch-index", "t-refused", "--opensearch-batch", "100", "--opensearch-concurrency", "1"];
    kill_after_checkpoint(&args, "t-refused");
    let (status, body) = http("PUT", "/t-refused-*/_settings", Some(json!({ "index.blocks.write": true })));
    assert_eq!(status, 200, "{body}");
    let output = Command::new(quantir()).args(args).current_dir(repo()).env("QUANTIR_OPENSEARCH_URL", urls()).output().unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("OpenSearch refused") && stderr.contains("blocked") && stderr.contains("the alias still names the previous index"), "{stderr}");
    let (status, _) = http("GET", "/_alias/t-refused", None);
    assert_eq!(status, 404, "no alias over a partial index");
    http("PUT", "/t-refused-*/_settings", Some(json!({ "index.blocks.write": null })));
    assert_ok(&Command::new(quantir()).args(args).current_dir(repo()).env("QUANTIR_OPENSEARCH_URL", urls()).output().unwrap(), "the load after the block is lifted");
    let (_, count) = http("GET", "/t-refused/_count", None);
    assert_eq!(count["count"], 5183);
    delete_indexes("t-refused");
}

/// The loader streams its file and keeps no id, so the cluster tells a repeated id: a `create`
/// refused for an id whose stored copy came from another line is the error a build gives, naming
/// both lines — whether the repeat is in a later request or the same one, and whether its content
/// differs or not — and the alias never names the partial index.
#[test]
fn a_repeated_id_in_a_streamed_corpus_names_both_lines() {
    let _lock = serial();
    let dir = tempfile::tempdir().unwrap();
    for (repeat_line, content, alias) in [(2_900, "a different text", "t-repeat-far"), (9, "inflation 4 percent", "t-repeat-near")] {
        delete_indexes(alias);
        let mut text = String::new();
        for i in 1..=3_000 {
            let (id, body) = if i == repeat_line { (4, content.to_string()) } else { (i, format!("inflation {i} percent")) };
            text.push_str(&format!("{{\"id\": \"d{id}\", \"text\": \"{body}\", \"date\": \"2020-01-01\"}}\n"));
        }
        let corpus = dir.path().join(format!("{alias}.jsonl"));
        std::fs::write(&corpus, text).unwrap();
        let output = Command::new(quantir())
            .args(["index", "--corpus"])
            .arg(&corpus)
            .args(["--backend", "opensearch", "--opensearch-index", alias, "--opensearch-batch", "100", "--opensearch-concurrency", "1"])
            .env("QUANTIR_OPENSEARCH_URL", urls())
            .output()
            .unwrap();
        assert!(!output.status.success(), "{alias} loaded with a repeated id");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(&format!("{alias}.jsonl:{repeat_line}: duplicate id \"d4\" (first at line 4)")), "{stderr}");
        let (status, _) = http("GET", &format!("/_alias/{alias}"), None);
        assert_eq!(status, 404, "no alias over a partial index");
        delete_indexes(alias);
    }
    // QuanTemp++'s corpus.json on one line, as published: every record is on line 1, and the
    // repeat is told by where its record starts.
    delete_indexes("t-repeat-object");
    let records: Vec<String> = (1..=3_000).map(|i| format!("\"{}\": {{\"title\": \"t\", \"snippet\": \"inflation {i} percent\", \"date\": \"2020-01-01\"}}", if i == 2_900 { 4 } else { i })).collect();
    let corpus = dir.path().join("corpus.json");
    std::fs::write(&corpus, format!("{{{}}}", records.join(", "))).unwrap();
    let output = Command::new(quantir())
        .args(["index", "--corpus"])
        .arg(&corpus)
        .args(["--backend", "opensearch", "--opensearch-index", "t-repeat-object", "--opensearch-batch", "100", "--opensearch-concurrency", "1"])
        .env("QUANTIR_OPENSEARCH_URL", urls())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success() && stderr.contains("corpus.json:1: duplicate id \"4\" (first at line 1)"), "{stderr}");
    delete_indexes("t-repeat-object");
}

/// Issue 39: updates go to the live physical index as `_bulk` operations. Adds keep every run
/// equal to the embedded index of the final corpus; deletes and replacements with `--expunge`
/// too; without it the summary counts the deleted copies left. Feeding the same file again sends
/// nothing, and the physical index is the one loaded (no new full load).
#[test]
fn updates_on_the_cluster_equal_the_embedded_index() {
    let _lock = serial();
    let dir = tempfile::tempdir().unwrap();
    let records: serde_json::Map<String, Value> = serde_json::from_str(&std::fs::read_to_string(repo().join("data/quantemp-sample/corpus.json")).unwrap()).unwrap();
    let docs: Vec<Value> = records.iter().map(|(id, r)| json!({"id": id, "title": r["title"], "text": r["snippet"], "date": r["date"]})).collect();
    let write = |name: &str, docs: &[Value]| {
        let path = dir.path().join(name);
        std::fs::write(&path, docs.iter().map(|d| d.to_string() + "\n").collect::<String>()).unwrap();
        path.to_str().unwrap().to_string()
    };
    let (base, added) = (write("base.jsonl", &docs[..600]), write("added.jsonl", &docs[600..]));
    let replaced: Vec<Value> = docs[10..30].iter().map(|d| { let mut d = d.clone(); d["text"] = json!(format!("{} corrected to 12%", d["text"].as_str().unwrap())); d }).collect();
    let replaced_file = write("replaced.jsonl", &replaced);
    let doomed: Vec<String> = docs[100..140].iter().map(|d| d["id"].as_str().unwrap().to_string()).collect();
    let os = ["--backend", "opensearch", "--opensearch-index", "t-update"];
    delete_indexes("t-update");
    assert_ok(&run_quantir(&[&["index", "--corpus", &base][..], &os].concat()), "loading the base");
    let physical = || http("GET", "/_alias/t-update", None).1.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    let loaded = physical();
    let claims = repo().join("data/quantemp-sample/claims.jsonl");
    let equal_to_embedded = |final_docs: &[Value], stage: &str| {
        let index = dir.path().join(format!("idx-{stage}"));
        assert_ok(&run_quantir(&["index", "--corpus", &write(&format!("final-{stage}.jsonl"), final_docs), "--index", index.to_str().unwrap()]), "embedded index");
        for extra in [&["--plan", "claim-only"][..], &["--undated", "include"], &["--temporal-filter", "off"]] {
            let run = |backend: &[&str], name: &str| {
                let out = dir.path().join(name);
                assert_ok(&run_quantir(&[&["run", "--claims", claims.to_str().unwrap(), "-k", "50", "--output", out.to_str().unwrap()][..], extra, backend].concat()), &format!("{stage} run {extra:?}"));
                out
            };
            let (queries, swapped) = compare_runs(&run(&["--index", index.to_str().unwrap()], "e.run"), &run(&os, "r.run"));
            assert_eq!(queries, 12, "{stage}");
            eprintln!("{stage} {extra:?}: {queries} claims, top 50: {swapped} positions swapped within ties");
        }
    };
    let summary = |output: &std::process::Output| -> Value { serde_json::from_slice(&output.stdout).unwrap() };

    // Adds: bulk creates, equal without any merge.
    let out = run_quantir(&[&["add", "--json", "--corpus", &added][..], &os].concat());
    assert_ok(&out, "add");
    let s = summary(&out);
    assert_eq!((s["added"].as_u64(), s["documents"].as_u64(), s["deleted_copies"].as_u64()), (Some(docs.len() as u64 - 600), Some(docs.len() as u64), Some(0)), "{s}");
    assert_eq!(physical(), loaded, "the update went to the loaded index");
    equal_to_embedded(&docs, "after adds");
    // The same file again: nothing sent.
    let out = run_quantir(&[&["add", "--json", "--corpus", &added][..], &os].concat());
    assert_ok(&out, "add again");
    assert_eq!(summary(&out)["unchanged"].as_u64(), Some(docs.len() as u64 - 600));

    // Replacements and deletes without --expunge: the copies are counted out loud.
    let out = run_quantir(&[&["add", "--json", "--corpus", &replaced_file][..], &os].concat());
    assert_ok(&out, "replace");
    let s = summary(&out);
    assert_eq!(s["replaced"].as_u64(), Some(20), "{s}");
    assert_eq!((s["expunged"].as_bool(), s["documents"].as_u64()), (Some(false), Some(docs.len() as u64)), "{s}");
    eprintln!("after 20 replacements without --expunge: {} deleted copies counted", s["deleted_copies"]);
    // Deletes with --expunge: every copy merged away, and the runs equal the embedded index's.
    let mut args: Vec<&str> = vec!["delete", "--json", "--expunge", "--id", "not-there"];
    for id in &doomed {
        args.extend(["--id", id.as_str()]);
    }
    let out = run_quantir(&[&args[..], &os].concat());
    assert_ok(&out, "delete --expunge");
    let s = summary(&out);
    assert_eq!((s["deleted"].as_u64(), s["not_found"].as_u64(), s["deleted_copies"].as_u64(), s["expunged"].as_bool()), (Some(40), Some(1), Some(0), Some(true)), "{s}");
    let mut final_docs: Vec<Value> = docs.iter().filter(|d| !doomed.contains(&d["id"].as_str().unwrap().to_string())).cloned().collect();
    for d in final_docs.iter_mut() {
        if let Some(r) = replaced.iter().find(|r| r["id"] == d["id"]) {
            *d = r.clone();
        }
    }
    equal_to_embedded(&final_docs, "after replacements and deletes");
    assert_eq!(physical(), loaded);
    // Loading the base corpus again is a new load beside the updated index (whose name it
    // would have had), and the alias moves to it.
    assert_ok(&run_quantir(&[&["index", "--corpus", &base][..], &os].concat()), "loading the base again");
    let reloaded = physical();
    assert!(reloaded.len() == 1 && reloaded != loaded && reloaded[0].starts_with(&loaded[0]), "{reloaded:?} after {loaded:?}");
    delete_indexes("t-update");
}

/// Issue 39: kill -9 a data node while `quantir add` sends 2,183 documents: the update completes
/// on the replicas, and once the node is back the runs equal the embedded index of the whole
/// collection (nothing lost, nothing doubled).
#[test]
fn a_node_killed_during_an_update_loses_nothing() {
    let _lock = serial();
    let index = scifact(workdir());
    let dir = tempfile::tempdir().unwrap();
    let lines: Vec<String> = std::fs::read_to_string(repo().join("data/scifact/corpus.jsonl")).unwrap().lines().map(str::to_string).collect();
    let (base, rest) = (dir.path().join("base").join("corpus.jsonl"), dir.path().join("rest").join("corpus.jsonl"));
    for (path, part) in [(&base, &lines[..3000]), (&rest, &lines[3000..])] {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, part.join("\n") + "\n").unwrap();
    }
    let os = ["--backend", "opensearch", "--opensearch-index", "t-upkill"];
    delete_indexes("t-upkill");
    assert_ok(&run_quantir(&[&["index", "--format", "beir", "--corpus", base.to_str().unwrap()][..], &os].concat()), "loading the base");
    let child = Command::new(quantir())
        .args([&["add", "--json", "--format", "beir", "--opensearch-concurrency", "1", "--corpus", rest.to_str().unwrap()][..], &os].concat())
        .env("QUANTIR_OPENSEARCH_URL", urls())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (running, output) = kill_a_node_during(child, Duration::from_millis(400));
    assert_ok(&output, "add with a node killed");
    assert!(running, "the update had finished before the node was killed");
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!((summary["added"].as_u64(), summary["documents"].as_u64()), (Some(lines.len() as u64 - 3000), Some(lines.len() as u64)), "{summary}");
    let (embedded, remote) = (dir.path().join("embedded.run"), dir.path().join("remote.run"));
    assert_ok(&scifact_run(&["--index", index.to_str().unwrap()], &embedded), "embedded run");
    assert_ok(&scifact_run(&os, &remote), "remote run");
    let (queries, swapped) = compare_runs(&embedded, &remote);
    assert_eq!(queries, 300);
    eprintln!("SciFact added under a node kill: 300 claims, top 100: {swapped} positions swapped within ties");
    delete_indexes("t-upkill");
}

/// QuanTemp's dated sample loaded with the embedded index's vectors: dense (exact) and hybrid
/// runs, each claim under its own cutoff, equal the embedded runs (the same top 50, scores within
/// 1e-5); the cluster's HNSW finds nearly all of exact's top 50.
#[test]
fn dense_and_hybrid_runs_with_cutoffs_equal_the_embedded_index() {
    let _lock = serial();
    let dir = tempfile::tempdir().unwrap();
    let corpus = repo().join("data/quantemp-sample/corpus.json");
    let index = dir.path().join("idx");
    with_vectors(&corpus, &index, "t-quantemp-dense");
    let claims = repo().join("data/quantemp-sample/claims.jsonl");
    let run = |extra: &[&str], backend: &[&str], name: &str| {
        let out = dir.path().join(name);
        let mut args = vec!["run", "--claims", claims.to_str().unwrap(), "-k", "50", "--output", out.to_str().unwrap()];
        args.extend_from_slice(extra);
        args.extend_from_slice(backend);
        assert_ok(&run_quantir(&args), &format!("run {extra:?} {backend:?}"));
        out
    };
    let (embedded, remote) = (["--index", index.to_str().unwrap()], ["--backend", "opensearch", "--opensearch-index", "t-quantemp-dense"]);
    for extra in [
        &["--retriever", "dense"][..],
        &["--retriever", "hybrid"],
        &["--retriever", "dense", "--plan", "numeric"],
        &["--retriever", "hybrid", "--plan", "numeric", "--undated", "include"],
        &["--retriever", "hybrid", "--hybrid-fusion", "rrf", "--temporal-filter", "off"],
        &["--retriever", "hybrid", "--plan", "iterative"],
    ] {
        let (e, r) = (run(extra, &embedded, "e.run"), run(extra, &remote, "r.run"));
        let (queries, swapped, largest) = compare_dense_runs(&e, &r, 1e-4);
        assert_eq!(queries, 12, "every claim of the sample has hits");
        eprintln!("QuanTemp sample with vectors {extra:?}: {queries} claims, top 50: {swapped} positions swapped within ties, scores within {largest:.2e}");
    }
    // The same BM25 run as an index without vectors.
    let (e, r) = (run(&["--retriever", "bm25"], &embedded, "e.run"), run(&["--retriever", "bm25"], &remote, "r.run"));
    compare_runs(&e, &r);
    // HNSW on the cluster (Lucene's graph, the cutoff inside the graph search) against exact.
    let exact = read_run(&run(&["--retriever", "dense"], &remote, "exact.run"));
    let approximate = read_run(&run(&["--retriever", "dense", "--ann", "hnsw"], &remote, "hnsw.run"));
    let (mut found, mut total) = (0, 0);
    for (qid, list) in &exact {
        let theirs: std::collections::HashSet<&str> = approximate[qid].iter().map(|(id, _)| id.as_str()).collect();
        found += list.iter().filter(|(id, _)| theirs.contains(id.as_str())).count();
        total += list.len();
    }
    let recall = found as f64 / total as f64;
    eprintln!("QuanTemp sample: the cluster's HNSW recall@50 against exact {recall:.4}");
    assert!(recall >= 0.95, "recall@50 {recall}");
    // The servers: a hybrid search with the numeric plan gives the embedded server's evidence.
    {
        let embedded = Server::start(&["--index", index.to_str().unwrap()]);
        let remote = Server::start(&["--backend", "opensearch", "--opensearch-index", "t-quantemp-dense"]);
        let health: Value = reqwest::blocking::get(format!("{}/api/health", remote.url)).unwrap().json().unwrap();
        assert_eq!(health["retrievers"], json!(["bm25", "dense", "hybrid"]), "{health}");
        for line in std::fs::read_to_string(&claims).unwrap().lines() {
            let claim: Value = serde_json::from_str(line).unwrap();
            let request = json!({ "claim": claim["text"], "date": claim["date"], "plan": "numeric", "retriever": "hybrid", "k": 10 });
            let ((sa, a), (sb, b)) = (embedded.post("/api/search", request.clone()), remote.post("/api/search", request));
            assert_eq!((sa, sb), (200, 200), "{a} {b}");
            let list = |v: &Value| v["hits"].as_array().unwrap().iter().map(|h| (h["id"].as_str().unwrap().to_string(), h["score"].as_f64().unwrap())).collect::<Vec<_>>();
            assert!(!list(&a).is_empty(), "{a}");
            compare_lists_within(&list(&a), &list(&b), &format!("server {}", claim["id"]), &|x, y| (x - y).abs() <= 1e-4);
            for (ha, hb) in a["hits"].as_array().unwrap().iter().zip(b["hits"].as_array().unwrap()).filter(|(ha, hb)| ha["id"] == hb["id"]) {
                assert_eq!((&ha["text"], &ha["date"], &ha["from_subqueries"]), (&hb["text"], &hb["date"], &hb["from_subqueries"]), "{}", ha["id"]);
            }
        }
    }
    // `quantir search` with dense and hybrid retrieval under a cutoff: the cluster's hits are the
    // embedded index's.
    let first: Value = serde_json::from_str(std::fs::read_to_string(&claims).unwrap().lines().next().unwrap()).unwrap();
    for retriever in ["dense", "hybrid"] {
        let search = |backend: &[&str]| {
            let out = run_quantir(&[&["search", "--json", "--retriever", retriever, "-k", "20", "--before", first["date"].as_str().unwrap()][..], backend, &[first["text"].as_str().unwrap()]].concat());
            assert_ok(&out, &format!("search --retriever {retriever} {backend:?}"));
            let hits: Value = serde_json::from_slice(&out.stdout).unwrap();
            hits["hits"].as_array().unwrap().iter().map(|h| (h["id"].as_str().unwrap().to_string(), h["score"].as_f64().unwrap())).collect::<Vec<_>>()
        };
        let (a, b) = (search(&embedded), search(&remote));
        assert!(!a.is_empty());
        compare_lists_within(&a, &b, &format!("search --retriever {retriever}"), &|x, y| (x - y).abs() <= 1e-4);
    }
    // An index without vectors refuses dense retrieval with the way to load them.
    quantemp_sample();
    let out = run_quantir(&["run", "--claims", claims.to_str().unwrap(), "--output", dir.path().join("x.run").to_str().unwrap(), "--retriever", "dense", "--dense", &minilm(), "--backend", "opensearch", "--opensearch-index", "t-quantemp"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("holds no vectors") && stderr.contains("--vectors-from"), "{stderr}");
    // Vectors from an index of another corpus are refused, naming the document.
    let other = dir.path().join("other.jsonl");
    std::fs::write(&other, "{\"id\": \"zz-not-there\", \"text\": \"A document the sample does not hold.\"}\n").unwrap();
    let out = run_quantir(&["index", "--corpus", other.to_str().unwrap(), "--backend", "opensearch", "--opensearch-index", "t-mismatch", "--vectors-from", index.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("zz-not-there") && stderr.contains("does not hold it"), "{stderr}");
    delete_indexes("t-mismatch");
}

/// SciFact with vectors: a hybrid run with a data node killed during it equals the healthy run
/// byte for byte, and the healthy run equals the embedded one.
#[test]
fn a_node_killed_during_a_hybrid_run_changes_nothing() {
    let _lock = serial();
    let index = workdir().join("scifact-dense");
    with_vectors(&repo().join("data/scifact"), &index, "t-scifact-dense");
    let dir = tempfile::tempdir().unwrap();
    let spawn = |output: &Path, backend: &[&str]| spawn_scifact(output, &[&["--retriever", "hybrid", "--plan", "numeric"][..], backend].concat());
    let remote = ["--backend", "opensearch", "--opensearch-index", "t-scifact-dense", "--opensearch-concurrency", "1"];
    let (embedded, healthy) = (dir.path().join("embedded.run"), dir.path().join("healthy.run"));
    assert_ok(&wait(spawn(&embedded, &["--index", index.to_str().unwrap()]), Duration::from_secs(300)), "embedded run");
    let started = Instant::now();
    assert_ok(&wait(spawn(&healthy, &remote), Duration::from_secs(300)), "healthy run");
    let took = started.elapsed();
    let (queries, swapped, largest) = compare_dense_runs(&embedded, &healthy, 1e-4);
    assert_eq!(queries, 300);
    eprintln!("SciFact hybrid with the numeric planner: 300 claims, top 100: {swapped} positions swapped within ties, scores within {largest:.2e}; the cluster's run took {took:?}");
    assert_a_killed_node_changes_nothing(&healthy, took / 2, |faulty| spawn(faulty, &remote));
}

/// An index whose vector field uses the faiss engine (which, without the plugin's native
/// libraries, kills the node on its first document) is refused before any search.
#[test]
fn a_faiss_engine_index_is_refused() {
    let _lock = serial();
    scifact(workdir());
    delete_indexes("t-faiss");
    let (_, mapping) = http("GET", "/t-scifact/_mapping", None);
    let mut mappings = mapping.as_object().unwrap().values().next().unwrap()["mappings"].clone();
    mappings["properties"]["vector"] = json!({ "type": "knn_vector", "dimension": 384, "method": { "name": "hnsw", "space_type": "innerproduct", "engine": "faiss" } });
    let (status, body) = http("PUT", "/t-faiss-physical", Some(json!({ "settings": { "index.knn": true, "number_of_replicas": 0, "similarity": { "quantir_bm25": { "type": "BM25" } } }, "mappings": mappings })));
    assert_eq!(status, 200, "{body}");
    let (status, body) = http("POST", "/_aliases", Some(json!({ "actions": [{ "add": { "index": "t-faiss-physical", "alias": "t-faiss" } }] })));
    assert_eq!(status, 200, "{body}");
    let dir = tempfile::tempdir().unwrap();
    let out = run_quantir(&["run", "--claims", repo().join("data/quantemp-sample/claims.jsonl").to_str().unwrap(), "--output", dir.path().join("x.run").to_str().unwrap(), "--backend", "opensearch", "--opensearch-index", "t-faiss"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("faiss") && stderr.contains("lucene"), "{stderr}");
    assert!(!dir.path().join("x.run").exists());
    delete_indexes("t-faiss");
}
