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
