//! Every index proves it is intact (issue 37): a file of a generation that is not what the build
//! wrote is refused — by name, with the fix — before anything is searched; a damaged index never
//! answers, and never answers differently.

use std::path::{Path, PathBuf};

use quantir::corpus::PubDate;
use quantir::index::dense::TextKind;
use quantir::index::{build, DenseConfig, HnswParams, Index, IndexConfig};
use quantir::io::NoProgress;
use quantir::retrieve::{Ann, Cutoff, DenseQuery, UndatedPolicy};
use rand_chacha::rand_core::{Rng, SeedableRng};

use crate::util::repo;

/// The queries: claims of the dated sample with their own dates as cutoffs, and one without.
fn queries() -> Vec<(String, Option<PubDate>)> {
    let claims = std::fs::read_to_string(repo().join("data/quantemp-sample/claims.jsonl")).unwrap();
    let mut out: Vec<(String, Option<PubDate>)> = claims
        .lines()
        .take(4)
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (v["text"].as_str().unwrap().to_string(), PubDate::parse(v["date"].as_str().unwrap()))
        })
        .collect();
    out.push(("unemployment rate percent".into(), None));
    out
}

/// Everything a search of the index at `path` answers: BM25 hits with their stored fields, and
/// exact and HNSW dense hits, for every query; or the error that refused it.
fn answers(path: &Path, queries: &[(String, Option<PubDate>)], vectors: &[Vec<f32>]) -> quantir::Result<Vec<String>> {
    let index = Index::open(path)?;
    let mut out = Vec::new();
    for (query, before) in queries {
        let cutoff = Cutoff { before: *before, undated: UndatedPolicy::Exclude };
        let hits = quantir::engine::Backend::search(&index, query, &cutoff, 8, None)?;
        out.push(format!("{:?}", hits.iter().map(|h| (&h.id, h.score.to_bits(), &h.date, &h.title, &h.text, &h.url)).collect::<Vec<_>>()));
    }
    for ann in [Ann::Exact, Ann::Hnsw] {
        let dense: Vec<DenseQuery> = vectors.iter().zip(queries).map(|(v, (_, before))| DenseQuery { vector: v, cutoff: Cutoff { before: *before, undated: UndatedPolicy::Exclude }, exclude: None }).collect();
        let hits = quantir::retrieve::dense::search(&index, &dense, 8, ann, 64)?;
        out.push(format!("{:?}", hits.iter().map(|list| list.iter().map(|&(rank, score)| (index.id(rank).to_string(), score.to_bits())).collect::<Vec<_>>()).collect::<Vec<_>>()));
    }
    Ok(out)
}

/// Every regular file of the index folder: `CURRENT` and the generation's files, the manifest
/// included.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if std::fs::metadata(&path).unwrap().len() > 0 && path.file_name().unwrap() != "writer.lock" {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The property: for random single-byte corruptions of every file of a small index (BM25 with
/// its decoded postings and bounds, dense vectors and an HNSW graph), a search either answers
/// exactly as the intact index does or is refused with a clear error naming a file and the fix —
/// never a different answer, never a raw dump.
#[test]
fn every_single_byte_corruption_is_refused_or_changes_nothing() {
    let (model, lib) = crate::dense::model();
    let encoder = quantir::index::dense::Encoder::open(&model, quantir::index::dense::EncoderConfig::read(&model).unwrap(), &lib, 1, 8, quantir::index::dense::Device::Cpu).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("idx");
    let corpus = quantir::corpus::load_corpus(&repo().join("tests/fixtures/quantemp/corpus.json"), quantir::corpus::Format::Auto).unwrap();
    let dense = DenseConfig { encoder: &encoder, dtype: quantir::index::dense::VectorDtype::F32, hnsw: Some(HnswParams { max_connections: 4, ef_construction: 16 }) };
    build(&corpus, Path::new("corpus.json"), &path, &IndexConfig { threads: 1, dense: Some(dense), ..IndexConfig::default() }, &NoProgress).unwrap();
    let queries = queries();
    let texts: Vec<&str> = queries.iter().map(|(q, _)| q.as_str()).collect();
    let (flat, dim) = encoder.encode(&texts, TextKind::Query).unwrap();
    let vectors: Vec<Vec<f32>> = flat.chunks(dim).map(<[f32]>::to_vec).collect();
    let intact = answers(&path, &queries, &vectors).unwrap();
    let files = files(&path);
    let names: Vec<String> = files.iter().map(|f| f.strip_prefix(&path).unwrap().display().to_string()).collect();
    for needed in ["CURRENT", "manifest.json", ".fast", ".idx", ".store", ".term", "bounds.bin", "decoded.bin", "ids.json", "vectors.f32", "hnsw"] {
        assert!(names.iter().any(|n| n.contains(needed)), "the index has a {needed} file to damage: {names:?}");
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(37);
    let (mut refused, mut unchanged) = (0, 0);
    for (file, name) in files.iter().zip(&names) {
        let bytes = std::fs::read(file).unwrap();
        // The first and last bytes, and random ones between.
        let mut offsets = vec![0, bytes.len() - 1];
        offsets.extend((0..14).map(|_| rng.next_u64() as usize % bytes.len()));
        for offset in offsets {
            let flip = (rng.next_u32() % 255 + 1) as u8;
            let mut damaged = bytes.clone();
            damaged[offset] ^= flip;
            std::fs::write(file, &damaged).unwrap();
            match answers(&path, &queries, &vectors) {
                Ok(got) => {
                    assert_eq!(got, intact, "{name} byte {offset} ^ {flip:#04x}: the damaged index answered differently");
                    unchanged += 1;
                }
                Err(e) => {
                    let message = e.to_string();
                    assert!(message.contains("hint:"), "{name} byte {offset} ^ {flip:#04x}: no fix named: {message}");
                    assert!(message.contains("damaged index file") || message.contains("incompatible index") || message.contains("not a quantir index"), "{name} byte {offset}: not a damage error: {message}");
                    assert!(!message.contains(" { ") && !message.contains("Error {"), "{name} byte {offset}: a raw dump: {message}");
                    refused += 1;
                }
            }
        }
        std::fs::write(file, &bytes).unwrap();
    }
    assert_eq!(answers(&path, &queries, &vectors).unwrap(), intact, "restored");
    // Every corruption of a data file is caught by its digest: only a byte that changes nothing
    // (none here: every byte of every file is covered by a digest) may go through.
    assert_eq!(unchanged, 0, "{refused} refused, {unchanged} unchanged");
}

/// Issue 37 (class 2): one flipped byte in tantivy's fast fields let a snippet dated 2017-10-24
/// into the top 5 of a claim made on 2016-11-02, and `search --before` printed it. The date keys
/// live in the `.fast` file: every byte of it is now refused by its digest, and the CLI says which
/// file and how to fix it instead of answering.
#[test]
fn issue_37_a_damaged_fast_field_never_answers() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    crate::util::quantir().args(["index", "--corpus"]).arg(repo().join("data/quantemp-sample/corpus.json")).arg("--index").arg(&index).assert().success();
    let search = || crate::util::quantir().args(["search", "--before", "2016-11-02", "-k", "5", "--index"]).arg(&index).arg("Two men were sentenced to eight months in prison for throwing bacon at a mosque").assert();
    let intact = search().success().get_output().stdout.clone();
    let fast = files(&index).into_iter().find(|f| f.extension().is_some_and(|e| e == "fast")).unwrap();
    let bytes = std::fs::read(&fast).unwrap();
    for offset in (0..bytes.len()).step_by((bytes.len() / 64).max(1)) {
        let mut damaged = bytes.clone();
        damaged[offset] ^= 0x10;
        std::fs::write(&fast, &damaged).unwrap();
        let out = search().code(1).get_output().clone();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.stdout.is_empty(), "byte {offset}: answered from a damaged index");
        assert!(stderr.contains(".fast: damaged index file") && stderr.contains("hint: rebuild the index"), "byte {offset}: {stderr}");
    }
    std::fs::write(&fast, &bytes).unwrap();
    assert_eq!(search().success().get_output().stdout, intact);
    crate::util::quantir().args(["check", "--index"]).arg(&index).assert().success().stdout("ok\n");
    let mut damaged = bytes.clone();
    damaged[bytes.len() / 2] ^= 1;
    std::fs::write(&fast, &damaged).unwrap();
    crate::util::quantir().args(["check", "--index"]).arg(&index).assert().code(1).stdout(predicates::str::contains(".fast: its bytes changed since they were written"));
}
