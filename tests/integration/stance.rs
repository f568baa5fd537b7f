//! The stance verifier (`quantir train-stance`, `--verifier stance:DIR`): trained on CLIMATE-FEVER's
//! annotated sentences, scored as scikit-learn scores its out-of-fold stances, reading the
//! evidence (the issue's Finland example, swapped evidence), refusing another encoder, and bad
//! records named by file, line and field.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use predicates::prelude::PredicateBooleanExt;
use predicates::str::contains;

use crate::util::{python, quantir, repo, write};

/// A stance model trained once for the tests that need one: all 768 claims, 5 grouped folds.
pub fn trained() -> &'static Path {
    static DIR: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("stance");
        quantir().args(["train-stance", "--claims"]).arg(repo().join("data/climate-fever/claims.jsonl")).arg("--output").arg(&out).assert().success();
        (dir, out)
    })
    .1
}

pub const FINLAND: &str = "Finland: 12 of its 19 cabinet members are women";

#[test]
fn stance_model_learns_climate_fever_and_its_scores_equal_scikit_learn() {
    let dir = trained();
    let cv: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("cv_scores.json")).unwrap()).unwrap();
    // The trained verifier read as a stance scored 0.4013 macro-F1 on these folds, and another
    // claim's sentences changed 12.2% of its verdicts (scripts/bench_verify_climate_fever.sh).
    let macro_f1 = cv["stances"]["macro_f1"].as_f64().unwrap();
    assert!(macro_f1 > 0.45, "stance macro-F1 {macro_f1}");
    assert!(cv["claims_three_way"]["macro_f1"].as_f64().unwrap() > 0.42, "{}", cv["claims_three_way"]);
    assert!(cv["swap_changed"].as_f64().unwrap() > 0.5, "{}", cv["swap_changed"]);
    assert!(cv["stance_ece"].as_f64().unwrap() < 0.05 && cv["stance_ece_uncalibrated"].as_f64().unwrap() > cv["stance_ece"].as_f64().unwrap(), "{cv}");
    let script = r#"
import json, sys
from sklearn.metrics import accuracy_score, f1_score
rows = [json.loads(l) for l in open(sys.argv[1])]
gold, pred = [r["gold"] for r in rows], [r["stance"] for r in rows]
assert len({(r["id"], r["text"]) for r in rows}) == len(rows) == 3840
print(json.dumps({"accuracy": accuracy_score(gold, pred), "macro_f1": f1_score(gold, pred, average="macro"), "weighted_f1": f1_score(gold, pred, average="weighted")}))
"#;
    let out = std::process::Command::new(python()).arg("-c").arg(script).arg(dir.join("cv_stances.jsonl")).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let sklearn: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for measure in ["accuracy", "macro_f1", "weighted_f1"] {
        let (ours, theirs) = (cv["stances"][measure].as_f64().unwrap(), sklearn[measure].as_f64().unwrap());
        assert!((ours - theirs).abs() < 1e-9, "{measure}: quantir {ours}, scikit-learn {theirs}");
    }
    let provenance = std::fs::read_to_string(dir.join("provenance.json")).unwrap();
    assert!(provenance.contains("claims.jsonl") && provenance.contains("model.int8.onnx"), "{provenance}");
}

#[test]
fn stance_verifier_reads_the_evidence_and_numbers_written_as_words() {
    let tmp = tempfile::tempdir().unwrap();
    let claims = [
        serde_json::json!({"id": "finland", "claim": FINLAND, "evidence": ["twelve of the nineteen new finnish cabinet members are women", "Finland's new government was sworn in on Tuesday."]}),
        serde_json::json!({"id": "swapped", "claim": FINLAND, "evidence": ["Two men were sentenced to eight months in prison for throwing bacon at a mosque."]}),
    ];
    let claims = write(tmp.path(), "claims.jsonl", claims.iter().map(|c| c.to_string() + "\n").collect::<String>());
    let pred = tmp.path().join("pred.jsonl");
    let spec = format!("stance:{}", trained().display());
    quantir().args(["verify", "--verifier", &spec, "--claims"]).arg(&claims).arg("--output").arg(&pred).assert().success();
    let predictions: Vec<serde_json::Value> = std::fs::read_to_string(&pred).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let finland = &predictions[0];
    assert!(["True", "Not Enough Info"].contains(&finland["label"].as_str().unwrap()), "{finland}");
    let stances = finland["stances"].as_array().unwrap();
    assert_eq!(stances.len(), 2);
    assert_eq!(stances[0]["stance"], "supports", "{finland}");
    let p = |s: &serde_json::Value| ["supports", "refutes", "does_not_bear"].map(|k| s[k].as_f64().unwrap());
    assert!(stances.iter().all(|s| (p(s).iter().sum::<f64>() - 1.0).abs() < 1e-6));
    let summaries: Vec<&str> = finland["comparisons"].as_array().unwrap().iter().map(|c| c["summary"].as_str().unwrap()).collect();
    assert_eq!(summaries, ["claim: 12 of 19 — evidence: 12 of 19, +0%"]);
    let swapped = &predictions[1];
    assert_eq!((swapped["label"].as_str(), swapped["stances"][0]["stance"].as_str()), (Some("Not Enough Info"), Some("does_not_bear")), "{swapped}");

    // A model folder is read only as train-stance wrote it: any edit of stance.json — even one
    // that leaves a valid model —, a missing record, or a record of another kind of folder is
    // refused by its provenance before anything is judged.
    let copy = tmp.path().join("stance");
    std::fs::create_dir(&copy).unwrap();
    for file in ["stance.json", "provenance.json"] {
        std::fs::copy(trained().join(file), copy.join(file)).unwrap();
    }
    let verify = |expected: &str| {
        let out = tmp.path().join("other.jsonl");
        quantir()
            .args(["verify", "--verifier", &format!("stance:{}", copy.display()), "--claims"])
            .arg(&claims)
            .arg("--output")
            .arg(&out)
            .assert()
            .failure()
            .stderr(contains(expected).and(contains("quantir train-stance")));
        assert!(!out.exists(), "{expected}: no predictions from a refused model");
    };
    let original: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(trained().join("stance.json")).unwrap()).unwrap();
    let mut edited = original.clone();
    edited["aggregation"]["bears"] = 0.2.into();
    std::fs::write(copy.join("stance.json"), edited.to_string()).unwrap();
    verify("stance.json: its bytes changed since they were written");
    let record: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(trained().join("provenance.json")).unwrap()).unwrap();
    let mut other_kind = record.clone();
    other_kind["artifact"] = "verifier".into();
    std::fs::write(copy.join("provenance.json"), other_kind.to_string()).unwrap();
    verify("provenance.json: it records a verifier folder, not a stance-model");
    std::fs::remove_file(copy.join("provenance.json")).unwrap();
    verify("provenance.json: missing");

    // Behind the record, the model itself is checked (a record forged to match each edit, as a
    // quantir that wrote a wrong model would leave it): another encoder's vectors (here: the same
    // name, other weights) are refused, not judged; so are weights cut short and a temperature
    // that is no temperature.
    type Damage = fn(&mut serde_json::Value);
    let damages: [(Damage, &str); 3] = [
        (|m| m["encoder_sha256"] = "0".repeat(64).into(), "the stance model was trained on the vectors of"),
        (|m| m["model"]["weights"].as_array_mut().unwrap().truncate(10), "field \"model.weights\": expected 3 × (4 × dim + 4) = 4620 values for dim 384, found 10 values"),
        (|m| m["temperature"] = (-1.0).into(), "field \"temperature\": expected a positive number"),
    ];
    for (damage, message) in damages {
        let mut model = original.clone();
        damage(&mut model);
        std::fs::write(copy.join("stance.json"), model.to_string()).unwrap();
        let mut forged = record.clone();
        forged["output"] = serde_json::to_value(quantir::io::Digest::of_file(&copy.join("stance.json")).unwrap()).unwrap();
        std::fs::write(copy.join("provenance.json"), forged.to_string()).unwrap();
        verify(message);
    }
}

#[test]
fn bad_stance_records_are_named_by_file_line_and_field() {
    let tmp = tempfile::tempdir().unwrap();
    let good = r#"{"claim_id": "1", "claim": "Seas are rising.", "claim_label": "SUPPORTS", "evidences": [{"evidence": "Sea level rose 20 cm.", "evidence_label": "SUPPORTS"}]}"#;
    let cases = [
        (r#"{"claim_id": "2", "claim": "Ice is growing.", "claim_label": "REFUTES", "evidences": [{"evidence": "a"}, {"evidence": "b", "evidence_label": "SUPPORTS"}]}"#, "claims.jsonl:2", "\"evidences[0].evidence_label\": expected a string, found nothing"),
        (r#"{"claim_id": "2", "claim": "Ice is growing.", "claim_label": "MAYBE", "evidences": [{"evidence": "a", "evidence_label": "SUPPORTS"}]}"#, "claims.jsonl:2", "\"claim_label\": expected SUPPORTS, REFUTES, DISPUTED or NOT_ENOUGH_INFO, found \"MAYBE\""),
        (r#"{"claim_id": "2", "claim": "Ice is growing.", "claim_label": "REFUTES", "evidences": []}"#, "claims.jsonl:2", "\"evidences\": expected a non-empty array"),
        (r#"{"claim_id": "1", "claim": "Ice is growing.", "claim_label": "REFUTES", "evidences": [{"evidence": "a", "evidence_label": "SUPPORTS"}]}"#, "claims.jsonl:2", "duplicate id \"1\" (first at line 1)"),
    ];
    for (second, place, message) in cases {
        let claims = write(tmp.path(), "claims.jsonl", format!("{good}\n{second}\n"));
        let out = tmp.path().join("out");
        quantir().args(["train-stance", "--claims"]).arg(&claims).arg("--output").arg(&out).assert().failure().stderr(contains(place).and(contains(message)));
        assert!(!out.join("stance.json").exists(), "nothing is written from bad input");
    }
}
