//! Planners end to end: published decomposition files, the numeric planner, `--explain`, and the
//! LLM planner against a real HTTP server on loopback.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use predicates::str::contains;

use crate::util::{fixture, quantir, repo, write};

fn lines(path: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn quantemp_json_decompositions_by_field() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("plans.jsonl");
    for (field, first) in [("claimdecomp", "Did the CBO conclude that ObamaCare will cost more than 800,000 jobs?"), ("pgmfc", "How many jobs will ObamaCare cost according to the CBO?"), ("fcdecomp", "How many jobs did the CBO say the health law would cost?")] {
        quantir().args(["plan", "--claims"]).arg(fixture("quantemp/test.json")).arg("--plan").arg(format!("file:{}:{field}", fixture("quantemp/test.json").display())).arg("--output").arg(&out).assert().success().stderr(contains("1 fell back to the claim"));
        let plans = lines(&out);
        assert_eq!(plans[0]["queries"][0], first, "{field}");
        assert_eq!(plans[2]["origins"][0], "claim", "claim 2 has no decomposition: it falls back");
    }
    quantir().args(["plan", "--claims"]).arg(fixture("quantemp/test.json")).arg("--plan").arg(format!("file:{}", fixture("quantemp/test.json").display())).arg("--output").arg(&out).assert().failure().stderr(contains("name the decomposition"));
}

#[test]
fn bundled_claimdecomp_questions_read_back() {
    let plans = quantir::plan::read_plan_file(&repo().join("queries/quantemp-test.claimdecomp.jsonl"), None).unwrap();
    assert_eq!(plans.len(), 2495);
    assert_eq!(plans["0"].len(), 3);
    assert!(plans["0"][0].contains("800,000 jobs"));
}

#[test]
fn numeric_plan_run_with_explain() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    quantir().args(["index", "--corpus"]).arg(repo().join("data/quantemp-sample/corpus.json")).arg("--index").arg(&index).assert().success();
    let run = dir.path().join("run.trec");
    let explain = dir.path().join("explain.jsonl");
    quantir()
        .args(["run", "--plan", "numeric", "--fusion", "combmax-norm", "--depth", "20", "-k", "10", "--index"])
        .arg(&index)
        .arg("--claims")
        .arg(repo().join("data/quantemp-sample/claims.jsonl"))
        .arg("--output")
        .arg(&run)
        .arg("--explain")
        .arg(&explain)
        .assert()
        .success()
        .stderr(contains("ran 12 claims (12 with a date cutoff"));
    let explained = lines(&explain);
    assert_eq!(explained.len(), 12);
    let florida = explained.iter().find(|e| e["id"] == "val-23").unwrap();
    let subqueries = florida["subqueries"].as_array().unwrap();
    assert!(subqueries.len() >= 2, "the claim and its quantity: {subqueries:?}");
    assert_eq!(subqueries[0]["origin"], "claim");
    for hit in florida["hits"].as_array().unwrap() {
        let from = hit["from_subqueries"].as_array().unwrap();
        assert!(!from.is_empty() && from.iter().all(|i| (i.as_u64().unwrap() as usize) < subqueries.len()));
    }
    // The fused run equals the explanation, and every hit predates the claim's cutoff.
    let trec = std::fs::read_to_string(&run).unwrap();
    let first: Vec<&str> = trec.lines().find(|l| l.starts_with("val-23 ")).unwrap().split(' ').collect();
    assert_eq!(first[2], florida["hits"][0]["id"]);
    let corpus: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(repo().join("data/quantemp-sample/corpus.json")).unwrap()).unwrap();
    for line in trec.lines().filter(|l| l.starts_with("val-23 ")) {
        let doc = line.split(' ').nth(2).unwrap();
        assert!(corpus[doc]["date"].as_str().unwrap() < "2023-04-24", "{doc} is not before the claim");
    }
}

/// An OpenAI-compatible server on loopback ([`fake_llm`], [`fake_model`]).
pub struct FakeLlm {
    pub url: String,
    pub requests: Arc<Mutex<Vec<String>>>,
}

/// A scripted server: answers requests in order from `script` (status, body).
pub fn fake_llm(script: Vec<(u16, String)>) -> FakeLlm {
    let count = script.len();
    let mut script = script.into_iter();
    fake_model(count, move |_| script.next().expect("one answer per request"))
}

/// An OpenAI-compatible server on loopback that answers each of at most `max_requests` requests
/// with `respond(body)` (status, body) — a model played by the test — records every request body,
/// closes each connection after one answer, and stops listening after the last.
pub fn fake_model(max_requests: usize, mut respond: impl FnMut(&str) -> (u16, String) + Send + 'static) -> FakeLlm {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let requests = Arc::new(Mutex::new(Vec::new()));
    let seen = requests.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(max_requests) {
            let mut stream = stream.unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut length = 0;
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap();
                }
                if line == "\r\n" || line.is_empty() {
                    break;
                }
            }
            let mut request = vec![0; length];
            reader.read_exact(&mut request).unwrap();
            let request = String::from_utf8(request).unwrap();
            let (status, body) = respond(&request);
            seen.lock().unwrap().push(request);
            let reply = format!("HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len());
            stream.write_all(reply.as_bytes()).unwrap();
        }
    });
    FakeLlm { url, requests }
}

/// A chat completion whose message is `content`.
pub fn completion(content: &str) -> String {
    serde_json::json!({"choices": [{"message": {"role": "assistant", "content": content}}]}).to_string()
}

fn plan_with_llm(llm: &FakeLlm, claims: &std::path::Path, cache: &std::path::Path, out: &std::path::Path) -> assert_cmd::assert::Assert {
    quantir()
        .args(["plan", "--plan", "llm:fcdecomp", "--llm-model", "test-model", "--llm-retries", "2", "--llm-concurrency", "1", "--llm-url", &llm.url, "--claims"])
        .arg(claims)
        .arg("--llm-cache")
        .arg(cache)
        .arg("--output")
        .arg(out)
        .env_remove("OPENAI_API_KEY")
        .assert()
}

#[test]
fn llm_planner_retries_caches_and_falls_back() {
    let dir = tempfile::tempdir().unwrap();
    let claims = write(dir.path(), "claims.jsonl", "{\"id\": \"a\", \"text\": \"Inflation is down close to 3%\"}\n{\"id\": \"b\", \"text\": \"41 homicides per 100,000 people\"}\n");
    let cache = dir.path().join("cache");
    let out = dir.path().join("plans.jsonl");
    // Claim a: a 500, then an answer. Claim b: an answer that is not the JSON asked for.
    let llm = fake_llm(vec![
        (500, "{\"error\": \"overloaded\"}".into()),
        (200, completion("```json\n{\"queries\": [\"US inflation rate 2023\", \"CPI July 2023 3 percent\", \"Has PolitiFact fact-checked this?\"]}\n```")),
        (200, completion("{\"queries\": [")),
    ]);
    plan_with_llm(&llm, &claims, &cache, &out).success().stderr(contains("1 fell back to the claim"));
    let plans = lines(&out);
    assert_eq!(plans[0]["queries"], serde_json::json!(["US inflation rate 2023", "CPI July 2023 3 percent"]), "fact-check query dropped");
    assert_eq!(plans[1]["queries"], serde_json::json!(["41 homicides per 100,000 people"]));
    let requests = llm.requests.lock().unwrap().clone();
    assert_eq!(requests.len(), 3, "one retry for the 500");
    let body: serde_json::Value = serde_json::from_str(&requests[0]).unwrap();
    assert_eq!(body["model"], "test-model");
    assert!(body["messages"][1]["content"].as_str().unwrap().contains("Claim: Inflation is down close to 3%"));
    // A rerun is answered from the cache: the server is gone, and nothing is asked.
    plan_with_llm(&llm, &claims, &cache, &out).success();
    assert_eq!(lines(&out), plans);
}

#[test]
fn llm_client_errors_are_not_retried_and_name_the_url() {
    let dir = tempfile::tempdir().unwrap();
    let claims = write(dir.path(), "claims.jsonl", "{\"id\": \"a\", \"text\": \"x rose 3%\"}\n");
    let llm = fake_llm(vec![(401, "{\"error\": \"bad key\"}".into())]);
    plan_with_llm(&llm, &claims, &dir.path().join("cache"), &dir.path().join("out.jsonl")).failure().stderr(contains("HTTP 401")).stderr(contains(&llm.url));
    assert_eq!(llm.requests.lock().unwrap().len(), 1);
    quantir().args(["plan", "--plan", "llm:fcdecomp", "--claims"]).arg(&claims).arg("--output").arg(dir.path().join("o.jsonl")).env_remove("QUANTIR_LLM_URL").env_remove("QUANTIR_LLM_MODEL").assert().failure().stderr(contains("an llm: plan needs --llm-url and --llm-model"));
}

/// Issue 37 (class 6): an endpoint that never answers cost 244 s for one claim with the defaults
/// (60 s × 4 attempts and the backoffs) and was reported as "error sending request"; a malformed
/// `--llm-url` was retried 4 times and reported as "builder error". The deadline now covers the
/// retries, the error says "timed out after N s", and a malformed URL is refused when the flags
/// are read.
#[test]
fn issue_37_a_silent_endpoint_times_out_once_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let claims = write(dir.path(), "claims.jsonl", "{\"id\": \"a\", \"text\": \"x rose 3%\"}\n");
    // Accepts connections, reads the request, never answers.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let accepted = Arc::new(Mutex::new(0));
    let counted = accepted.clone();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            *counted.lock().unwrap() += 1;
            held.push(stream);
        }
    });
    let started = std::time::Instant::now();
    quantir()
        .args(["plan", "--plan", "llm:fcdecomp", "--llm-model", "m", "--llm-timeout", "2", "--llm-retries", "3", "--llm-url", &url, "--claims"])
        .arg(&claims)
        .arg("--llm-cache")
        .arg(dir.path().join("cache"))
        .arg("--output")
        .arg(dir.path().join("out.jsonl"))
        .env_remove("OPENAI_API_KEY")
        .assert()
        .code(1)
        .stderr(contains("timed out after 2 s (1 attempt)"))
        .stderr(contains(&url))
        .stderr(contains("hint: check that the server is up"));
    let seconds = started.elapsed().as_secs_f64();
    assert!(seconds < 10.0, "one 2 s deadline for the request and its retries, not 4 of them: {seconds:.1} s");
    assert_eq!(*accepted.lock().unwrap(), 1, "a timed-out attempt leaves no time for another");
    for bad in ["ht!tp://x", "ftp://host/v1", "localhost:8000", "http://"] {
        quantir()
            .args(["plan", "--plan", "llm:fcdecomp", "--llm-model", "m", "--llm-url", bad, "--claims"])
            .arg(&claims)
            .arg("--output")
            .arg(dir.path().join("o.jsonl"))
            .assert()
            .code(2)
            .stderr(contains("--llm-url"))
            .stderr(contains("not a chat API URL"));
    }
}

/// The index of the dated QuanTemp sample and its claims.
fn dated_sample(dir: &std::path::Path) -> (std::path::PathBuf, Vec<quantir::corpus::Claim>) {
    let index = dir.join("idx");
    quantir().args(["index", "--corpus"]).arg(repo().join("data/quantemp-sample/corpus.json")).arg("--index").arg(&index).assert().success();
    let claims = quantir::corpus::load_claims(&repo().join("data/quantemp-sample/claims.jsonl"), quantir::corpus::Format::Auto, None).unwrap();
    (index, claims)
}

/// `quantir run -k 10 FLAGS` of `claims` over `index`; its `--explain` lines.
fn run_explained(dir: &std::path::Path, index: &std::path::Path, claims: &std::path::Path, flags: &[&str]) -> Vec<serde_json::Value> {
    let explain = dir.join("explain.jsonl");
    quantir().args(["run", "-k", "10", "--index"]).arg(index).arg("--claims").arg(claims).arg("--output").arg(dir.join("run.trec")).arg("--explain").arg(&explain).args(flags).assert().success();
    lines(&explain)
}

#[test]
fn the_iterative_planner_reads_only_evidence_before_the_claim() {
    use quantir::engine::{Backend, RunConfig};
    let dir = tempfile::tempdir().unwrap();
    let (index_path, claims) = dated_sample(dir.path());
    let explained = run_explained(dir.path(), &index_path, &repo().join("data/quantemp-sample/claims.jsonl"), &["--plan", "iterative"]);
    let index = quantir::index::Index::open(&index_path).unwrap();
    let analyzer = quantir::analysis::Analyzer::default();
    let config = RunConfig::default();
    let (mut rewritten, mut later_evidence_hidden) = (0, 0);
    for (claim, explanation) in claims.iter().zip(&explained) {
        assert_eq!(explanation["id"], claim.id.as_str());
        // Round 2 is the claim with the best sentence of the top passage *under the claim's cutoff*.
        let read = index.search(&claim.text, &config.cutoff_for(claim), 1, None).unwrap();
        let terms = analyzer.terms(&claim.text).into_iter().collect();
        let expected: Vec<String> = read.iter().filter_map(|p| quantir::plan::best_sentence(&analyzer, &terms, &p.text)).map(|s| format!("{} {s}", claim.text)).collect();
        let subqueries = explanation["subqueries"].as_array().unwrap();
        let later: Vec<&str> = subqueries.iter().filter(|q| q["round"] == 2).map(|q| q["text"].as_str().unwrap()).collect();
        assert_eq!(later, expected, "{}", claim.id);
        assert!(subqueries.iter().filter(|q| q["round"] == 2).all(|q| q["origin"] == "evidence"));
        rewritten += later.len();
        let unlimited = index.search(&claim.text, &quantir::retrieve::Cutoff::none(), 1, None).unwrap();
        later_evidence_hidden += usize::from(unlimited.first().map(|e| &e.id) != read.first().map(|e| &e.id));
    }
    assert!(rewritten >= 10, "most claims are rewritten from their evidence: {rewritten}");
    assert!(later_evidence_hidden > 0, "some claim's best passage is dated after it, so the cutoff is what this test checks");
    // Planning without an index is refused with the way out.
    quantir().args(["plan", "--plan", "iterative", "--claims"]).arg(repo().join("data/quantemp-sample/claims.jsonl")).arg("--output").arg(dir.path().join("p.jsonl")).assert().failure().stderr(contains("needs an index"));
}

#[test]
fn llm_iterative_asks_from_the_evidence_the_claim_may_see() {
    let dir = tempfile::tempdir().unwrap();
    let (index, claims) = dated_sample(dir.path());
    let claim = &claims[0];
    let one = write(dir.path(), "claim.jsonl", format!("{}\n", serde_json::json!({"id": claim.id, "text": claim.text, "date": claim.date.unwrap().to_string()})));
    let llm = fake_model(1, |_| (200, completion(r#"{"queries": ["Florida defense spending share of state GDP", "military economic impact Florida 2022"]}"#)));
    let cache = dir.path().join("cache");
    let explained = run_explained(dir.path(), &index, &one, &["--plan", "llm:iterative", "--llm-model", "m", "--llm-url", &llm.url, "--llm-cache", cache.to_str().unwrap()]);
    let subqueries = explained[0]["subqueries"].clone();
    assert_eq!(subqueries[0]["round"], serde_json::Value::Null, "round 1 is not written");
    assert_eq!(subqueries[1], serde_json::json!({"text": "Florida defense spending share of state GDP", "origin": "llm", "round": 2}));
    assert_eq!(subqueries[2]["text"], "military economic impact Florida 2022");
    // The model was shown the claim and the top 3 passages under its cutoff, and nothing later.
    let request: serde_json::Value = serde_json::from_str(&llm.requests.lock().unwrap()[0]).unwrap();
    let prompt = request["messages"][1]["content"].as_str().unwrap();
    assert!(prompt.contains(&format!("Claim: {}", claim.text)));
    let corpus: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(repo().join("data/quantemp-sample/corpus.json")).unwrap()).unwrap();
    let shown: Vec<&str> = prompt.split("Evidence found so far:\n").nth(1).unwrap().lines().collect();
    assert_eq!(shown.len(), 3);
    let date = claim.date.unwrap().to_string();
    for line in shown {
        let text = line.split_once(". ").unwrap().1;
        let doc = corpus.as_object().unwrap().values().find(|d| text.ends_with(&d["snippet"].as_str().unwrap().chars().take(300).collect::<String>())).unwrap_or_else(|| panic!("{line} is no document"));
        assert!(doc["date"].as_str().unwrap() < date.as_str(), "{line} is dated on or after the claim");
    }
}
