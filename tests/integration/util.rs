//! Shared test helpers: paths, the built binary, temporary inputs, the Python oracles.

use std::path::{Path, PathBuf};

use quantir::corpus::{Corpus, Document, LoadSummary, PubDate};
use quantir::index::{build, Index, IndexConfig};
use quantir::io::NoProgress;

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A file under `tests/fixtures/`.
pub fn fixture(path: &str) -> PathBuf {
    repo().join("tests/fixtures").join(path)
}

/// The `quantir` binary built for these tests.
pub fn quantir() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("quantir").expect("quantir binary")
}

/// Writes `content` to `dir/name` and returns the path.
pub fn write(dir: &Path, name: &str, content: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, content).unwrap();
    path
}

/// The Python with the oracles (`scripts/setup_python.sh` installs it). Missing oracles fail the
/// test rather than skip it: a skipped oracle test would pass without checking anything.
pub fn python() -> PathBuf {
    let python = repo().join(".venv/bin/python");
    assert!(python.exists(), "{} is missing\n\nhint: run scripts/setup_python.sh (scripts/test.sh does)", python.display());
    python
}

/// A document with the given fields.
pub fn doc(id: &str, text: &str, date: Option<&str>) -> Document {
    Document { id: id.into(), title: String::new(), text: text.into(), url: None, date: date.map(|d| PubDate::parse(d).unwrap()) }
}

/// Builds an index of `documents` in `dir/name` and opens it.
pub fn index_of(dir: &Path, name: &str, documents: Vec<Document>) -> Index {
    let summary = LoadSummary { documents: documents.len(), ..Default::default() };
    let corpus = Corpus { documents, summary };
    let path = dir.join(name);
    build(&corpus, Path::new("test"), &path, &IndexConfig::default(), &NoProgress).unwrap();
    Index::open(&path).unwrap()
}

/// The SciFact test run (BM25 defaults, k=1000, --remove-query), built once per test binary.
pub struct SciFactRun {
    _dir: tempfile::TempDir,
    /// The index folder.
    pub index: PathBuf,
    /// The TREC run.
    pub run: PathBuf,
}

/// See [`SciFactRun`].
pub fn scifact_run() -> &'static SciFactRun {
    static RUN: std::sync::OnceLock<SciFactRun> = std::sync::OnceLock::new();
    RUN.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let index = dir.path().join("scifact");
        let run = dir.path().join("scifact.run");
        quantir().args(["index", "--corpus"]).arg(repo().join("data/scifact")).arg("--index").arg(&index).assert().success();
        quantir()
            .args(["run", "-k", "1000", "--remove-query", "--index"])
            .arg(&index)
            .arg("--claims")
            .arg(repo().join("data/scifact"))
            .arg("--qrels")
            .arg(repo().join("data/scifact/qrels/test.tsv"))
            .arg("--output")
            .arg(&run)
            .assert()
            .success();
        SciFactRun { _dir: dir, index, run }
    })
}

/// Runs the pytrec_eval oracle script and returns its JSON.
pub fn oracle(qrels: &Path, run: &Path, measures: &[&str], flags: &[&str]) -> serde_json::Value {
    let mut command = std::process::Command::new(python());
    command.arg(repo().join("scripts/oracle/trec_eval.py")).arg(qrels).arg(run).arg("--per-query").args(flags);
    for m in measures {
        command.args(["-m", m]);
    }
    let out = command.output().unwrap();
    assert!(out.status.success(), "oracle failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `quantir eval --json --per-query` on the files, with trec_eval's flags (`-c`, `-l N`, `-M N`).
pub fn quantir_eval(qrels: &Path, run: &Path, measures: &[&str], flags: &[&str]) -> serde_json::Value {
    let mut command = quantir();
    command.args(["eval", "--json", "--per-query", "--qrels"]).arg(qrels).arg("--run").arg(run).args(flags);
    for m in measures {
        command.args(["-m", m]);
    }
    serde_json::from_slice(&command.assert().success().get_output().stdout).unwrap()
}

/// Asserts that every per-query value and every mean of `ours` equals `theirs` within 1e-9,
/// over the same set of queries.
pub fn assert_same_values(ours: &serde_json::Value, theirs: &serde_json::Value) {
    let theirs_q = theirs["per_query"].as_object().unwrap();
    let ours_q = ours["per_query"].as_object().unwrap();
    let mut a: Vec<&String> = ours_q.keys().collect();
    let mut b: Vec<&String> = theirs_q.keys().collect();
    a.sort();
    b.sort();
    assert_eq!(a, b, "the same queries are evaluated");
    for (qid, values) in theirs_q {
        for (key, value) in values.as_object().unwrap() {
            let mine = ours_q[qid][key].as_f64().unwrap_or_else(|| panic!("{qid} {key} missing"));
            assert!((mine - value.as_f64().unwrap()).abs() <= 1e-9, "{qid} {key}: quantir {mine} vs oracle {value}");
        }
    }
    for (key, value) in theirs["all"].as_object().unwrap() {
        let mine = ours["all"][key].as_f64().unwrap();
        assert!((mine - value.as_f64().unwrap()).abs() <= 1e-9, "all {key}: quantir {mine} vs oracle {value}");
    }
}
