//! Verification: scores equal scikit-learn's and the fold t-test scipy's; the trained verifier
//! trains, cross-validates and predicts end to end.

use std::fmt::Write as _;

use predicates::prelude::PredicateBooleanExt;
use predicates::str::contains;

use crate::util::{python, quantir, repo, write};

#[test]
fn verify_eval_equals_scikit_learn_and_scipy() {
    let dir = tempfile::tempdir().unwrap();
    let labels = ["True", "False", "Half True/False"];
    let (mut gold, mut a, mut b) = (String::new(), String::new(), String::new());
    let mut state = 11u64;
    let mut next = |n: u64| {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 33) % n
    };
    for i in 0..500 {
        let g = next(10).min(2) as usize; // skewed like QuanTemp: False-heavy
        let pa = if next(10) < 6 { g } else { next(3) as usize };
        let pb = if next(10) < 5 { g } else { next(3) as usize };
        writeln!(gold, r#"{{"id": "{i}", "label": "{}"}}"#, labels[g]).unwrap();
        writeln!(a, r#"{{"id": "{i}", "label": "{}", "confidence": 0.5}}"#, labels[pa]).unwrap();
        writeln!(b, r#"{{"id": "{i}", "label": "{}", "confidence": 0.5}}"#, labels[pb]).unwrap();
    }
    let (gold, a, b) = (write(dir.path(), "gold.jsonl", gold), write(dir.path(), "a.jsonl", a), write(dir.path(), "b.jsonl", b));
    let out = quantir().args(["verify-eval", "--json", "--folds", "10", "--gold"]).arg(&gold).arg("--pred").arg(&a).arg("--pred-b").arg(&b).assert().success().get_output().stdout.clone();
    let ours: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let script = r#"
import json, sys
from sklearn.metrics import accuracy_score, f1_score, precision_recall_fscore_support, confusion_matrix
from scipy.stats import ttest_rel
norm = lambda l: "Conflicting" if l == "Half True/False" else l
def read(p): return {d["id"]: norm(d["label"]) for d in map(json.loads, open(p))}
gold, a, b = read(sys.argv[1]), read(sys.argv[2]), read(sys.argv[3])
ids = sorted(gold, key=int)
y, pa, pb = [gold[i] for i in ids], [a[i] for i in ids], [b[i] for i in ids]
labels = ["True", "False", "Conflicting"]
p, r, f, s = precision_recall_fscore_support(y, pa, labels=labels, zero_division=0)
folds = lambda pred: [f1_score(y[k * 500 // 10:(k + 1) * 500 // 10], pred[k * 500 // 10:(k + 1) * 500 // 10], average="macro", zero_division=0) for k in range(10)]
print(json.dumps({"accuracy": accuracy_score(y, pa), "macro_f1": f1_score(y, pa, average="macro", zero_division=0),
  "weighted_f1": f1_score(y, pa, average="weighted", zero_division=0),
  "per_class": {l: {"precision": p[i], "recall": r[i], "f1": f[i], "support": int(s[i])} for i, l in enumerate(labels)},
  "confusion": confusion_matrix(y, pa, labels=labels).tolist(), "p": ttest_rel(folds(pb), folds(pa)).pvalue}))
"#;
    let oracle = std::process::Command::new(python()).arg("-c").arg(script).arg(&gold).arg(&a).arg(&b).output().unwrap();
    assert!(oracle.status.success(), "{}", String::from_utf8_lossy(&oracle.stderr));
    let theirs: serde_json::Value = serde_json::from_slice(&oracle.stdout).unwrap();
    let close = |x: &serde_json::Value, y: &serde_json::Value, what: &str| assert!((x.as_f64().unwrap() - y.as_f64().unwrap()).abs() <= 1e-9, "{what}: quantir {x} vs oracle {y}");
    for key in ["accuracy", "macro_f1", "weighted_f1"] {
        close(&ours[key], &theirs[key], key);
    }
    for label in ["True", "False", "Conflicting"] {
        for key in ["precision", "recall", "f1", "support"] {
            close(&ours["per_class"][label][key], &theirs["per_class"][label][key], &format!("{label} {key}"));
        }
    }
    assert_eq!(ours["confusion"], theirs["confusion"]);
    close(&ours["folds"]["t_test_p"], &theirs["p"], "t-test p");
}

/// `verify-eval` on predictions that abstain: ECE and the reliability bins equal scikit-learn's
/// `calibration_curve(strategy="uniform", n_bins=15)` binning, the risk–coverage curve equals
/// sorting by confidence and scoring with scikit-learn at each coverage, the coverage counts the
/// withheld verdicts, and `--plots` writes two PNG images and their CSV files.
#[test]
fn calibration_and_risk_coverage_equal_scikit_learn() {
    let dir = tempfile::tempdir().unwrap();
    let labels = ["True", "False", "Conflicting"];
    let (mut gold, mut pred) = (String::new(), String::new());
    let mut state = 5u64;
    let mut next = |n: u64| {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 33) % n
    };
    for i in 0..600 {
        let g = next(10).min(2) as usize;
        // Confidences on bin edges (0.2, 0.6, 1.0) as well as between them; right more often when sure.
        let confidence = [0.2, 0.6, 1.0, 0.34, 0.51, 0.77, 0.93][next(7) as usize];
        let v = if (next(100) as f64) < 100.0 * confidence { g } else { (g + 1 + next(2) as usize) % 3 };
        let withheld = next(5) == 0;
        writeln!(gold, r#"{{"id": "{i}", "label": "{}"}}"#, labels[g]).unwrap();
        let label = if withheld { "Not Enough Info" } else { labels[v] };
        let abstained = if withheld { r#", "abstained": "evidence""# } else { "" };
        writeln!(pred, r#"{{"id": "{i}", "label": "{label}", "verdict": "{}", "confidence": {confidence}, "relevance": 0.5{abstained}}}"#, labels[v]).unwrap();
    }
    let (gold, pred) = (write(dir.path(), "gold.jsonl", gold), write(dir.path(), "pred.jsonl", pred));
    let plots = dir.path().join("plots");
    let out = quantir().args(["verify-eval", "--json", "--gold"]).arg(&gold).arg("--pred").arg(&pred).arg("--plots").arg(&plots).assert().success().get_output().stdout.clone();
    let ours: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let script = r#"
import json, math, sys
import numpy as np
from sklearn.calibration import calibration_curve
from sklearn.metrics import f1_score, accuracy_score
gold = {d["id"]: d["label"] for d in map(json.loads, open(sys.argv[1]))}
pred = list(map(json.loads, open(sys.argv[2])))
pred.sort(key=lambda p: int(p["id"]))
y = [gold[p["id"]] for p in pred]
v = [p["verdict"] for p in pred]
c = np.array([p["confidence"] for p in pred])
right = np.array([a == b for a, b in zip(y, v)], dtype=float)
accuracy, confidence = calibration_curve(right, c, n_bins=15, strategy="uniform")
bins = np.linspace(0.0, 1.0, 16)
counts = np.bincount(np.searchsorted(bins[1:-1], c), minlength=15)
ece = float(np.sum(counts[counts > 0] / len(c) * np.abs(accuracy - confidence)))
order = sorted(range(len(c)), key=lambda i: (-c[i], i))
curve = []
for cov in [1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1]:
    kept = order[:math.ceil(cov * len(c))]
    yy, vv = [y[i] for i in kept], [v[i] for i in kept]
    curve.append({"kept": len(kept), "accuracy": accuracy_score(yy, vv), "macro_f1": f1_score(yy, vv, average="macro", zero_division=0)})
given = [i for i, p in enumerate(pred) if "abstained" not in p]
print(json.dumps({"ece": ece, "counts": counts.tolist(), "curve": curve, "coverage": len(given) / len(pred),
  "answered_macro_f1": f1_score([y[i] for i in given], [v[i] for i in given], average="macro", zero_division=0)}))
"#;
    let oracle = std::process::Command::new(python()).arg("-c").arg(script).arg(&gold).arg(&pred).output().unwrap();
    assert!(oracle.status.success(), "{}", String::from_utf8_lossy(&oracle.stderr));
    let theirs: serde_json::Value = serde_json::from_slice(&oracle.stdout).unwrap();
    let s = &ours["selective"];
    let close = |x: &serde_json::Value, y: &serde_json::Value, what: &str| assert!((x.as_f64().unwrap() - y.as_f64().unwrap()).abs() <= 1e-9, "{what}: quantir {x} vs scikit-learn {y}");
    close(&s["ece"], &theirs["ece"], "ECE");
    let counts: Vec<u64> = s["reliability"].as_array().unwrap().iter().map(|b| b["count"].as_u64().unwrap()).collect();
    assert_eq!(serde_json::json!(counts), theirs["counts"]);
    for (point, expected) in s["curve"].as_array().unwrap().iter().zip(theirs["curve"].as_array().unwrap()) {
        assert_eq!(point["kept"], expected["kept"]);
        close(&point["scores"]["accuracy"], &expected["accuracy"], "selective accuracy");
        close(&point["scores"]["macro_f1"], &expected["macro_f1"], "selective macro-F1");
    }
    close(&s["coverage"], &theirs["coverage"], "coverage");
    close(&s["answered"]["macro_f1"], &theirs["answered_macro_f1"], "macro-F1 of the verdicts given");
    // The main scores count the withheld claims as Not Enough Info (a fourth label).
    assert!(ours["labels"].as_array().unwrap().contains(&serde_json::json!("Not Enough Info")));
    for name in ["reliability.png", "risk_coverage.png"] {
        assert!(std::fs::read(plots.join(name)).unwrap().starts_with(b"\x89PNG\r\n\x1a\n"), "{name} is a PNG");
    }
    assert_eq!(std::fs::read_to_string(plots.join("risk_coverage.csv")).unwrap().lines().count(), 11);
    assert_eq!(std::fs::read_to_string(plots.join("reliability.csv")).unwrap().lines().count(), 16);
}

#[test]
fn train_cross_validate_and_verify() {
    let dir = tempfile::tempdir().unwrap();
    // The first 120 real validation claims with their evidence, as evidence JSONL.
    let all: Vec<serde_json::Value> = serde_json::from_str(&std::fs::read_to_string(repo().join("data/quantemp-val/val_claimonly_evidence_question_mapping.json")).unwrap()).unwrap();
    let mut lines = String::new();
    for (i, item) in all.iter().take(120).enumerate() {
        let evidence: Vec<&str> = item["evidences"][0]["top_k_doc"].as_array().unwrap().iter().map(|d| d.as_str().unwrap()).collect();
        writeln!(lines, "{}", serde_json::json!({"id": i.to_string(), "claim": item["claim"], "evidence": evidence, "label": item["label"]})).unwrap();
    }
    let claims = write(dir.path(), "claims.jsonl", lines);
    let verifier = dir.path().join("verifier");
    quantir()
        .args(["train-verifier", "--folds", "3", "--epochs", "20", "--claims"])
        .arg(&claims)
        .arg("--output")
        .arg(&verifier)
        .assert()
        .success()
        .stdout(contains("3-fold cross-validation over 120 claims (claim + top-3 evidence)"))
        .stdout(contains("macro_f1"));
    assert_eq!(std::fs::read_to_string(verifier.join("cv_predictions.jsonl")).unwrap().lines().count(), 120);
    let preds = dir.path().join("pred.jsonl");
    quantir().args(["verify", "--verifier"]).arg(format!("trained:{}", verifier.display())).arg("--claims").arg(&claims).arg("--output").arg(&preds).assert().success();
    let predictions: Vec<serde_json::Value> = std::fs::read_to_string(&preds).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(predictions.len(), 120);
    assert!(predictions.iter().all(|p| ["True", "False", "Conflicting"].contains(&p["label"].as_str().unwrap()) && p["evidence"].as_array().unwrap().len() <= 3));
    // The folder is read only as train-verifier wrote it: the model and its abstention rule, each
    // checked against the record (an edit that leaves valid JSON included), and no rule dropped in
    // that the record does not name.
    let copy = dir.path().join("copy");
    std::fs::create_dir(&copy).unwrap();
    for file in ["verifier.json", "abstention.json", "provenance.json"] {
        std::fs::copy(verifier.join(file), copy.join(file)).unwrap();
    }
    let copied = |expected: &str| {
        quantir().args(["verify", "--verifier"]).arg(format!("trained:{}", copy.display())).arg("--claims").arg(&claims).arg("--output").arg(dir.path().join("copy.jsonl")).assert().code(1).stderr(contains(expected).and(contains("quantir train-verifier")));
        assert!(!dir.path().join("copy.jsonl").exists(), "{expected}");
    };
    let rule = std::fs::read_to_string(copy.join("abstention.json")).unwrap();
    std::fs::write(copy.join("abstention.json"), rule.replacen('{', "{\n", 1)).unwrap();
    copied("abstention.json: its bytes changed since they were written");
    // Borrowed from its folder by another verifier, the rule is checked against that folder's record.
    let borrowed = || quantir().args(["verify", "--verifier"]).arg(format!("trained:{}", verifier.display())).arg("--abstention-rule").arg(&copy).arg("--claims").arg(&claims).arg("--output").arg(dir.path().join("borrowed.jsonl")).assert();
    borrowed().code(1).stderr(contains("abstention.json: its bytes changed since they were written"));
    std::fs::remove_file(copy.join("abstention.json")).unwrap();
    copied("abstention.json: missing");
    let record: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(copy.join("provenance.json")).unwrap()).unwrap();
    let mut without_rule = record.clone();
    without_rule["parts"].as_object_mut().unwrap().remove("abstention.json");
    std::fs::write(copy.join("provenance.json"), without_rule.to_string()).unwrap();
    std::fs::write(copy.join("abstention.json"), &rule).unwrap();
    copied("abstention.json: provenance.json records no such file");
    std::fs::write(copy.join("provenance.json"), record.to_string()).unwrap();
    let model = std::fs::read_to_string(copy.join("verifier.json")).unwrap();
    std::fs::write(copy.join("verifier.json"), format!("{model} ")).unwrap();
    copied("verifier.json: ");
    std::fs::write(copy.join("verifier.json"), &model).unwrap();
    quantir().args(["verify", "--verifier"]).arg(format!("trained:{}", copy.display())).arg("--claims").arg(&claims).arg("--output").arg(dir.path().join("copy.jsonl")).assert().success();
    borrowed().success();
    let abstaining = |file: &str| std::fs::read_to_string(dir.path().join(file)).unwrap().lines().filter(|l| l.contains("\"Not Enough Info\"")).count();
    quantir().args(["verify", "--abstain", "--verifier"]).arg(format!("trained:{}", copy.display())).arg("--claims").arg(&claims).arg("--output").arg(dir.path().join("copy.jsonl")).assert().success();
    assert_eq!(abstaining("borrowed.jsonl"), abstaining("copy.jsonl"), "the borrowed rule is the folder's own");
    // The same verifier over a quantir run of the dated sample: evidence from the index.
    let index = dir.path().join("idx");
    quantir().args(["index", "--corpus"]).arg(repo().join("data/quantemp-sample/corpus.json")).arg("--index").arg(&index).assert().success();
    let run = dir.path().join("run.trec");
    quantir().args(["run", "-k", "3", "--index"]).arg(&index).arg("--claims").arg(repo().join("data/quantemp-sample/claims.jsonl")).arg("--output").arg(&run).assert().success();
    quantir().args(["verify", "--verifier"]).arg(format!("trained:{}", verifier.display())).arg("--claims").arg(repo().join("data/quantemp-sample/claims.jsonl")).arg("--run").arg(&run).arg("--index").arg(&index).arg("--output").arg(&preds).assert().success().stderr(contains("verified 12 claims"));
    quantir().args(["verify", "--verifier", "bert:nowhere", "--claims"]).arg(&claims).arg("--output").arg(&preds).assert().code(2).stderr(contains("unknown verifier \"bert:nowhere\": use trained:DIR, stance:DIR, onnx:DIR or llm:MODEL"));
    quantir().args(["verify", "--abstain", "--verifier", "llm:m", "--database"]).arg(dir.path()).arg("--claims").arg(&claims).arg("--output").arg(&preds).assert().code(1).stderr(contains("--abstain and --abstention-rule do not apply with --database"));
    // Evidence given per claim (--evidence), matched by id, and a binary task (--labels true,false).
    let sample: Vec<serde_json::Value> = std::fs::read_to_string(repo().join("data/quantemp-sample/claims.jsonl")).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let given: String = sample.iter().map(|c| format!("{}\n", serde_json::json!({"id": c["id"], "evidence": ["unemployment fell to 3.5 percent in 2019", "a viral post claims otherwise"]}))).collect();
    let given = write(dir.path(), "given.jsonl", given);
    let trained = format!("trained:{}", verifier.display());
    let with_given = |evidence: &std::path::Path, labels: &str| {
        quantir().args(["verify", "--labels", labels, "--verifier", &trained, "--claims"]).arg(repo().join("data/quantemp-sample/claims.jsonl")).arg("--evidence").arg(evidence).arg("--output").arg(&preds).assert()
    };
    with_given(&given, "true,false").success().stderr(contains("verified 12 claims"));
    let predictions: Vec<serde_json::Value> = std::fs::read_to_string(&preds).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(predictions.iter().all(|p| ["True", "False"].contains(&p["label"].as_str().unwrap()) && p["confidence"].as_f64().unwrap() >= 0.5));
    assert!(predictions.iter().all(|p| p["evidence"].as_array().unwrap().len() == 2));
    let partial = write(dir.path(), "partial.jsonl", "{\"id\": \"val-23\", \"evidence\": [\"x\"]}\n");
    with_given(&partial, "true,false,conflicting").code(1).stderr(contains("partial.jsonl: no evidence for claim \"val-26\""));
    let bad = write(dir.path(), "bad.jsonl", "{\"id\": \"val-23\", \"evidence\": [\"x\"]}\n{\"id\": \"val-26\", \"evidence\": \"one text\"}\n");
    with_given(&bad, "true,false,conflicting").code(1).stderr(contains("bad.jsonl:2:1: field \"evidence\": expected an array of strings"));
    quantir().args(["verify", "--labels", "true", "--verifier"]).arg(format!("trained:{}", verifier.display())).arg("--claims").arg(&claims).arg("--output").arg(&preds).assert().code(2).stderr(contains("allows fewer than two labels"));
    // Every feature group: the encoder folder is recorded and found again when verifying.
    let all_groups = dir.path().join("all-groups");
    quantir()
        .args(["train-verifier", "--folds", "0", "--epochs", "20", "--features", "claim-text,evidence-text,dense,numeric", "--claims"])
        .arg(&claims)
        .arg("--output")
        .arg(&all_groups)
        .arg("--dense")
        .arg(repo().join("models/all-minilm-l6-v2"))
        .arg("--ort-lib")
        .arg(repo().join("models/onnxruntime/libonnxruntime.so"))
        .assert()
        .success();
    let saved: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(all_groups.join("verifier.json")).unwrap()).unwrap();
    assert!(saved["encoder_dir"].as_str().unwrap().ends_with("all-minilm-l6-v2"));
    assert_eq!(saved["featurizer"]["groups"], serde_json::json!({"claim_text": true, "evidence_text": true, "dense": true, "numeric": true}));
    quantir().args(["verify", "--verifier"]).arg(format!("trained:{}", all_groups.display())).arg("--claims").arg(&claims).arg("--output").arg(&preds).assert().success().stderr(contains("verified 120 claims"));
    quantir().args(["train-verifier", "--features", "claim-text,words", "--claims"]).arg(&claims).arg("--output").arg(&all_groups).assert().code(2).stderr(contains("unknown feature group \"words\"; expected some of claim-text, evidence-text, dense, numeric"));
}

/// `quantir verify --verifier llm:test-model` against `url`, one claim at a time, no HTTP retries,
/// cache and `pred.jsonl` in `dir`.
fn llm_verify(url: &str, claims: &std::path::Path, dir: &std::path::Path, labels: &str) -> assert_cmd::assert::Assert {
    quantir()
        .args(["verify", "--verifier", "llm:test-model", "--labels", labels, "--llm-concurrency", "1", "--llm-retries", "0", "--llm-url", url, "--claims"])
        .arg(claims)
        .arg("--llm-cache")
        .arg(dir.join("cache"))
        .arg("--output")
        .arg(dir.join("pred.jsonl"))
        .assert()
}

/// (label, confidence) of each line of `dir/pred.jsonl`.
fn verdicts(dir: &std::path::Path) -> Vec<(String, f64)> {
    let text = std::fs::read_to_string(dir.join("pred.jsonl")).unwrap();
    text.lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()).map(|p| (p["label"].as_str().unwrap().to_string(), p["confidence"].as_f64().unwrap())).collect()
}

/// `llm:MODEL` against a real HTTP server on loopback: a good answer, a malformed one re-asked
/// once, and one malformed twice (Conflicting, counted); a rerun comes from the cache.
#[test]
fn llm_verifier_reasks_once_and_caches() {
    use crate::plan::{completion, fake_llm};
    let dir = tempfile::tempdir().unwrap();
    let claims = write(
        dir.path(),
        "claims.jsonl",
        "{\"id\": \"a\", \"claim\": \"Inflation is 3%\", \"evidence\": [\"inflation was 3.2 percent in july\"]}\n\
         {\"id\": \"b\", \"claim\": \"41 homicides per 100,000 people\", \"evidence\": [\"the city recorded 41 homicides per 100,000\"]}\n\
         {\"id\": \"c\", \"claim\": \"The wage is $7.25\", \"evidence\": []}\n",
    );
    let llm = fake_llm(vec![
        (200, completion(r#"{"label": "Conflicting", "confidence": 0.7}"#)),
        (200, completion("Let me think about it.")),
        (200, completion("```json\n{\"label\": \"True\", \"confidence\": 0.9}\n```")),
        (200, completion("no idea")),
        (200, completion("still no idea")),
    ]);
    let run = || llm_verify(&llm.url, &claims, dir.path(), "true,false,conflicting");
    run().success().stderr(contains("1 claims got two malformed answers"));
    assert_eq!(verdicts(dir.path()), [("Conflicting".to_string(), 0.7), ("True".to_string(), 0.9), ("Conflicting".to_string(), 0.0)]);
    let requests = llm.requests.lock().unwrap().clone();
    assert_eq!(requests.len(), 5);
    let reask: serde_json::Value = serde_json::from_str(&requests[2]).unwrap();
    assert_eq!(reask["messages"][2]["role"], "assistant", "the malformed answer is shown back");
    assert_eq!(reask["messages"][2]["content"], "Let me think about it.");
    assert!(reask["messages"][1]["content"].as_str().unwrap().contains("1. the city recorded 41 homicides per 100,000"));
    // The server is gone (its script is spent): a rerun is answered from the cache.
    run().success();
    assert_eq!(llm.requests.lock().unwrap().len(), 5);
}

/// `onnx:DIR` with a small synthetic sequence-classification model (scripts/oracle/make_nli_model.py):
/// every verdict, confidence and per-text stance equals Python onnxruntime's under the documented
/// combination rule, and with `"aggregation"` in its config, the verdict aggregated from the
/// stances equals the rule as the script writes it.
#[test]
fn onnx_verifier_equals_python_onnxruntime() {
    let dir = tempfile::tempdir().unwrap();
    let all: Vec<serde_json::Value> = serde_json::from_str(&std::fs::read_to_string(repo().join("data/quantemp-val/val_claimonly_evidence_question_mapping.json")).unwrap()).unwrap();
    let mut lines = String::new();
    for (i, item) in all.iter().take(40).enumerate() {
        writeln!(lines, "{}", serde_json::json!({"id": i.to_string(), "claim": item["claim"], "evidence": item["evidences"][0]["top_k_doc"]})).unwrap();
    }
    let claims = write(dir.path(), "claims.jsonl", lines);
    let model = dir.path().join("nli");
    std::fs::create_dir(&model).unwrap();
    let made = std::process::Command::new(python())
        .arg(repo().join("scripts/oracle/make_nli_model.py"))
        .arg(repo().join("models/all-minilm-l6-v2/tokenizer.json"))
        .arg(&model)
        .arg(&claims)
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let verify = |name: &str| {
        let preds = dir.path().join(name);
        quantir()
            .args(["verify", "--verifier"])
            .arg(format!("onnx:{}", model.display()))
            .arg("--ort-lib")
            .arg(repo().join("models/onnxruntime/libonnxruntime.so"))
            .arg("--claims")
            .arg(&claims)
            .arg("--output")
            .arg(&preds)
            .assert()
            .success();
        std::fs::read_to_string(&preds).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect::<Vec<serde_json::Value>>()
    };
    let expected: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(model.join("expected.json")).unwrap()).unwrap();
    let close = |a: &serde_json::Value, b: &serde_json::Value| (a.as_f64().unwrap() - b.as_f64().unwrap()).abs() < 1e-5;
    let mut labels = std::collections::HashSet::new();
    for p in verify("pred.jsonl") {
        let want = &expected[p["id"].as_str().unwrap()];
        assert_eq!(p["label"], want[0], "claim {}", p["id"]);
        assert!(close(&p["confidence"], &want[1]), "claim {}: {} vs {}", p["id"], p["confidence"], want[1]);
        labels.insert(p["label"].as_str().unwrap().to_string());
        let stances = p.get("stances").and_then(|s| s.as_array()).cloned().unwrap_or_default();
        assert_eq!(stances.len(), want[2].as_array().unwrap().len(), "claim {}", p["id"]);
        for (got, want) in stances.iter().zip(want[2].as_array().unwrap()) {
            for (k, name) in ["supports", "refutes", "does_not_bear"].into_iter().enumerate() {
                assert!(close(&got[name], &want[k]), "claim {}: {name} {} vs {}", p["id"], got[name], want[k]);
            }
        }
    }
    assert!(labels.len() >= 2, "the synthetic model gives varied verdicts: {labels:?}");
    let config_path = model.join("quantir-verifier.json");
    let mut config: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&config_path).unwrap()).unwrap();
    config["aggregation"] = serde_json::json!({"bears": 0.4, "both": 0.3});
    std::fs::write(&config_path, config.to_string()).unwrap();
    let mut aggregated = std::collections::HashSet::new();
    for p in verify("aggregated.jsonl") {
        let want = &expected[p["id"].as_str().unwrap()];
        assert_eq!(p["label"], want[3], "claim {}", p["id"]);
        assert!(close(&p["confidence"], &want[4]), "claim {}: {} vs {}", p["id"], p["confidence"], want[4]);
        aggregated.insert(p["label"].as_str().unwrap().to_string());
    }
    assert!(aggregated.len() >= 2, "aggregated verdicts vary: {aggregated:?}");
}

/// The character n-gram TF-IDF equals scikit-learn's `TfidfVectorizer(analyzer="char_wb",
/// ngram_range=(2, 5), sublinear_tf=True, min_df=2)`: vocabulary, idf and every value of every
/// row, fitted on 400 real validation claims (several languages) and applied to 100 others.
#[test]
fn char_tfidf_equals_scikit_learn() {
    use quantir::verify::model::text::CharTfidf;
    let dir = tempfile::tempdir().unwrap();
    let all: Vec<serde_json::Value> = serde_json::from_str(&std::fs::read_to_string(repo().join("data/quantemp-val/val_claimonly_evidence_question_mapping.json")).unwrap()).unwrap();
    let claims: Vec<&str> = all.iter().map(|item| item["claim"].as_str().unwrap()).take(500).collect();
    let (fit, apply) = claims.split_at(400);
    let input = write(dir.path(), "claims.json", serde_json::to_string(&claims).unwrap());
    let script = r#"
import json, sys
from sklearn.feature_extraction.text import TfidfVectorizer
claims = json.load(open(sys.argv[1]))
v = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5), sublinear_tf=True, min_df=2).fit(claims[:400])
names = v.get_feature_names_out()
rows = v.transform(claims[400:])
print(json.dumps({"idf": {n: float(x) for n, x in zip(names, v.idf_)},
                  "rows": [{names[j]: float(x) for j, x in zip(rows[i].indices, rows[i].data)} for i in range(rows.shape[0])]}))
"#;
    let oracle = std::process::Command::new(python()).arg("-c").arg(script).arg(&input).output().unwrap();
    assert!(oracle.status.success(), "{}", String::from_utf8_lossy(&oracle.stderr));
    let theirs: serde_json::Value = serde_json::from_slice(&oracle.stdout).unwrap();
    let ours = CharTfidf::fit(fit, 2, 5, 2);
    let names: std::collections::HashMap<u32, &str> = ours.vocabulary.iter().map(|(g, &c)| (c, g.as_str())).collect();
    let their_idf = theirs["idf"].as_object().unwrap();
    assert_eq!(ours.len(), their_idf.len(), "vocabulary size");
    for (gram, &column) in &ours.vocabulary {
        let idf = their_idf.get(gram).unwrap_or_else(|| panic!("{gram:?} is not in scikit-learn's vocabulary")).as_f64().unwrap();
        assert!((f64::from(ours.idf[column as usize]) - idf).abs() < 1e-5, "idf of {gram:?}");
    }
    for (text, their_row) in apply.iter().zip(theirs["rows"].as_array().unwrap()) {
        let row = ours.transform(text);
        let their_row = their_row.as_object().unwrap();
        assert_eq!(row.len(), their_row.len(), "non-zeros of {text:?}");
        for (column, value) in row {
            let theirs = their_row[names[&column]].as_f64().unwrap();
            assert!((f64::from(value) - theirs).abs() < 1e-5, "{:?} in {text:?}: {value} vs {theirs}", names[&column]);
        }
    }
}

/// The trained verifier learns from real claims, and its verdicts depend on the evidence: 3-fold CV
/// over the first 1,000 validation claims (100 epochs and 2 inner folds, to keep the debug build
/// quick) scores well above chance (macro-F1 about 0.33; quantir gets 0.51) — a broken feature,
/// label or gradient falls to chance — and the same held-out claims with evidence swapped in from
/// other claims are withheld as Not Enough Info far more often than with their own.
#[test]
fn trained_verifier_learns_real_claims_and_needs_their_evidence() {
    use quantir::verify::model::trained::{cross_validate, TrainConfig, TrainingSet};
    let examples = quantir::verify::read_examples(&repo().join("data/quantemp-val/val_claimonly_evidence_question_mapping.json")).unwrap();
    let mut config = TrainConfig { folds: 3, inner_folds: 2, ..TrainConfig::default() };
    config.linear.epochs = 100;
    let set = TrainingSet::prepare(examples[..1000].to_vec(), None, &config, &quantir::io::NoProgress).unwrap();
    let report = cross_validate(&set, &config, &quantir::io::NoProgress).unwrap();
    assert!(report.scores.macro_f1 > 0.45, "macro-F1 {}", report.scores.macro_f1);
    let nei = |p: &[quantir::verify::Prediction]| p.iter().filter(|p| p.label == quantir::verify::Label::NotEnoughInfo).count() as f64 / p.len() as f64;
    let (own, swapped) = (nei(&report.predictions), nei(&report.swapped));
    assert_eq!(report.swapped.len(), 1000);
    assert!(swapped > own + 0.4, "Not Enough Info for {own:.3} with own evidence, {swapped:.3} with swapped evidence");
    // Swapping keeps the claim and its verdict's inputs apart from the evidence: same ids, in order.
    assert!(report.swapped.iter().zip(&report.predictions).all(|(s, p)| s.id == p.id));
}

/// `--labels true,false` with `llm:`: the prompt offers only True and False, an answer outside
/// them is re-asked, a claim with two such answers falls back to False, and "not enough info" is
/// False at once (CoverBench counts "cannot be verified" as Incorrect).
#[test]
fn llm_verifier_keeps_to_the_allowed_labels() {
    use crate::plan::{completion, fake_llm};
    let dir = tempfile::tempdir().unwrap();
    let claims = write(
        dir.path(),
        "claims.jsonl",
        "{\"id\": \"a\", \"claim\": \"Inflation is 3%\", \"evidence\": [\"inflation was 3.2 percent\"]}\n{\"id\": \"b\", \"claim\": \"The wage is $7.25\", \"evidence\": []}\n{\"id\": \"c\", \"claim\": \"41 per 100,000\", \"evidence\": []}\n",
    );
    let llm = fake_llm(vec![
        (200, completion(r#"{"label": "Conflicting", "confidence": 0.7}"#)),
        (200, completion(r#"{"label": "True", "confidence": 0.8}"#)),
        (200, completion("Conflicting")),
        (200, completion("maybe")),
        (200, completion(r#"{"label": "cannot be verified", "confidence": 0.6}"#)),
    ]);
    llm_verify(&llm.url, &claims, dir.path(), "true,false").success().stderr(contains("1 claims got two malformed answers"));
    assert_eq!(verdicts(dir.path()), [("True".to_string(), 0.8), ("False".to_string(), 0.0), ("False".to_string(), 0.6)]);
    assert_eq!(llm.requests.lock().unwrap().len(), 5, "no re-ask for \"cannot be verified\"");
    let first: serde_json::Value = serde_json::from_str(&llm.requests.lock().unwrap()[0]).unwrap();
    let system = first["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains(r#"{"label": "True" | "False", "confidence""#), "{system}");
    assert!(first["messages"][1]["content"].as_str().unwrap().ends_with("Is the claim True or False?"));
}

/// CoverBench's records as published (`context`, boolean `label`): every fixture table parses, and
/// an `llm:` verifier gets each context within the token budget, trimmed from its beginning.
#[test]
fn coverbench_contexts_tables_and_the_token_budget() {
    use crate::plan::{completion, fake_llm};
    use quantir::verify::evidence::table::{find_tables, TableFormat};
    let fixture = repo().join("tests/fixtures/coverbench/claims.jsonl");
    let examples = quantir::verify::read_examples(&fixture).unwrap();
    assert_eq!(examples.len(), 5);
    let tables: Vec<_> = examples.iter().map(|e| find_tables(&e.evidence[0])).collect();
    let formats: Vec<TableFormat> = tables.iter().map(|t| t[0].format).collect();
    assert_eq!(formats, [TableFormat::Html, TableFormat::Html, TableFormat::Json, TableFormat::Json, TableFormat::Markdown]);
    assert_eq!(tables[0][0].table.header, ["year", "revenue", "employees"]);
    assert_eq!(tables[0][0].table.rows[1][1].number, Some(1450.0));
    assert_eq!(tables[2][0].table.header, ["year", "rate"], "records keep their column order");
    assert_eq!(tables[3][0].table.rows[1].iter().map(|c| c.text.as_str()).collect::<Vec<_>>(), ["Springfield", "2023", "12"]);
    assert_eq!(tables[4][0].table.rows[1][2].number, Some(3.2));
    let gold = quantir::verify::read_gold(&fixture).unwrap();
    assert_eq!(gold["cb-3"].label, quantir::verify::Label::False);

    let dir = tempfile::tempdir().unwrap();
    let answers = (0..5).map(|_| (200, completion(r#"{"label": "True", "confidence": 0.5}"#))).collect();
    let llm = fake_llm(answers);
    quantir()
        .args(["verify", "--verifier", "llm:m", "--labels", "true,false", "--context-tokens", "20", "--llm-concurrency", "1", "--llm-retries", "0", "--llm-url", &llm.url, "--claims"])
        .arg(&fixture)
        .arg("--llm-cache")
        .arg(dir.path().join("cache"))
        .arg("--output")
        .arg(dir.path().join("pred.jsonl"))
        .assert()
        .success();
    let first: serde_json::Value = serde_json::from_str(&llm.requests.lock().unwrap()[0]).unwrap();
    let prompt = first["messages"][1]["content"].as_str().unwrap();
    let evidence = prompt.split("Evidence:\n").nth(1).unwrap().split("\n\nIs the claim").next().unwrap();
    assert!(evidence.starts_with("[… ") && evidence.contains(" characters trimmed] "), "{evidence}");
    assert!(evidence.ends_with("</table>\nFigures are unaudited."), "the end of the context is kept: {evidence}");
    let kept = evidence.split("trimmed] ").nth(1).unwrap();
    assert!(kept.len() <= 20 * 4, "within 20 tokens at 4 bytes a token: {} bytes", kept.len());
}
