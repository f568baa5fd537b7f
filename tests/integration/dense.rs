//! Dense retrieval with the real int8 all-MiniLM-L6-v2 from `scripts/setup_models.sh`.

use std::path::PathBuf;

use quantir::index::dense::{Encoder, EncoderConfig, TextKind};

use crate::util::repo;

/// The model folder and the ONNX Runtime library; missing ones fail with the install hint.
pub fn model() -> (PathBuf, PathBuf) {
    let dir = repo().join("models/all-minilm-l6-v2");
    let lib = repo().join("models/onnxruntime/libonnxruntime.so");
    assert!(dir.join("model.int8.onnx").exists() && lib.exists(), "models are missing\n\nhint: run scripts/setup_models.sh (scripts/test.sh does)");
    (dir, lib)
}

pub fn encoder() -> Encoder {
    let (dir, lib) = model();
    Encoder::open(&dir, EncoderConfig::read(&dir).unwrap(), &lib, 2, 32, quantir::index::dense::Device::Cpu).unwrap()
}

#[test]
fn embeddings_equal_the_reference_within_1e_3_cosine() {
    let reference: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(repo().join("tests/fixtures/oracle/minilm_reference.json")).unwrap()).unwrap();
    let sentences: Vec<&str> = reference["sentences"].as_array().unwrap().iter().map(|s| s.as_str().unwrap()).collect();
    let (vectors, dim) = encoder().encode(&sentences, TextKind::Passage).unwrap();
    assert_eq!(dim, 384);
    for (i, expected) in reference["vectors"].as_array().unwrap().iter().enumerate() {
        let expected: Vec<f64> = expected.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
        let ours = &vectors[i * dim..(i + 1) * dim];
        let cosine: f64 = ours.iter().zip(&expected).map(|(a, b)| f64::from(*a) * b).sum();
        let norm: f64 = ours.iter().map(|a| f64::from(*a).powi(2)).sum::<f64>().sqrt();
        assert!((norm - 1.0).abs() < 1e-5, "normalised");
        assert!(cosine >= 1.0 - 1e-3, "{:?}: cosine {cosine}", sentences[i]);
    }
}

#[test]
fn batching_does_not_change_vectors() {
    let e = encoder();
    let texts = ["a", "a much longer sentence about 41 homicides per 100,000 people in 2016", "3%"];
    let (together, dim) = e.encode(&texts, TextKind::Passage).unwrap();
    for (i, t) in texts.iter().enumerate() {
        let (alone, _) = e.encode(&[t], TextKind::Passage).unwrap();
        let cosine: f32 = alone.iter().zip(&together[i * dim..(i + 1) * dim]).map(|(a, b)| a * b).sum();
        assert!(cosine > 0.9999, "{t}: {cosine}");
    }
}

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use predicates::prelude::PredicateBooleanExt;
use predicates::str::contains;
use proptest::prelude::*;
use quantir::corpus::PubDate;
use quantir::index::Index;
use quantir::retrieve::{Ann, Cutoff, DenseQuery, UndatedPolicy};

use crate::util::quantir;

pub struct DenseSample {
    _dir: tempfile::TempDir,
    pub path: PathBuf,
    pub index: Index,
    queries: Vec<Vec<f32>>,
}

/// The QuanTemp sample indexed with vectors and an HNSW graph, and the vectors of its 12 claims.
pub fn dense_sample() -> &'static DenseSample {
    static SAMPLE: OnceLock<DenseSample> = OnceLock::new();
    SAMPLE.get_or_init(|| {
        let (model_dir, lib) = model();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("idx");
        quantir()
            .args(["index", "--hnsw", "--corpus"])
            .arg(repo().join("data/quantemp-sample/corpus.json"))
            .arg("--index")
            .arg(&path)
            .arg("--dense")
            .arg(&model_dir)
            .arg("--ort-lib")
            .arg(&lib)
            .assert()
            .success()
            .stderr(contains("encoded 732 passages"));
        let claims: Vec<String> = std::fs::read_to_string(repo().join("data/quantemp-sample/claims.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["text"].as_str().unwrap().to_string())
            .collect();
        let refs: Vec<&str> = claims.iter().map(String::as_str).collect();
        let (flat, dim) = encoder().encode(&refs, TextKind::Query).unwrap();
        DenseSample { _dir: dir, index: Index::open(&path).unwrap(), path, queries: flat.chunks(dim).map(<[f32]>::to_vec).collect() }
    })
}

fn search(s: &DenseSample, q: usize, cutoff: Cutoff, k: usize, ann: Ann) -> Vec<(u32, f32)> {
    let query = DenseQuery { vector: &s.queries[q], cutoff, exclude: None };
    quantir::retrieve::dense::search(&s.index, std::slice::from_ref(&query), k, ann, 64).unwrap().remove(0)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]
    /// Exact dense search under a cutoff equals the full ranking filtered to dates before it, cut at k.
    #[test]
    fn dense_cutoff_equals_filter_then_cut(q in 0usize..12, (y, m) in (2008i32..2024, 1u32..13), k in 1usize..80) {
        let s = dense_sample();
        let before = PubDate::parse(&format!("{y}-{m:02}-15")).unwrap();
        let got = search(s, q, Cutoff::before(before, UndatedPolicy::Exclude), k, Ann::Exact);
        let dates = s.index.date_keys_by_rank();
        let all = search(s, q, Cutoff::none(), 10_000, Ann::Exact);
        let want: Vec<(u32, f32)> = all.into_iter().filter(|(r, _)| dates[*r as usize] < before.first_day_number()).take(k).collect();
        prop_assert_eq!(got, want);
    }
}

/// A batch big enough for the date-ordered exact search (real vectors, every claim under several
/// cutoffs and undated policies, one with an excluded document) gives each query exactly what
/// searching it alone gives.
#[test]
fn a_batch_in_date_order_equals_each_query_alone() {
    let s = dense_sample();
    let mut queries = Vec::new();
    for (q, vector) in s.queries.iter().enumerate() {
        for before in [None, Some("2010-06-01"), Some("2016-03-15"), Some("2020-01-01"), Some("2022-09-30"), Some("2030-01-01")] {
            for undated in [UndatedPolicy::Exclude, UndatedPolicy::Include] {
                let cutoff = before.map_or(Cutoff::none(), |d| Cutoff::before(PubDate::parse(d).unwrap(), undated));
                queries.push(DenseQuery { vector, cutoff, exclude: (q == 3).then_some(17) });
            }
        }
    }
    assert!(queries.len() >= quantir::retrieve::dense::DATE_ORDER_MIN_QUERIES);
    let batch = quantir::retrieve::dense::search(&s.index, &queries, 25, Ann::Exact, 64).unwrap();
    for (i, query) in queries.iter().enumerate() {
        let alone = quantir::retrieve::dense::search(&s.index, std::slice::from_ref(query), 25, Ann::Exact, 64).unwrap().remove(0);
        assert_eq!(batch[i], alone, "query {i}");
    }
}

#[test]
fn hnsw_holds_recall_against_exact_under_cutoffs() {
    let s = dense_sample();
    let (mut found, mut total) = (0usize, 0usize);
    for q in 0..s.queries.len() {
        for before in [None, Some("2021-01-01"), Some("2012-01-01")] {
            let cutoff = before.map_or(Cutoff::none(), |d| Cutoff::before(PubDate::parse(d).unwrap(), UndatedPolicy::Exclude));
            let exact: std::collections::HashSet<u32> = search(s, q, cutoff, 20, Ann::Exact).into_iter().map(|h| h.0).collect();
            let approx = search(s, q, cutoff, 20, Ann::Hnsw);
            let dates = s.index.date_keys_by_rank();
            assert!(approx.iter().all(|(r, _)| cutoff.before.is_none_or(|b| dates[*r as usize] < b.first_day_number())), "HNSW hits respect the cutoff");
            assert_eq!(approx.len(), exact.len(), "as many hits as exact search");
            found += approx.iter().filter(|h| exact.contains(&h.0)).count();
            total += exact.len();
        }
    }
    let recall = found as f64 / total as f64;
    eprintln!("HNSW recall@20 against exact, under cutoffs: {recall:.4}");
    assert!(recall >= 0.95, "recall {recall}");
}

#[test]
fn a_killed_encode_resumes_where_it_stopped() {
    let (model_dir, lib) = model();
    let dir = tempfile::tempdir().unwrap();
    // 6,000 passages: three chunks of 2,048, so a kill after the first leaves work to resume.
    let corpus: String = (0..6000).map(|i| format!("{{\"id\": \"d{i}\", \"text\": \"passage {i} about inflation at {}.{} percent in {}\"}}\n", i % 9, i % 7, 1990 + i % 30)).collect();
    let corpus_path = crate::util::write(dir.path(), "c.jsonl", corpus);
    let index = dir.path().join("idx");
    let build = || {
        let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("quantir"));
        c.args(["index", "--corpus"]).arg(&corpus_path).arg("--index").arg(&index).arg("--dense").arg(&model_dir).arg("--ort-lib").arg(&lib);
        c
    };
    let mut child = build().stderr(std::process::Stdio::null()).spawn().unwrap();
    let work = dir.path().join(".idx.dense-work");
    let started = Instant::now();
    while !work.join("chunk-000000.f32").exists() {
        assert!(child.try_wait().unwrap().is_none(), "the build ended before its first chunk was killed");
        assert!(started.elapsed() < Duration::from_secs(300));
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!index.exists(), "no index from a killed build");
    let out = build().output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("encoded 6000 passages (2048 resumed") || stderr.contains("encoded 6000 passages (4096 resumed"), "{stderr}");
    assert!(!work.exists(), "the work folder goes once the index is in place");
    assert_eq!(Index::open(&index).unwrap().vectors().unwrap().len(), 6000);
}

#[test]
fn a_wrong_model_or_a_missing_runtime_says_how_to_fix_it() {
    let dir = tempfile::tempdir().unwrap();
    quantir()
        .args(["index", "--corpus"])
        .arg(crate::util::fixture("jsonl/corpus.jsonl"))
        .arg("--index")
        .arg(dir.path().join("idx"))
        .arg("--dense")
        .arg(dir.path())
        .assert()
        .code(1)
        .stderr(contains("has no quantir-encoder.json")).stderr(contains("hint: run scripts/setup_models.sh"));
    let (model_dir, _) = model();
    quantir()
        .args(["index", "--ort-lib", "/nonexistent/libonnxruntime.so", "--corpus"])
        .arg(crate::util::fixture("jsonl/corpus.jsonl"))
        .arg("--index")
        .arg(dir.path().join("idx"))
        .arg("--dense")
        .arg(&model_dir)
        .assert()
        .code(1)
        .stderr(contains("ONNX Runtime not found at /nonexistent/libonnxruntime.so"))
        .stderr(contains("hint: run scripts/setup_models.sh"));
    let bm25_only = dir.path().join("bm25");
    quantir().args(["index", "--corpus"]).arg(crate::util::fixture("jsonl/corpus.jsonl")).arg("--index").arg(&bm25_only).assert().success();
    quantir()
        .args(["run", "--retriever", "dense", "--index"])
        .arg(&bm25_only)
        .arg("--claims")
        .arg(crate::util::fixture("jsonl/claims.jsonl"))
        .arg("--output")
        .arg(dir.path().join("r"))
        .arg("--dense")
        .arg(&model_dir)
        .assert()
        .code(1)
        .stderr(contains("has no dense vectors"));
    // Without --dense too: the index's lack of vectors is the error, not the missing encoder
    // (which no encoder would mend), for run and search.
    quantir()
        .args(["run", "--retriever", "hybrid", "--index"])
        .arg(&bm25_only)
        .arg("--claims")
        .arg(crate::util::fixture("jsonl/claims.jsonl"))
        .arg("--output")
        .arg(dir.path().join("r"))
        .assert()
        .code(1)
        .stderr(contains("has no dense vectors").and(contains("--dense models/all-minilm-l6-v2")));
    quantir().args(["search", "--retriever", "dense", "--index"]).arg(&bm25_only).arg("inflation").assert().code(1).stderr(contains("has no dense vectors"));
}

#[test]
fn dense_mmr_drops_paraphrases_and_off_topic_queries() {
    let (model_dir, lib) = model();
    let dir = tempfile::tempdir().unwrap();
    let claims = crate::util::write(dir.path(), "claims.jsonl", "{\"id\": \"c\", \"text\": \"The military accounts for about 10 percent of Florida's economy\"}\n");
    let plans = crate::util::write(
        dir.path(),
        "plans.jsonl",
        "{\"id\": \"c\", \"queries\": [\"share of Florida's economy from the military\", \"how much of the Florida economy comes from military spending\", \"best beaches to visit in Spain\", \"defense jobs in Florida 10 percent\"]}\n",
    );
    let out = dir.path().join("out.jsonl");
    quantir()
        .args(["plan", "--mmr", "--mmr-similarity", "dense", "--claims"])
        .arg(&claims)
        .arg("--plan")
        .arg(format!("file:{}", plans.display()))
        .arg("--dense")
        .arg(&model_dir)
        .arg("--ort-lib")
        .arg(&lib)
        .arg("--output")
        .arg(&out)
        .assert()
        .success();
    let plan: serde_json::Value = serde_json::from_str(std::fs::read_to_string(&out).unwrap().lines().next().unwrap()).unwrap();
    let kept: Vec<&str> = plan["queries"].as_array().unwrap().iter().map(|q| q.as_str().unwrap()).collect();
    assert!(!kept.contains(&"best beaches to visit in Spain"), "{kept:?}");
    assert!(kept.len() < 4, "a paraphrase falls out too: {kept:?}");
}

/// `run --retriever dense` from another directory, with no --dense or --ort-lib: the index's
/// encoder is found by name through $QUANTIR_MODELS, or through the project's models/ beside the
/// binary; a model folder whose file differs from the one the index was built with is refused.
#[test]
fn models_are_found_from_any_directory_and_checked_by_hash() {
    let (model_dir, lib) = model();
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("idx");
    quantir().args(["index", "--corpus"]).arg(repo().join("data/quantemp-sample/corpus.json")).arg("--index").arg(&index).arg("--dense").arg(&model_dir).arg("--ort-lib").arg(&lib).assert().success();
    let manifest_path = quantir::index::testing::current_generation_dir(&index).join("manifest.json");
    let manifest: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&manifest_path).unwrap()).unwrap();
    assert_eq!(manifest["dense"]["model_sha256"], "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6", "the model file's sha256 (scripts/models.sha256)");
    // The recorded folder is gone from here: a relative path, seen from elsewhere.
    let mut manifest = manifest;
    manifest["dense"]["model_dir"] = "models/all-minilm-l6-v2".into();
    std::fs::write(&manifest_path, manifest.to_string()).unwrap();
    quantir::index::testing::restamp(&index).unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let run = |models: Option<&std::path::Path>| {
        let mut c = quantir();
        c.current_dir(elsewhere.path()).env("HOME", home.path()).env_remove("XDG_DATA_HOME").env_remove("ORT_DYLIB_PATH").env_remove("QUANTIR_MODELS");
        if let Some(m) = models {
            c.env("QUANTIR_MODELS", m);
        }
        c.args(["run", "--retriever", "dense", "-k", "5", "--index"]).arg(&index).arg("--claims").arg(repo().join("data/quantemp-sample/claims.jsonl")).arg("--output").arg(elsewhere.path().join("run"));
        c.assert()
    };
    // Through $QUANTIR_MODELS (a folder of model folders and onnxruntime/).
    let models = dir.path().join("models");
    std::fs::create_dir(&models).unwrap();
    for name in ["all-minilm-l6-v2", "onnxruntime"] {
        std::os::unix::fs::symlink(repo().join("models").join(name).canonicalize().unwrap(), models.join(name)).unwrap();
    }
    run(Some(&models)).success().stderr(contains("ran 12 claims"));
    // Through the project's models/, beside the binary.
    run(None).success().stderr(contains("ran 12 claims"));
    // A folder of the same name whose model file differs.
    let other = dir.path().join("other/all-minilm-l6-v2");
    std::fs::create_dir_all(&other).unwrap();
    for entry in std::fs::read_dir(repo().join("models/all-minilm-l6-v2")).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() || entry.path().is_file() {
            std::fs::copy(entry.path(), other.join(entry.file_name())).unwrap();
        }
    }
    let mut bytes = std::fs::read(other.join("model.int8.onnx")).unwrap();
    bytes.push(0);
    std::fs::write(other.join("model.int8.onnx"), bytes).unwrap();
    quantir()
        .args(["run", "--retriever", "dense", "--index"])
        .arg(&index)
        .arg("--claims")
        .arg(repo().join("data/quantemp-sample/claims.jsonl"))
        .arg("--output")
        .arg(dir.path().join("run"))
        .arg("--dense")
        .arg(&other)
        .arg("--ort-lib")
        .arg(&lib)
        .assert()
        .code(1)
        .stderr(contains("is not the model"))
        .stderr(contains("the index records 8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"))
        .stderr(contains("hint: name the right model folder with --dense DIR"));
}

/// Hybrid retrieval fuses each sub-query's BM25 and dense lists with --hybrid-fusion (CombSUM of
/// z-scores by default): a claim-only hybrid run equals `quantir fuse` of the BM25 and the dense
/// runs, and another --hybrid-fusion gives another run.
#[test]
fn hybrid_runs_fuse_bm25_and_dense_with_their_own_setting() {
    let s = dense_sample();
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str, flags: &[&str]| {
        let out = dir.path().join(name);
        quantir().args(["run", "-k", "50", "--index"]).arg(&s.path).arg("--claims").arg(repo().join("data/quantemp-sample/claims.jsonl")).args(flags).arg("--output").arg(&out).assert().success();
        out
    };
    let (bm25, dense, hybrid) = (run("bm25", &["--retriever", "bm25"]), run("dense", &["--retriever", "dense"]), run("hybrid", &["--retriever", "hybrid"]));
    let fused = dir.path().join("fused");
    quantir().args(["fuse", "--method", "combsum", "--norm", "zmuv", "-k", "50"]).arg(&bm25).arg(&dense).arg("--output").arg(&fused).assert().success();
    let read = |p: &std::path::Path| -> Vec<(String, String, f64)> {
        std::fs::read_to_string(p).unwrap().lines().map(|l| { let f: Vec<&str> = l.split(' ').collect(); (f[0].to_string(), f[2].to_string(), f[4].parse().unwrap()) }).collect()
    };
    let (ours, theirs) = (read(&hybrid), read(&fused));
    assert_eq!(ours.len(), theirs.len());
    for (a, b) in ours.iter().zip(&theirs) {
        assert_eq!((&a.0, &a.1), (&b.0, &b.1));
        assert!((a.2 - b.2).abs() < 1e-9, "{a:?} vs {b:?}");
    }
    let rrf = run("hybrid-rrf", &["--retriever", "hybrid", "--hybrid-fusion", "rrf"]);
    assert_ne!(read(&rrf), ours);
    // The sub-query fusion has its own flag: a numeric plan under hybrid retrieval takes both.
    run("numeric-hybrid", &["--retriever", "hybrid", "--plan", "numeric", "--fusion", "rrf", "--hybrid-fusion", "combmnz"]);
    quantir().args(["run", "--retriever", "hybrid", "--hybrid-fusion", "combmax-norm", "--hybrid-norm", "zmuv", "--index"]).arg(&s.path).arg("--claims").arg(repo().join("data/quantemp-sample/claims.jsonl")).arg("--output").arg(dir.path().join("x")).assert().code(1).stderr(contains("hybrid_norm=\"zmuv\": expected min-max: combmax-norm is CombMAX over min-max").and(contains("that setting is --hybrid-norm")));
}

/// `--device`: on a machine whose ONNX Runtime is the CPU build (this one, and CI), `cuda` is
/// one clear error that names the runtime and the fix and writes nothing; `auto` says it falls
/// back and builds the same vectors as `cpu`, and the manifest records the CPU (GPU builds are
/// checked on a lent GPU machine only: see the README's encoder figures).
#[test]
fn device_cuda_is_a_clear_error_without_a_gpu_runtime_and_auto_falls_back_to_the_cpu() {
    let (model_dir, lib) = model();
    let dir = tempfile::tempdir().unwrap();
    let corpus = repo().join("data/quantemp-sample/corpus.json");
    let build = |name: &str, device: &str| {
        let mut c = quantir();
        c.args(["index", "--corpus"]).arg(&corpus).arg("--index").arg(dir.path().join(name)).arg("--dense").arg(&model_dir).arg("--ort-lib").arg(&lib).args(["--device", device]);
        c.assert()
    };
    build("cuda", "cuda")
        .failure()
        .stderr(contains("cannot encode on the GPU (--device cuda)"))
        .stderr(contains("it is a CPU build: it has no CUDA execution provider"))
        .stderr(contains("scripts/setup_gpu.sh"))
        .stderr(contains(lib.display().to_string()));
    assert!(!dir.path().join("cuda").exists(), "nothing written");
    build("cpu", "cpu").success();
    build("auto", "auto").success().stderr(contains("encoding on the CPU: --device auto found no usable GPU"));
    let vectors = |name: &str| std::fs::read(quantir::index::testing::current_generation_dir(&dir.path().join(name)).join("dense/vectors.f32")).unwrap();
    assert_eq!(vectors("cpu"), vectors("auto"), "auto on the CPU encodes as cpu does");
    let manifest: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(quantir::index::testing::current_generation_dir(&dir.path().join("auto")).join("manifest.json")).unwrap()).unwrap();
    assert!(manifest["dense"].get("device").is_none(), "a CPU encoding is recorded as the default: {}", manifest["dense"]);
    quantir().args(["index", "--corpus"]).arg(&corpus).arg("--index").arg(dir.path().join("x")).arg("--dense").arg(&model_dir).args(["--device", "gpu"]).assert().failure().stderr(contains("cpu, cuda, auto"));
    // The library says where it runs and why not on the GPU.
    let encoder = Encoder::open(&model_dir, EncoderConfig::read(&model_dir).unwrap(), &lib, 1, 4, quantir::index::dense::Device::Auto).unwrap();
    assert_eq!(encoder.device(), quantir::index::dense::Device::Cpu);
    assert!(encoder.fallback().is_some_and(|why| why.contains("CPU build")), "{:?}", encoder.fallback());
}

/// `quantir search --retriever dense|hybrid QUERY --before DATE` gives what `run` gives for a
/// claim of that text made on that date: the same documents, order and scores (the server's and
/// the cluster's search answer the same way); an index without vectors refuses it with the fix.
#[test]
fn search_with_dense_and_hybrid_equals_the_run_of_the_same_claim() {
    let sample = dense_sample();
    let dir = tempfile::tempdir().unwrap();
    let claim: serde_json::Value = serde_json::from_str(std::fs::read_to_string(repo().join("data/quantemp-sample/claims.jsonl")).unwrap().lines().nth(3).unwrap()).unwrap();
    let (text, date) = (claim["text"].as_str().unwrap(), claim["date"].as_str().unwrap());
    let claims = dir.path().join("claim.jsonl");
    std::fs::write(&claims, serde_json::json!({ "id": "query", "text": text, "date": date }).to_string() + "\n").unwrap();
    for retriever in ["dense", "hybrid"] {
        let out = dir.path().join(format!("{retriever}.run"));
        quantir().args(["run", "--retriever", retriever, "-k", "10", "--index"]).arg(&sample.path).arg("--claims").arg(&claims).arg("--output").arg(&out).assert().success();
        let expected: Vec<(String, f64)> = std::fs::read_to_string(&out).unwrap().lines().map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f[2].to_string(), f[4].parse().unwrap())
        }).collect();
        let found = quantir().args(["search", "--json", "--retriever", retriever, "-k", "10", "--before", date, "--index"]).arg(&sample.path).arg(text).output().unwrap();
        assert!(found.status.success(), "{}", String::from_utf8_lossy(&found.stderr));
        let hits: serde_json::Value = serde_json::from_slice(&found.stdout).unwrap();
        let got: Vec<(String, f64)> = hits["hits"].as_array().unwrap().iter().map(|h| (h["id"].as_str().unwrap().to_string(), h["score"].as_f64().unwrap())).collect();
        assert_eq!(got.len(), expected.len(), "{retriever}");
        for ((a, x), (b, y)) in got.iter().zip(&expected) {
            assert_eq!(a, b, "{retriever}");
            assert!((x - y).abs() <= 1e-4 * y.abs().max(1.0), "{retriever} {a}: {x} against {y}");
        }
        for hit in hits["hits"].as_array().unwrap() {
            assert!(hit["date"].as_str().is_some_and(|d| d < date), "{retriever}: {hit} is not before {date}");
        }
    }
    let bm25_only = dir.path().join("bm25");
    quantir().args(["index", "--corpus"]).arg(repo().join("data/quantemp-sample/corpus.json")).arg("--index").arg(&bm25_only).assert().success();
    quantir().args(["search", "--retriever", "dense", "--index"]).arg(&bm25_only).arg(text).assert().failure().stderr(contains("--dense"));
    // An empty query is refused as an empty claim is, for every retriever: encoded, it would
    // "find" the documents nearest to nothing.
    for retriever in ["bm25", "dense", "hybrid"] {
        quantir().args(["search", "--retriever", retriever, "--index"]).arg(&sample.path).arg("  ").assert().failure().stderr(contains("the query: expected the query's text, found \"  \""));
    }
}
