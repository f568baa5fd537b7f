//! One test per reported case (`issue_N_<what>`), each failing before its fix.

use std::time::{Duration, Instant};

use predicates::prelude::PredicateBooleanExt;
use predicates::str::contains;

use crate::serve::{host_port, sample_index, seconds_until_closed, stalled, Server, FLORIDA};
use crate::util::{fixture, quantir, repo, write};

/// Issue 12: `index --index DIR` replaced whatever DIR held.
#[test]
fn issue_12_index_refuses_a_folder_that_is_not_an_index() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = fixture("jsonl/corpus.jsonl");
    let thesis = dir.path().join("d");
    std::fs::create_dir(&thesis).unwrap();
    write(&thesis, "thesis.tex", "x");
    quantir().args(["index", "--corpus"]).arg(&corpus).arg("--index").arg(&thesis).assert().code(1).stderr(contains("is a folder that holds files but no quantir index")).stderr(contains("nothing was changed"));
    assert_eq!(std::fs::read_to_string(thesis.join("thesis.tex")).unwrap(), "x");
    // The corpus folder itself.
    let scifact = dir.path().join("scifact");
    std::fs::create_dir(&scifact).unwrap();
    std::fs::copy(repo().join("data/scifact/corpus.jsonl"), scifact.join("corpus.jsonl")).unwrap();
    quantir().args(["index", "--corpus"]).arg(&scifact).arg("--index").arg(&scifact).assert().code(1).stderr(contains("no quantir index"));
    assert!(scifact.join("corpus.jsonl").is_file());
    // A file: refused, nothing moved.
    let file = write(dir.path(), "c.jsonl", std::fs::read(&corpus).unwrap());
    quantir().args(["index", "--corpus"]).arg(&corpus).arg("--index").arg(&file).assert().code(1).stderr(contains("c.jsonl: is a file"));
    assert_eq!(std::fs::read(&file).unwrap(), std::fs::read(&corpus).unwrap());
    assert!(std::fs::read_dir(dir.path()).unwrap().all(|e| !e.unwrap().file_name().to_string_lossy().contains("staging")));
    // An empty folder and an existing index are ours to replace.
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    quantir().args(["index", "--corpus"]).arg(&corpus).arg("--index").arg(&empty).assert().success();
    quantir().args(["index", "--corpus"]).arg(&corpus).arg("--index").arg(&empty).assert().success();
}

/// Issue 12: `run`, `plan` and `fuse` overwrote their own input; `run --output idx/manifest.json`
/// broke the index.
#[test]
fn issue_12_outputs_never_overwrite_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let claims = write(dir.path(), "c.jsonl", std::fs::read(fixture("jsonl/claims.jsonl")).unwrap());
    let before = std::fs::read(&claims).unwrap();
    let index = dir.path().join("idx");
    quantir().args(["index", "--corpus"]).arg(fixture("jsonl/corpus.jsonl")).arg("--index").arg(&index).assert().success();
    quantir().args(["run", "--index"]).arg(&index).arg("--claims").arg(&claims).arg("--output").arg(&claims).assert().code(1).stderr(contains("would overwrite the input"));
    quantir().args(["plan", "--plan", "numeric", "--claims"]).arg(&claims).arg("--output").arg(dir.path().join(".").join("c.jsonl")).assert().code(1).stderr(contains("would overwrite the input"));
    assert_eq!(std::fs::read(&claims).unwrap(), before);
    let manifest = std::fs::read(index.join("CURRENT")).unwrap();
    quantir().args(["run", "--index"]).arg(&index).arg("--claims").arg(&claims).arg("--output").arg(index.join("CURRENT")).assert().code(1).stderr(contains("lies inside the index"));
    assert_eq!(std::fs::read(index.join("CURRENT")).unwrap(), manifest);
    let run = dir.path().join("r.trec");
    quantir().args(["run", "--index"]).arg(&index).arg("--claims").arg(&claims).arg("--output").arg(&run).assert().success();
    quantir().args(["fuse", "--method", "rrf"]).arg(&run).arg(&run).arg("--output").arg(&run).assert().code(1).stderr(contains("would overwrite the input"));
}

/// Issue 12: `-k 1000000000000` aborted allocating 16 TB and `-k 2^60` panicked: k beyond the
/// collection is the collection.
#[test]
fn issue_12_a_huge_k_is_the_whole_collection() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    quantir().args(["index", "--corpus"]).arg(fixture("jsonl/corpus.jsonl")).arg("--index").arg(&index).assert().success();
    for k in ["1000000000000", "1152921504606846976"] {
        let out = dir.path().join(format!("r{k}"));
        quantir().args(["run", "-k", k, "--depth", k, "--plan", "numeric", "--index"]).arg(&index).arg("--claims").arg(fixture("jsonl/claims.jsonl")).arg("--output").arg(&out).assert().success();
        quantir().args(["search", "-k", k, "--index"]).arg(&index).arg("inflation").assert().success();
    }
}

/// Issue 12: `verify-eval` scored 1 of 3 gold claims as accuracy 1.0, counted a duplicate twice,
/// scored an empty file 0 with exit 0, and panicked or aborted on huge `--folds`.
#[test]
fn issue_12_verify_eval_checks_coverage() {
    let dir = tempfile::tempdir().unwrap();
    let gold = write(dir.path(), "gold.jsonl", "{\"id\": \"a\", \"label\": \"True\"}\n{\"id\": \"b\", \"label\": \"False\"}\n{\"id\": \"c\", \"label\": \"False\"}\n");
    let eval = |pred: &std::path::Path, extra: &[&str]| quantir().args(["verify-eval", "--gold"]).arg(&gold).arg("--pred").arg(pred).args(extra).assert();
    let one = write(dir.path(), "one.jsonl", "{\"id\": \"a\", \"label\": \"True\"}\n");
    eval(&one, &[]).code(1).stderr(contains("2 of 3 gold claims have no prediction (e.g. \"b\")"));
    eval(&one, &["--allow-missing"]).success().stdout(contains("coverage     1 of 3 gold claims predicted (2 missing, 0 extra)"));
    let twice = write(dir.path(), "twice.jsonl", "{\"id\": \"a\", \"label\": \"True\"}\n{\"id\": \"a\", \"label\": \"False\"}\n");
    eval(&twice, &["--allow-missing"]).code(1).stderr(contains("claim \"a\" is predicted twice"));
    let empty = write(dir.path(), "empty.jsonl", "");
    eval(&empty, &["--allow-missing"]).code(1).stderr(contains("no prediction for any gold claim"));
    let all = write(dir.path(), "all.jsonl", "{\"id\": \"a\", \"label\": \"True\"}\n{\"id\": \"b\", \"label\": \"True\"}\n{\"id\": \"c\", \"label\": \"False\"}\n{\"id\": \"z\", \"label\": \"False\"}\n");
    eval(&all, &[]).code(1).stderr(contains("1 predictions are for claims with no gold label (e.g. \"z\")"));
    for folds in ["18446744073709551615", "4294967296", "1"] {
        eval(&all, &["--allow-missing", "--pred-b", all.to_str().unwrap(), "--folds", folds]).code(2);
    }
    eval(&all, &["--allow-missing", "--pred-b", all.to_str().unwrap(), "--folds", "7"]).code(1).stderr(contains("--folds 7: there are only 3 claims"));
}

/// Issue 12: NaN weights, NaN MMR parameters and NaN run scores flowed into results.
#[test]
fn issue_12_nan_is_refused_where_numbers_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let run = write(dir.path(), "a.trec", "q1 Q0 d1 1 2.5 x\nq1 Q0 d2 2 NaN x\n");
    let good = write(dir.path(), "b.trec", "q1 Q0 d1 1 2.5 x\n");
    quantir().args(["fuse", "--method", "wsum", "--weights", "NaN,1"]).arg(&good).arg(&good).arg("--output").arg(dir.path().join("f")).assert().code(1).stderr(contains("caused by: weights=NaN: expected finite numbers").and(contains("that setting is --weights")));
    quantir().args(["fuse", "--method", "rrf"]).arg(&run).arg(&good).arg("--output").arg(dir.path().join("f")).assert().code(1).stderr(contains("a.trec:2: field \"score\": expected a finite number, found \"NaN\""));
    let qrels = write(dir.path(), "q.qrels", "q1 0 d1 1\n");
    quantir().args(["eval", "--qrels"]).arg(&qrels).arg("--run").arg(&run).assert().code(1).stderr(contains("expected a finite number"));
    quantir().args(["plan", "--plan", "numeric", "--mmr", "--mmr-beta", "NaN", "--claims"]).arg(fixture("jsonl/claims.jsonl")).arg("--output").arg(dir.path().join("p.jsonl")).assert().code(2).stderr(contains("expected a number from 0 to 1"));
    // A negative or infinite value is read as the flag's value and refused by name (clap took "-1"
    // and "-inf" for unknown flags).
    quantir().args(["plan", "--plan", "numeric", "--mmr", "--mmr-beta", "-inf", "--claims"]).arg(fixture("jsonl/claims.jsonl")).arg("--output").arg(dir.path().join("p.jsonl")).assert().code(2).stderr(contains("'--mmr-beta <MMR_BETA>'"));
    quantir().args(["fuse", "--method", "rrf", "--rrf-k", "-1"]).arg(&good).arg(&good).arg("--output").arg(dir.path().join("f")).assert().code(1).stderr(contains("rrf_k: expected at least 0, found -1").and(contains("that setting is --rrf-k")));
    quantir().args(["compare", "--alpha", "-1", "--qrels"]).arg(&qrels).arg(&good).arg(&good).assert().code(2).stderr(contains("'--alpha <ALPHA>'"));
}

/// Issue 12: an ONNX verifier config with an empty `labels` list panicked at `chunks(0)`.
#[test]
fn issue_12_an_onnx_verifier_without_labels_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "quantir-verifier.json", r#"{"model": "model.onnx", "tokenizer": "tokenizer.json", "labels": [], "map": {}}"#);
    let claims = write(dir.path(), "c.jsonl", "{\"id\": \"a\", \"claim\": \"x\", \"evidence\": [\"y\"]}\n");
    quantir().arg("verify").arg("--verifier").arg(format!("onnx:{}", dir.path().display())).arg("--claims").arg(&claims).arg("--output").arg(dir.path().join("p.jsonl")).assert().code(1).stderr(contains("labels: expected the model's labels in logit order, found an empty list"));
}

/// Issue 12: `retrieve::dense::search` ran an unsafe matrix product over query vectors whose
/// length it never checked.
#[test]
fn issue_12_a_query_vector_of_another_dimension_is_an_error() {
    use quantir::retrieve::{dense, Ann, Cutoff, DenseQuery};
    let s = crate::dense::dense_sample();
    let short = vec![0.1f32; 17];
    let query = DenseQuery { vector: &short, cutoff: Cutoff::none(), exclude: None };
    for ann in [Ann::Exact, Ann::Hnsw] {
        let err = dense::search(&s.index, std::slice::from_ref(&query), 10, ann, 64).unwrap_err().to_string();
        assert!(err.contains("a query vector has 17 values, the index's vectors 384"), "{err}");
    }
}

/// Issue 12: ids with spaces, tabs, newlines or NUL were accepted and written into TREC runs that
/// quantir's own `eval` then rejected.
#[test]
fn issue_12_ids_trec_files_cannot_carry_are_refused_at_load() {
    let dir = tempfile::tempdir().unwrap();
    for (name, id) in [("space", "doc with space"), ("tab", "doc\twith"), ("nul", "doc\u{0}x"), ("newline", "doc\nx")] {
        let corpus = write(dir.path(), &format!("{name}.jsonl"), format!("{{\"id\": \"ok\", \"text\": \"a\"}}\n{}\n", serde_json::json!({"id": id, "text": "inflation"})));
        quantir().args(["index", "--corpus"]).arg(&corpus).arg("--index").arg(dir.path().join(name)).assert().code(1).stderr(contains(format!("{name}.jsonl:2: field \"id\": expected an id without spaces")));
    }
    let claims = write(dir.path(), "claims.jsonl", "{\"id\": \"query one\", \"text\": \"inflation\"}\n");
    quantir().args(["plan", "--plan", "numeric", "--claims"]).arg(&claims).arg("--output").arg(dir.path().join("p.jsonl")).assert().code(1).stderr(contains("claims.jsonl:1: field \"id\""));
}

/// Issue 12 (trec_eval compatibility): `#` comment lines in qrels and runs, extra trailing run
/// columns and a UTF-8 byte order mark are read as trec_eval reads them (the BOM used to drop the
/// first query).
#[test]
fn issue_12_trec_eval_inputs_comments_extra_columns_and_bom() {
    let dir = tempfile::tempdir().unwrap();
    let qrels = write(dir.path(), "q.qrels", "\u{feff}# judged by hand\nq1 0 d1 1\nq2 0 d3 1\n");
    let run = write(dir.path(), "r.trec", "\u{feff}q1 Q0 d1 1 2.5 x extra\n# a comment\nq1 Q0 d2 2 1.5 x\nq2 Q0 d4 1 1.0 x\n");
    let out = quantir().args(["eval", "--per-query", "-m", "P.1", "--qrels"]).arg(&qrels).arg("--run").arg(&run).assert().success().get_output().stdout.clone();
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains("P.1                   \tq1\t1.0000"), "{out}");
    assert!(out.contains("P.1                   \tq2\t0.0000"), "{out}");
    assert!(out.contains("num_q                 \tall\t2"), "the first query is read despite the BOM: {out}");
    let claims = write(dir.path(), "c.jsonl", "\u{feff}{\"id\": \"a\", \"text\": \"inflation is 3%\"}\n");
    quantir().args(["plan", "--plan", "numeric", "--claims"]).arg(&claims).arg("--output").arg(dir.path().join("p.jsonl")).assert().success().stderr(contains("planned 1 claims"));
}

/// Issue 12: indexing failed on machines with more than 35 cores (a fixed 512 MiB writer budget
/// split over every core fell under tantivy's 15 MB a thread); `--threads 64` stands for them.
#[test]
fn issue_12_indexing_with_many_threads() {
    let dir = tempfile::tempdir().unwrap();
    quantir().args(["index", "--threads", "64", "--corpus"]).arg(fixture("jsonl/corpus.jsonl")).arg("--index").arg(dir.path().join("idx")).assert().success();
}

/// Issue 12: the numeric planner was quadratic in the claim's length (a 2.4 MB claim ran 6.8
/// minutes; 40,000 numbers in 229 KB ran 3 min 48 s): each quantity scanned back over every
/// number before it and every sub-query took every year of the claim. Now a 2.4 MB claim plans
/// at once, and a sub-query takes at most `MAX_TIMES` time expressions.
#[test]
fn issue_12_the_numeric_planner_is_linear_in_the_claim() {
    use quantir::plan::{numeric_subqueries, MAX_SUBQUERIES, MAX_TIMES};
    let numbers: Vec<String> = (0..40_000).map(|i| i.to_string()).collect();
    let sentence = "The rate rose 3% in 2019 and 4% in 2020, May 2021 and the 1990s; ";
    let claim = format!("{} {}", numbers.join(" "), sentence.repeat(2_400_000 / sentence.len()));
    assert!(claim.len() > 2_400_000);
    let queries = numeric_subqueries(&claim);
    assert_eq!(queries.len(), MAX_SUBQUERIES);
    let years = |q: &str| q.split(' ').filter(|w| w.len() == 4 && w.parse::<u32>().is_ok_and(|y| (1800..2100).contains(&y))).count();
    assert!(queries.iter().all(|q| years(q) <= MAX_TIMES), "{queries:?}");
    let dir = tempfile::tempdir().unwrap();
    let claims = write(dir.path(), "big.jsonl", format!("{}\n", serde_json::json!({"id": "big", "text": claim})));
    quantir().args(["plan", "--plan", "numeric", "--claims"]).arg(&claims).arg("--output").arg(dir.path().join("p.jsonl")).assert().success();
}

/// Issue 12: `index --hnsw --f16` tripped anndists' `assert!(dot <= 1.000002)` on duplicate
/// passages: f16 vectors widened to f32 are unit length only to ~1e-4, so two copies of one
/// passage have an inner product above 1.
#[test]
fn issue_12_hnsw_over_f16_vectors_of_duplicate_passages() {
    let (model, lib) = crate::dense::model();
    let dir = tempfile::tempdir().unwrap();
    let corpus: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&std::fs::read_to_string(repo().join("data/quantemp-sample/corpus.json")).unwrap()).unwrap();
    let mut lines = String::new();
    for (id, doc) in corpus.iter().take(120) {
        for copy in 0..4 {
            lines.push_str(&format!("{}\n", serde_json::json!({"id": format!("{id}-{copy}"), "text": doc["snippet"]})));
        }
    }
    let path = write(dir.path(), "dups.jsonl", lines);
    let index = dir.path().join("idx");
    quantir().args(["index", "--hnsw", "--f16", "--corpus"]).arg(&path).arg("--index").arg(&index).arg("--dense").arg(&model).arg("--ort-lib").arg(&lib).assert().success().stderr(contains("encoded 480 passages"));
    let claims = write(dir.path(), "c.jsonl", "{\"id\": \"q\", \"text\": \"pm modi sleeps for only two hours and works for 22 hours every day\"}\n");
    let top = |ann: &str| -> Vec<String> {
        let run = dir.path().join(format!("{ann}.trec"));
        quantir().args(["run", "--retriever", "dense", "--ann", ann, "-k", "4", "--index"]).arg(&index).arg("--ort-lib").arg(&lib).arg("--claims").arg(&claims).arg("--output").arg(&run).assert().success();
        std::fs::read_to_string(&run).unwrap().lines().map(|l| l.split(' ').nth(2).unwrap().to_string()).collect()
    };
    let exact = top("exact");
    assert_eq!(exact.len(), 4);
    assert!(exact.iter().all(|d| d.starts_with("qt-0001-")), "the four copies of the passage come first: {exact:?}");
    // HNSW is approximate, and its graph depends on the order the insertion threads happen to
    // take: between identical vectors its neighbour selection may keep no link to one copy
    // (seen once in 2026-12-03's CI, under load: three copies and another passage). It finds
    // the passage first all the same.
    let hnsw = top("hnsw");
    assert_eq!(hnsw.len(), 4);
    assert!(hnsw[0].starts_with("qt-0001-"), "a copy of the passage comes first: {hnsw:?}");
}

/// Issue 12: count flags took any number: `run --threads 2^64-1` and `index --encoder-workers
/// 2^64-1` hung spawning threads, `--hnsw-ef-construction 2^64-1` panicked, `train-verifier
/// --epochs 2^64-1` and `compare --permutations 2^64-1` ran for ever, and `--folds 1`, `--top 0`,
/// `--epochs 0`, `--hnsw-m 0` and `--max-length 0` were accepted. Each flag now has a documented
/// range, checked when the flags are read (exit 2, the flag named).
#[test]
fn issue_12_count_flags_have_documented_ranges_checked_at_parse_time() {
    let dir = tempfile::tempdir().unwrap();
    const HUGE: &str = "18446744073709551615";
    let corpus = fixture("jsonl/corpus.jsonl");
    let claims = fixture("jsonl/claims.jsonl");
    let index = dir.path().join("idx");
    quantir().args(["index", "--corpus"]).arg(&corpus).arg("--index").arg(&index).assert().success();
    let i = index.to_str().unwrap();
    let (c, o) = (claims.to_str().unwrap(), dir.path().join("out").to_str().unwrap().to_string());
    let cases: Vec<(Vec<&str>, &str, &[&str])> = vec![
        (vec!["run", "--index", i, "--claims", c, "--output", &o], "--threads", &[HUGE, "1025"]),
        (vec!["run", "--index", i, "--claims", c, "--output", &o], "--ef", &["0", HUGE]),
        (vec!["run", "--index", i, "--claims", c, "--output", &o], "--llm-retries", &["21", "4294967295"]),
        (vec!["run", "--index", i, "--claims", c, "--output", &o], "--llm-timeout", &["0", HUGE]),
        (vec!["run", "--index", i, "--claims", c, "--output", &o], "--llm-concurrency", &["0", HUGE]),
        (vec!["index", "--corpus", c, "--index", &o, "--dense", "x", "--hnsw"], "--hnsw-m", &["0", "1", "257"]),
        (vec!["index", "--corpus", c, "--index", &o, "--dense", "x", "--hnsw"], "--hnsw-ef-construction", &["0", HUGE]),
        (vec!["index", "--corpus", c, "--index", &o, "--dense", "x"], "--encoder-workers", &["0", HUGE]),
        (vec!["index", "--corpus", c, "--index", &o, "--dense", "x"], "--batch-size", &["0", HUGE]),
        (vec!["index", "--corpus", c, "--index", &o, "--dense", "x"], "--max-length", &["0", "1", HUGE]),
        (vec!["train-verifier", "--claims", c, "--output", &o], "--folds", &["1", "1001", HUGE]),
        (vec!["train-verifier", "--claims", c, "--output", &o], "--top", &["0", HUGE]),
        (vec!["train-verifier", "--claims", c, "--output", &o], "--epochs", &["0", HUGE]),
        (vec!["verify", "--verifier", "trained:x", "--claims", c, "--output", &o], "--top", &["0", "101"]),
        (vec!["compare", "--qrels", c, c, c], "--permutations", &["0", HUGE]),
    ];
    for (args, flag, values) in cases {
        for value in values {
            quantir().args(&args).args([flag, value]).timeout(std::time::Duration::from_secs(60)).assert().code(2).stderr(contains(format!("for '{flag} <")));
        }
    }
    // The ends of each range are accepted.
    quantir().args(["run", "--threads", "1024", "--ef", "100000", "--llm-retries", "20", "--index", i, "--claims", c, "--output", &o]).assert().success();
}

/// Issue 12 (stored XSS): a corpus `url` of `javascript:…` became a clickable link on the page.
/// Now only http(s) URLs are links (headless Chromium, the page's own DOM).
#[test]
fn issue_12_a_javascript_url_in_the_corpus_is_no_link_on_the_page() {
    let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].into_iter().find(|p| std::path::Path::new(p).exists()).expect("Debian's chromium (scripts/test.sh installs it)");
    let dir = tempfile::tempdir().unwrap();
    let corpus = write(
        dir.path(),
        "c.jsonl",
        "{\"id\": \"evil\", \"text\": \"inflation fell to 3 percent\", \"url\": \"javascript:alert(document.domain)\"}\n{\"id\": \"good\", \"text\": \"inflation was 3 percent in May\", \"url\": \"https://example.org/inflation\"}\n",
    );
    let index = dir.path().join("idx");
    quantir().args(["index", "--corpus"]).arg(&corpus).arg("--index").arg(&index).assert().success();
    let server = Server::start(&index);
    let flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--virtual-time-budget=10000"];
    let dom = std::process::Command::new(chromium).args(flags).arg(format!("--user-data-dir={}", dir.path().join("profile").display())).arg("--dump-dom").arg(format!("{}/?claim=inflation%203%20percent", server.url)).output().unwrap();
    let dom = String::from_utf8_lossy(&dom.stdout);
    assert_eq!(dom.matches("<article class=\"card\"").count(), 2, "both hits are shown:\n{dom}");
    assert!(dom.contains("href=\"https://example.org/inflation\""), "an http(s) url is a link:\n{dom}");
    assert!(!dom.to_lowercase().contains("href=\"javascript:"), "a javascript: url is no link:\n{dom}");
}

// The server (issue 12): slow, silent, saturating or cross-origin clients.

/// Issue 12: Content-Type was never checked (a cross-origin form could POST), 405 had no JSON
/// body, and the page had no Content-Security-Policy.
#[test]
fn issue_12_posts_must_declare_json_wrong_methods_get_json_and_the_page_has_a_csp() {
    let (_dir, index) = sample_index();
    let server = Server::start(&index);
    let http = reqwest::blocking::Client::new();
    let body = r#"{"claim": "inflation 3%"}"#;
    for content_type in [None, Some("text/plain"), Some("application/x-www-form-urlencoded")] {
        let mut request = http.post(format!("{}/api/search", server.url)).body(body);
        if let Some(t) = content_type {
            request = request.header("content-type", t);
        }
        let response = request.send().unwrap();
        assert_eq!(response.status().as_u16(), 415, "{content_type:?}");
        let json: serde_json::Value = response.json().unwrap();
        assert!(json["error"]["message"].as_str().unwrap().contains("takes Content-Type application/json"), "{json}");
    }
    let ok = http.post(format!("{}/api/search", server.url)).header("content-type", "application/json; charset=utf-8").body(body).send().unwrap();
    assert_eq!(ok.status().as_u16(), 200);
    let response = http.get(format!("{}/api/search", server.url)).send().unwrap();
    assert_eq!(response.status().as_u16(), 405);
    let json: serde_json::Value = response.json().unwrap();
    assert!(json["error"]["message"].as_str().unwrap().contains("GET is not served at /api/search"), "{json}");
    let page = http.get(&server.url).send().unwrap();
    let policy = page.headers()["content-security-policy"].to_str().unwrap().to_string();
    assert!(policy.starts_with("default-src 'none'; script-src 'sha256-") && policy.contains("frame-ancestors 'none'"), "{policy}");
    assert!(page.text().unwrap().contains(r"/^https?:\/\//i.test(h.url)"), "links are http(s) only");
}

/// Issue 12: `serve --threads` did not bound search concurrency and there was no per-request
/// deadline: a full server now says 503 with Retry-After, and a stalled body gets 408.
#[test]
fn issue_12_a_full_server_says_503_with_retry_after_and_recovers() {
    let (_dir, index) = sample_index();
    let server = Server::start_with(&index, &["--max-in-flight", "1", "--request-timeout", "1"]);
    // Holds the one slot: headers and a promised body that never comes.
    let slow = stalled(&server, "POST /api/search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"cl");
    std::thread::sleep(Duration::from_millis(300));
    let http = reqwest::blocking::Client::new();
    let search = || http.post(format!("{}/api/search", server.url)).header("content-type", "application/json").body(r#"{"claim": "inflation 3%"}"#).send().unwrap();
    let refused = search();
    assert_eq!(refused.status().as_u16(), 503);
    assert_eq!(refused.headers()["retry-after"], "1");
    // The deadline answers the slow request (408) and frees its slot.
    let waited = seconds_until_closed(slow, 5.0);
    assert!(waited < 3.0, "the stalled body was cut after {waited:.1} s");
    assert_eq!(search().status().as_u16(), 200);
}

/// Issue 12: no header or idle timeout: a silent connection and a slowloris stayed open.
#[test]
fn issue_12_silent_and_slowloris_clients_are_disconnected() {
    let (_dir, index) = sample_index();
    let server = Server::start_with(&index, &["--header-timeout", "1"]);
    let silent = stalled(&server, "");
    let slowloris = stalled(&server, "GET / HTTP/1.1\r\nHost: x\r\nX-a: ");
    let (a, b) = (seconds_until_closed(silent, 6.0), seconds_until_closed(slowloris, 6.0));
    assert!(a < 3.0 && b < 3.0, "closed after {a:.1} s and {b:.1} s");
}

/// Issue 12: graceful shutdown waited for every open connection: one slowloris meant SIGTERM
/// never completed.
#[test]
fn issue_12_sigterm_with_stalled_connections_exits_within_the_grace() {
    let (_dir, index) = sample_index();
    let mut server = Server::start_with(&index, &["--grace", "1"]);
    let _held: Vec<std::net::TcpStream> = (0..20).map(|i| stalled(&server, if i % 2 == 0 { "GET / HTTP/1.1\r\nHost: x\r\n" } else { "" })).collect();
    let mid_body = stalled(&server, "POST /api/search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{");
    std::thread::sleep(Duration::from_millis(300));
    let started = Instant::now();
    let status = server.terminate();
    let took = started.elapsed().as_secs_f64();
    assert!(status.success(), "{status:?}");
    assert!(took < 4.0, "SIGTERM took {took:.1} s");
    drop(mid_body);
}

/// Issue 12: one non-UTF-8 byte rejected a whole batch instead of one error line.
#[test]
fn issue_12_a_batch_line_that_is_not_utf8_gets_its_own_error_line() {
    let (_dir, index) = sample_index();
    let server = Server::start(&index);
    let mut body = format!("{}\n", serde_json::json!({"id": "a", "claim": FLORIDA, "k": 2})).into_bytes();
    body.extend_from_slice(b"{\"claim\": \"caf\xe9\"}\n");
    body.extend_from_slice(format!("{}\n", serde_json::json!({"id": "c", "claim": "inflation 3%", "k": 2})).as_bytes());
    let response = reqwest::blocking::Client::new().post(format!("{}/api/batch", server.url)).header("content-type", "application/x-ndjson").body(body).send().unwrap();
    let lines: Vec<serde_json::Value> = response.text().unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["id"], "a");
    assert!(lines[1]["error"]["message"].as_str().unwrap().contains("line 2 is not UTF-8"), "{}", lines[1]);
    assert_eq!(lines[2]["id"], "c");
}

/// Issue 12: 520 clients that posted a batch and never read the reply pinned the blocking pool
/// (`/api/search` timed out, RSS 2.3 GB).
#[test]
fn issue_12_batch_clients_that_never_read_are_dropped_and_free_their_slots() {
    use std::io::Write;
    let (_dir, index) = sample_index();
    let server = Server::start_with(&index, &["--max-in-flight", "2", "--write-timeout", "1"]);
    let line = serde_json::json!({"claim": FLORIDA, "k": 100}).to_string();
    let body = std::iter::repeat_n(line.as_str(), 2000).collect::<Vec<_>>().join("\n");
    let readers: Vec<std::net::TcpStream> = (0..2)
        .map(|_| {
            let mut s = std::net::TcpStream::connect(host_port(&server)).unwrap();
            write!(s, "POST /api/batch HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-ndjson\r\nContent-Length: {}\r\n\r\n{body}", body.len()).unwrap();
            s
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    let http = reqwest::blocking::Client::new();
    let search = || http.post(format!("{}/api/search", server.url)).header("content-type", "application/json").body(r#"{"claim": "inflation 3%"}"#).send().unwrap().status().as_u16();
    assert_eq!(search(), 503, "both slots are held by the batches");
    // Their answers fill the socket buffers; after the write timeout the batches are given up.
    let deadline = Instant::now() + Duration::from_secs(30);
    while search() != 200 {
        assert!(Instant::now() < deadline, "the stalled batches never freed their slots");
        std::thread::sleep(Duration::from_millis(200));
    }
    drop(readers);
}

/// Issue 16 (found while benchmarking the run writer): an output was written to a temporary file
/// renamed over its path, so a link to standard output or a named pipe became a regular file
/// (as root, `run --output /dev/stdout` replaced the system's own /dev/stdout link) and a
/// symbolic link to a run file stopped being a link. Links here live in a temporary folder, so
/// a regression fails without touching /dev.
#[test]
fn issue_16_outputs_stream_into_devices_and_pipes_and_keep_links() {
    use std::os::unix::fs::{symlink, FileTypeExt};
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    quantir().args(["index", "--corpus"]).arg(fixture("jsonl/corpus.jsonl")).arg("--index").arg(&index).assert().success();
    let run = |output: &std::path::Path| {
        let assert = quantir().args(["run", "--index"]).arg(&index).arg("--claims").arg(fixture("jsonl/claims.jsonl")).arg("--output").arg(output).arg("--explain").arg(dir.path().join("explain.jsonl")).assert().success();
        String::from_utf8_lossy(&assert.get_output().stdout).into_owned()
    };
    let is_link = |path: &std::path::Path| std::fs::symlink_metadata(path).unwrap().file_type().is_symlink();
    // What /dev/stdout is: a link to the process's standard output, here a pipe.
    let stdout = dir.path().join("stdout");
    symlink("/proc/self/fd/1", &stdout).unwrap();
    assert!(run(&stdout).contains(" Q0 "), "the run comes out on standard output");
    assert!(is_link(&stdout));
    // A link to a run file: the file is replaced, the link stays.
    let real = write(dir.path(), "real.trec", "old");
    let link = dir.path().join("link.trec");
    symlink(&real, &link).unwrap();
    run(&link);
    assert!(is_link(&link));
    assert!(std::fs::read_to_string(&real).unwrap().contains(" Q0 "));
    // A named pipe, read while quantir writes (a timeout, not a hang, if it is never opened).
    let fifo = dir.path().join("fifo");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let (sender, received) = std::sync::mpsc::channel();
    let reader = fifo.clone();
    std::thread::spawn(move || sender.send(std::fs::read_to_string(reader).unwrap()).unwrap());
    run(&fifo);
    assert!(received.recv_timeout(Duration::from_secs(60)).unwrap().contains(" Q0 "));
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    // No temporary file left beside any of them.
    assert!(std::fs::read_dir(dir.path()).unwrap().all(|e| !e.unwrap().file_name().to_string_lossy().contains("tmp-quantir")));
}

/// Issue 37 (class 7, from the same probe): an HTTP/1.1 request without `Host` was served; a
/// client that half-closed after sending got no answer; a malformed chunked body got 413; error
/// lines of `/api/batch` lacked the request's id; "Address already in use" named no address.
#[test]
fn issue_37_http_edges_are_answered_as_http_says() {
    use std::io::{Read, Write};
    let (_dir, index) = sample_index();
    let server = Server::start(&index);
    let exchange = |raw: &str, half_close: bool| -> String {
        let mut stream = std::net::TcpStream::connect(host_port(&server)).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        stream.write_all(raw.as_bytes()).unwrap();
        if half_close {
            stream.shutdown(std::net::Shutdown::Write).unwrap();
        }
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        answer
    };
    let status = |answer: &str| answer.split_whitespace().nth(1).unwrap_or("none").to_string();
    let no_host = exchange("GET /api/health HTTP/1.1\r\nConnection: close\r\n\r\n", false);
    assert_eq!(status(&no_host), "400", "{no_host}");
    assert!(no_host.contains("must name its Host"), "{no_host}");
    assert_eq!(status(&exchange("GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", false)), "200");
    assert_eq!(status(&exchange("GET /api/health HTTP/1.0\r\n\r\n", false)), "200", "HTTP/1.0 has no Host to require");
    let body = r#"{"claim": "inflation 3%"}"#;
    let post = format!("POST /api/search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}", body.len());
    let half_closed = exchange(&post, true);
    assert_eq!(status(&half_closed), "200", "{half_closed}");
    let chunked = exchange("POST /api/search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n{\"claim\": \"x\"}\r\n0\r\n\r\n", false);
    assert_eq!(status(&chunked), "400", "{chunked}");
    let lines = "{\"id\": \"first\", \"claim\": \"\"}\n{\"id\": \"second\", \"claim\": \"inflation\", \"k\": 0}\n{\"claim\": \"inflation\", \"k\": 0}\n";
    let batch = reqwest::blocking::Client::new().post(format!("{}/api/batch", server.url)).header("content-type", "application/x-ndjson").body(lines).send().unwrap().text().unwrap();
    let answers: Vec<serde_json::Value> = batch.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(answers.iter().map(|a| (a["id"].as_str(), a["error"].is_object())).collect::<Vec<_>>(), [(Some("first"), true), (Some("second"), true), (None, true)]);
    let taken = host_port(&server);
    let busy = quantir().args(["serve", "--addr", &taken, "--index"]).arg(&index).timeout(Duration::from_secs(60)).assert().code(1);
    let stderr = String::from_utf8_lossy(&busy.get_output().stderr).into_owned();
    assert!(stderr.contains(&format!("cannot listen on {taken}")) && stderr.contains("hint: choose another --addr"), "{stderr}");
}

/// Issue 37 (class 7): `index --corpus /dev/zero` buffered a line that never ends, growing about
/// 230 MB/s until the kernel killed it. A record longer than `--max-record-mib` is now an error
/// naming where it starts, read no further than that.
#[test]
fn issue_37_an_endless_record_is_refused_at_the_maximum() {
    let dir = tempfile::tempdir().unwrap();
    for (format, said) in [("jsonl", "/dev/zero:1:1: a record of more than 8388608 bytes starts here"), ("auto", "/dev/zero: cannot tell the format")] {
        quantir()
            .args(["index", "--corpus", "/dev/zero", "--max-record-mib", "8", "--format", format, "--index"])
            .arg(dir.path().join("idx"))
            .timeout(Duration::from_secs(60))
            .assert()
            .code(1)
            .stderr(contains(said));
    }
    quantir().args(["index", "--corpus", "/dev/zero", "--format", "quantemp", "--index"]).arg(dir.path().join("idx")).timeout(Duration::from_secs(60)).assert().code(1).stderr(contains("expected a JSON object of records keyed by id"));
    // A record just under the limit still indexes: the limit is the only change.
    let long = format!("{{\"id\": \"a\", \"text\": \"{}\"}}\n", "inflation ".repeat(300_000));
    let corpus = write(dir.path(), "long.jsonl", &long);
    quantir().args(["index", "--max-record-mib", "4", "--corpus"]).arg(&corpus).arg("--index").arg(dir.path().join("idx")).assert().success();
    quantir().args(["index", "--max-record-mib", "1", "--corpus"]).arg(&corpus).arg("--index").arg(dir.path().join("idx2")).assert().code(1).stderr(contains("long.jsonl:1:1: a record of more than 1048576 bytes")).stderr(contains("raise --max-record-mib"));
    assert!(!dir.path().join("idx2").exists(), "nothing is left behind");
}
