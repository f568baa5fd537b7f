//! The commands end to end: `index`, `search`, `run`, `eval`.

use predicates::str::contains;

use crate::util::{fixture, quantir};

fn indexed(corpus: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    quantir().args(["index", "--corpus"]).arg(fixture(corpus)).arg("--index").arg(&index).assert().success().stderr(contains("indexed"));
    (dir, index)
}

#[test]
fn search_json_has_every_field() {
    let (_dir, index) = indexed("quantemp/corpus.json");
    let out = quantir().args(["search", "--json", "-k", "2", "--index"]).arg(&index).arg("inflation down close to 3%").assert().success().get_output().stdout.clone();
    let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let hit = &json["hits"][0];
    assert_eq!(hit["id"], "1");
    assert_eq!(hit["date"], "2023-08-10");
    assert_eq!(hit["url"], "https://example.org/inflation-july");
    assert!(hit["score"].as_f64().unwrap() > 0.0);
    assert!(hit["title"].as_str().unwrap().starts_with("Inflation eases"));
    assert!(hit["text"].as_str().unwrap().contains("3.2%"));
}

#[test]
fn search_before_a_date_drops_later_evidence() {
    let (_dir, index) = indexed("quantemp/corpus.json");
    let ids = |args: &[&str]| -> Vec<String> {
        let out = quantir().args(["search", "--json", "--index"]).arg(&index).args(args).arg("minimum wage $7.25 homicides inflation").assert().success().get_output().stdout.clone();
        let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
        json["hits"].as_array().unwrap().iter().map(|h| h["id"].as_str().unwrap().to_string()).collect()
    };
    let mut all = ids(&[]);
    all.sort();
    assert_eq!(all, ["1", "2", "3"]);
    assert_eq!(ids(&["--before", "2019-07-21"]), ["2"], "March 2019 ended before; 21 Jul 2019 is not strictly before");
    assert_eq!(ids(&["--before", "2019-07-22"]).len(), 2);
    assert_eq!(ids(&["--before", "2019-03-31"]), Vec::<String>::new(), "March 2019 may be the 31st");
    quantir().args(["search", "--before", "soon", "--index"]).arg(&index).arg("x").assert().code(2).stderr(contains("expected a date like 2021-03-21"));
}

#[test]
fn run_writes_trec_with_each_claims_own_date() {
    let (dir, index) = indexed("quantemp/corpus.json");
    let run = dir.path().join("run.trec");
    quantir().args(["run", "-k", "10", "--index"]).arg(&index).arg("--claims").arg(fixture("quantemp/test.json")).arg("--output").arg(&run).assert().success().stderr(contains("ran 3 claims (2 with a date cutoff, 3 sub-queries, 0 fell back"));
    let text = std::fs::read_to_string(&run).unwrap();
    let lines: Vec<Vec<&str>> = text.lines().map(|l| l.split(' ').collect()).collect();
    assert!(lines.iter().all(|l| l.len() == 6 && l[1] == "Q0" && l[5] == "quantir"));
    let docs_of = |q: &str| -> Vec<&str> { lines.iter().filter(|l| l[0] == q).map(|l| l[2]).collect() };
    assert_eq!(docs_of("0"), ["0"], "claim 0 (2014-02-10) sees only the 2014-02-05 report");
    assert!(docs_of("1").contains(&"1"), "the July 2023 report is dated 2023-08-10, before the claim's 2023-08-20");
    assert!(!docs_of("0").contains(&"1"), "and after claim 0's 2014-02-10");
    assert_eq!(docs_of("2")[0], "3", "claim 2 has no date, so no cutoff");
    let ranks: Vec<&str> = lines.iter().filter(|l| l[0] == "2").map(|l| l[3]).collect();
    assert_eq!(ranks[0], "1");
    // The run evaluates.
    quantir().args(["eval", "--qrels"]).arg(fixture("quantemp/test_qrels.json")).arg("--run").arg(&run).assert().success().stdout(contains("ndcg_cut.10")).stdout(contains("all"));
}

#[test]
fn remove_query_drops_the_self_match() {
    let (dir, index) = indexed("beir");
    let run = dir.path().join("run.trec");
    let docs_for_q2 = |extra: &[&str]| -> Vec<String> {
        quantir().args(["run", "--index"]).arg(&index).arg("--claims").arg(fixture("beir")).arg("--output").arg(&run).args(extra).assert().success();
        std::fs::read_to_string(&run).unwrap().lines().filter(|l| l.starts_with("q2 ")).map(|l| l.split(' ').nth(2).unwrap().to_string()).collect()
    };
    assert!(docs_for_q2(&[]).contains(&"q2".to_string()));
    assert!(!docs_for_q2(&["--remove-query"]).contains(&"q2".to_string()));
}

#[test]
fn errors_exit_1_with_the_place_and_usage_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    quantir().args(["search", "--index"]).arg(dir.path()).arg("x").assert().code(1).stderr(contains("not a quantir index")).stderr(contains("hint: build one"));
    quantir().args(["run", "--index", "x"]).assert().code(2);
    quantir().args(["index", "--format", "csv", "--corpus", "x", "--index", "y"]).assert().code(2).stderr(contains("possible values: auto, jsonl, beir, quantemp"));
}

/// `quantir search … | head -1`: the reader goes away after one line; quantir ends on SIGPIPE as
/// Unix tools do, without a panic message.
#[test]
fn a_closed_pipe_ends_quietly() {
    use std::io::{BufRead, BufReader};
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    quantir().args(["index", "--corpus"]).arg(crate::util::repo().join("data/scifact")).arg("--index").arg(&index).assert().success();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("quantir"))
        .args(["search", "-k", "1000", "--index"])
        .arg(&index)
        .arg("vitamin d deficiency")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    assert!(first.contains("1. "));
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(out.status.success() || out.status.signal() == Some(libc::SIGPIPE), "{:?}", out.status);
}
