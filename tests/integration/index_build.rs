//! Builds are atomic: a crash or a bad input leaves the previous index working; versions are
//! checked on open.

use std::path::Path;
use std::time::{Duration, Instant};

use quantir::index::Index;

use crate::util::{fixture, quantir, write};

fn build(corpus: &Path, index: &Path) -> assert_cmd::assert::Assert {
    quantir().args(["index", "--corpus"]).arg(corpus).arg("--index").arg(index).assert()
}

#[test]
fn a_bad_file_leaves_the_old_index() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    build(&fixture("jsonl/corpus.jsonl"), &index).success();
    let bad = write(dir.path(), "bad.jsonl", "{\"id\": \"x\", \"text\": \"fine\"}\n{\"id\": \"y\", \"text\": broken}\n");
    build(&bad, &index).failure().code(1).stderr(predicates::str::contains("bad.jsonl:2:21"));
    assert_eq!(Index::open(&index).unwrap().num_docs(), 5);
    let leftovers = std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(leftovers, 2, "idx, bad.jsonl and nothing else: the staging folder is removed");
}

#[test]
fn kill_9_mid_build_leaves_the_old_index() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    build(&fixture("jsonl/corpus.jsonl"), &index).success();
    let before = std::fs::read(index.join("CURRENT")).unwrap();

    // Large enough that indexing takes a while in a debug build.
    let mut big = String::new();
    for i in 0..150_000 {
        big.push_str(&format!("{{\"id\": \"n{i}\", \"text\": \"unemployment was {}.{} percent in {} while inflation reached {}%\", \"date\": \"2020-01-01\"}}\n", i % 13, i % 10, 1990 + i % 30, i % 9));
    }
    let corpus = write(dir.path(), "big.jsonl", big);
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("quantir"))
        .args(["index", "--corpus"])
        .arg(&corpus)
        .arg("--index")
        .arg(&index)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // An index already there gets its next generation, staged inside it.
    let staging = index.join(format!(".gen-000002.staging-{}", child.id()));
    let started = Instant::now();
    while !staging.join("tantivy").exists() {
        assert!(child.try_wait().unwrap().is_none(), "the build ended before it could be killed");
        assert!(started.elapsed() < Duration::from_secs(120), "the build never started writing");
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(100));
    assert!(child.try_wait().unwrap().is_none(), "the build ended before it could be killed");
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();

    assert_eq!(std::fs::read(index.join("CURRENT")).unwrap(), before);
    let opened = Index::open(&index).unwrap();
    assert_eq!((opened.num_docs(), opened.generation()), (5, 1));
    assert!(staging.exists(), "the killed build's staging folder is left behind");
    drop(opened);
    // The next build clears it, and takes a number the killed one never finished.
    build(&fixture("beir"), &index).success();
    assert!(!staging.exists());
    let rebuilt = Index::open(&index).unwrap();
    assert_eq!((rebuilt.num_docs(), rebuilt.generation()), (3, 3));
    let names: Vec<String> = std::fs::read_dir(&index).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(!names.iter().any(|n| n == "gen-000001"), "the old generation is collected once nobody holds it: {names:?}");
}

#[test]
fn another_analyzer_version_is_refused_with_a_hint() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    build(&fixture("jsonl/corpus.jsonl"), &index).success();
    let manifest_path = quantir::index::testing::current_generation_dir(&index).join("manifest.json");
    let manifest = std::fs::read_to_string(&manifest_path).unwrap();
    // Edited by hand, the manifest no longer has the digest CURRENT records: damaged.
    std::fs::write(&manifest_path, manifest.replace("\"analyzer_version\": 1", "\"analyzer_version\": 999")).unwrap();
    let err = Index::open(&index).unwrap_err().to_string();
    assert!(err.contains("manifest.json: damaged index file") && err.contains("CURRENT records"), "{err}");
    // As another quantir would have written it (its digest recorded): refused by version.
    quantir::index::testing::restamp(&index).unwrap();
    let err = Index::open(&index).unwrap_err().to_string();
    assert!(err.contains("incompatible index: analyzer_version is \"quantir-numeric-en\" 999"), "{err}");
    assert!(err.contains("hint: rebuild it with `quantir index --corpus <CORPUS> --index"), "{err}");
    std::fs::write(&manifest_path, manifest.replace("\"format_version\": 2", "\"format_version\": 3")).unwrap();
    quantir::index::testing::restamp(&index).unwrap();
    assert!(Index::open(&index).unwrap_err().to_string().contains("format_version is 3"));
    assert!(Index::open(dir.path()).unwrap_err().to_string().contains("not a quantir index"));
    // A folder of format 1 (one manifest at its top, no generations): refused with the hint, and
    // replaced by the next build.
    let old = dir.path().join("old");
    std::fs::create_dir(&old).unwrap();
    std::fs::write(old.join("manifest.json"), "{\"format_version\": 1}").unwrap();
    let err = Index::open(&old).unwrap_err().to_string();
    assert!(err.contains("format_version is 1, this quantir reads 2") && err.contains("hint: rebuild it"), "{err}");
    build(&fixture("jsonl/corpus.jsonl"), &old).success();
    assert!(!old.join("manifest.json").exists());
    assert_eq!(Index::open(&old).unwrap().num_docs(), 5);
}

#[test]
fn the_manifest_records_the_settings() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    quantir().args(["index", "--k1", "1.2", "--b", "0.75", "--corpus"]).arg(fixture("quantemp/corpus.json")).arg("--index").arg(&index).assert().success();
    let m = Index::open(&index).unwrap().manifest().clone();
    assert_eq!((m.bm25.k1, m.bm25.b, m.documents, m.undated), (1.2, 0.75, 5, 1));
    assert_eq!(m.analyzer, "quantir-numeric-en");
    assert_eq!(m.doc_order, quantir::index::DocOrder::Date, "date order is the default");
    let segments = Index::open(&index).unwrap();
    assert!(segments.segments().iter().all(|s| s.date_sorted), "every segment of a date-ordered build is in date order");
    quantir().args(["index", "--doc-order", "corpus", "--corpus"]).arg(fixture("quantemp/corpus.json")).arg("--index").arg(&index).assert().success();
    assert_eq!(Index::open(&index).unwrap().manifest().doc_order, quantir::index::DocOrder::Corpus);
    // OpenSearch keeps its own order: the flag is refused there before anything is read or sent.
    quantir()
        .args(["index", "--backend", "opensearch", "--opensearch-url", "http://127.0.0.1:9", "--doc-order", "date", "--corpus"])
        .arg(fixture("quantemp/corpus.json"))
        .assert()
        .failure()
        .stderr(predicates::str::contains("--doc-order orders the embedded index"));
    quantir().args(["index", "--b", "1.5", "--corpus"]).arg(fixture("quantemp/corpus.json")).arg("--index").arg(&index).assert().failure().stderr(predicates::str::contains("b: expected a number in [0, 1], found 1.5\n\nhint: on the command line, that setting is --b"));
}

/// A corpus larger than `LoadOptions::in_memory_bytes` is read twice — streamed and checked, then
/// each document read again by its offset — and indexes exactly as one held in memory: the same
/// ids, the same hits with the same scores, dates and texts, the same provenance. A file changed
/// between the two reads is an error, never a mix.
#[test]
fn a_corpus_read_twice_indexes_as_one_held_in_memory() {
    use quantir::corpus::{scan_corpus, Documents, Format, LoadOptions};
    use quantir::index::{build_from_path, IndexConfig};
    use quantir::retrieve::{Cutoff, UndatedPolicy};
    let dir = tempfile::tempdir().unwrap();
    let repo = crate::util::repo();
    for (n, corpus) in [repo.join("data/quantemp-sample/corpus.json"), fixture("jsonl/corpus.jsonl"), repo.join("data/scifact")].iter().enumerate() {
        let indexes = [u64::MAX, 0].map(|in_memory_bytes| {
            let path = dir.path().join(format!("idx{n}-{in_memory_bytes}"));
            let load = LoadOptions { in_memory_bytes, ..LoadOptions::default() };
            build_from_path(corpus, Format::Auto, &load, &path, &IndexConfig { threads: 2, ..IndexConfig::default() }, &quantir::io::NoProgress).unwrap();
            Index::open(&path).unwrap()
        });
        let [held, streamed] = &indexes;
        assert_eq!(held.fingerprint(), streamed.fingerprint(), "{}", corpus.display());
        assert_eq!(std::fs::read(held.generation_dir().join("ids.json")).unwrap(), std::fs::read(streamed.generation_dir().join("ids.json")).unwrap());
        for (query, before) in [("inflation rate percent", Some("2020-01-01")), ("military economy", None), ("cancer cells", None)] {
            let cutoff = Cutoff { before: before.map(|d| quantir::corpus::PubDate::parse(d).unwrap()), undated: UndatedPolicy::Exclude };
            let hits = |index: &Index| quantir::engine::Backend::search(index, query, &cutoff, 20, None).unwrap().into_iter().map(|h| (h.id, h.score.to_bits(), h.date, h.title, h.text, h.url)).collect::<Vec<_>>();
            assert_eq!(hits(held), hits(streamed), "{} {query}", corpus.display());
        }
    }
    // Changed between the reads: the record read again is not the one read first.
    let corpus = write(dir.path(), "c.jsonl", "{\"id\": \"a\", \"text\": \"inflation 3 percent\"}\n{\"id\": \"b\", \"text\": \"rates rose\"}\n");
    let scan = scan_corpus(&corpus, Format::Auto, &LoadOptions { in_memory_bytes: 0, ..LoadOptions::default() }, &quantir::io::NoProgress).unwrap();
    assert!(!scan.in_memory());
    std::fs::write(&corpus, "{\"id\": \"a\", \"text\": \"inflation 4 percent\"}\n{\"id\": \"b\", \"text\": \"rates rose\"}\n").unwrap();
    let err = scan.for_each_in(&[0, 1], &mut |_| Ok(())).unwrap_err().to_string();
    assert!(err.contains("c.jsonl") && err.contains("changed while it was being read"), "{err}");
}

/// A streamed corpus (the OpenSearch loader's input) hands over the documents `load_corpus`
/// reads, in order, from any position — inside a batch of records, at one's edge, past the end —
/// each with its record's line, and counts what it counts; it holds nothing per document. A file
/// changed or grown between the passes is an error before any document of the changed batch.
#[test]
fn a_streamed_corpus_hands_over_the_documents_in_order_from_any_position() {
    use quantir::corpus::{load_corpus, stream_corpus, Documents, Format, InOrder, LoadOptions};
    let dir = tempfile::tempdir().unwrap();
    // 20,000 records (more than two batches of 8,192), every 97th empty, every 5th undated.
    let mut text = String::new();
    for i in 0..20_000 {
        let body = if i % 97 == 3 { String::new() } else { format!("inflation {i} percent") };
        let date = if i % 5 == 0 { String::new() } else { format!(", \"date\": \"20{:02}-01-02\"", i % 24) };
        text.push_str(&format!("{{\"id\": \"d{i}\", \"text\": \"{body}\"{date}}}\n"));
    }
    let corpus = write(dir.path(), "big.jsonl", &text);
    let held = load_corpus(&corpus, Format::Auto).unwrap();
    let stream = stream_corpus(&corpus, Format::Auto, &LoadOptions::default(), &quantir::io::NoProgress).unwrap();
    assert_eq!(stream.count(), held.len());
    let (a, b) = (stream.load_summary(), Documents::summary(&held));
    assert_eq!((a.records, a.documents, a.undated, a.skipped_empty, a.no_date_field, &a.digest), (b.records, b.documents, b.undated, b.skipped_empty, b.no_date_field, &b.digest));
    for start in [0, 1, 8_100, 8_107, 8_108, 16_000, held.len() - 1, held.len(), held.len() + 5] {
        let mut got = Vec::new();
        stream
            .for_each_from(start, &mut |d, line| {
                got.push((d.clone(), line.unwrap().line));
                Ok(())
            })
            .unwrap();
        let want: Vec<_> = held.documents.iter().skip(start).cloned().collect();
        assert_eq!(got.iter().map(|(d, _)| d.clone()).collect::<Vec<_>>(), want, "from {start}");
        // Line n holds document "d{n-1}".
        assert!(got.iter().all(|(d, line)| d.id == format!("d{}", line - 1)), "from {start}");
    }
    // A record changed in the second batch: the first batch is handed over, the second is not.
    std::fs::write(&corpus, text.replace("\"inflation 9000 percent\"", "\"inflation 9001 percent\"")).unwrap();
    let mut handed = 0;
    let err = stream.for_each_from(0, &mut |_, _| { handed += 1; Ok(()) }).unwrap_err().to_string();
    assert!(err.contains("big.jsonl") && err.contains("changed while it was being read"), "{err}");
    assert!(handed < 8_192, "{handed} documents handed over from a changed file");
    // Grown by one record.
    std::fs::write(&corpus, format!("{text}{{\"id\": \"late\", \"text\": \"new\"}}\n")).unwrap();
    let err = stream.for_each_from(0, &mut |_, _| Ok(())).unwrap_err().to_string();
    assert!(err.contains("changed while it was being read"), "{err}");
}
