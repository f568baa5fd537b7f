//! Acceptance: SciFact test, flat BM25 k1=0.9 b=0.4, k=1000, --remove-query, scored by
//! trec_eval's own code (pytrec_eval), not by quantir: nDCG@10 ≥ 0.675 and R@100 ≥ 0.92
//! (Anserini: 0.6789 / 0.9253). Also: quantir's evaluator equals pytrec_eval per query.

use std::process::Command;

use crate::util::{python, quantir, repo};

#[test]
fn scifact_bm25_meets_the_anserini_reference() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("scifact");
    let run = dir.path().join("scifact.run");
    let qrels = repo().join("data/scifact/qrels/test.tsv");
    quantir().args(["index", "--corpus"]).arg(repo().join("data/scifact")).arg("--index").arg(&index).assert().success();
    quantir()
        .args(["run", "-k", "1000", "--remove-query", "--index"])
        .arg(&index)
        .arg("--claims")
        .arg(repo().join("data/scifact"))
        .arg("--qrels")
        .arg(&qrels)
        .arg("--output")
        .arg(&run)
        .assert()
        .success();

    let measures = ["ndcg_cut.10", "recall.100", "recall.10", "recip_rank", "map"];
    let mut oracle = Command::new(python());
    oracle.arg(repo().join("scripts/oracle/trec_eval.py")).arg(&qrels).arg(&run).arg("--complete").arg("--per-query");
    for m in measures {
        oracle.args(["-m", m]);
    }
    let out = oracle.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let trec: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ndcg = trec["all"]["ndcg_cut_10"].as_f64().unwrap();
    let recall = trec["all"]["recall_100"].as_f64().unwrap();
    eprintln!("SciFact BM25 by pytrec_eval: nDCG@10 {ndcg:.4}, R@100 {recall:.4} (Anserini 0.6789 / 0.9253)");
    assert_eq!(trec["num_q"], 300);
    assert!(ndcg >= 0.675, "nDCG@10 {ndcg}");
    assert!(recall >= 0.92, "R@100 {recall}");

    let mut ours = quantir();
    ours.args(["eval", "--json", "--per-query", "--complete", "--qrels"]).arg(&qrels).arg("--run").arg(&run);
    for m in measures {
        ours.args(["-m", m]);
    }
    let ours: serde_json::Value = serde_json::from_slice(&ours.assert().success().get_output().stdout).unwrap();
    let theirs = trec["per_query"].as_object().unwrap();
    assert_eq!(ours["per_query"].as_object().unwrap().len(), theirs.len());
    for (qid, values) in theirs {
        for (key, value) in values.as_object().unwrap() {
            let mine = ours["per_query"][qid][key].as_f64().unwrap_or_else(|| panic!("{qid} {key} missing"));
            assert!((mine - value.as_f64().unwrap()).abs() <= 1e-9, "{qid} {key}: {mine} vs {value}");
        }
    }
}
