//! `quantir fuse` equals ranx's `fuse` per query to 1e-9 on SciFact runs; the conventions where
//! the tools differ have their own tests.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use quantir::fuse::{fuse_query, ConstantPolicy, FusionConfig, Method, Norm};

use crate::util::{python, quantir, repo, scifact_run};

/// Three SciFact runs (BM25 with three k1/b settings, top 100). Scores get −rank·1e-7 so that no
/// two documents tie: ranx orders ties by an unstable argsort, quantir by docid.
fn runs(dir: &Path) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    for (name, k1, b) in [("a", "0.9", "0.4"), ("b", "1.2", "0.75"), ("c", "0.5", "0.9")] {
        let raw = dir.join(format!("{name}.raw"));
        quantir()
            .args(["run", "-k", "100", "--remove-query", "--k1", k1, "--b", b, "--index"])
            .arg(&scifact_run().index)
            .arg("--claims")
            .arg(repo().join("data/scifact"))
            .arg("--qrels")
            .arg(repo().join("data/scifact/qrels/test.tsv"))
            .arg("--output")
            .arg(&raw)
            .assert()
            .success();
        let text: String = std::fs::read_to_string(&raw)
            .unwrap()
            .lines()
            .map(|l| {
                let f: Vec<&str> = l.split(' ').collect();
                let score = f[4].parse::<f64>().unwrap() - f[3].parse::<f64>().unwrap() * 1e-7;
                format!("{} Q0 {} {} {score} {name}\n", f[0], f[2], f[3])
            })
            .collect();
        let path = dir.join(format!("{name}.run"));
        std::fs::write(&path, text).unwrap();
        paths.push(path);
    }
    paths
}

fn read_run(path: &Path) -> HashMap<String, HashMap<String, f64>> {
    let mut run: HashMap<String, HashMap<String, f64>> = HashMap::new();
    for line in std::fs::read_to_string(path).unwrap().lines() {
        let f: Vec<&str> = line.split(' ').collect();
        run.entry(f[0].to_string()).or_default().insert(f[2].to_string(), f[4].parse().unwrap());
    }
    run
}

#[test]
fn fuse_equals_ranx() {
    let dir = tempfile::tempdir().unwrap();
    let runs = runs(dir.path());
    // (quantir method, ranx method, norm, weights)
    let mut combos: Vec<(&str, &str, &str, &str)> = Vec::new();
    for norm in ["min-max", "max", "sum", "zmuv"] {
        combos.push(("combsum", "sum", norm, ""));
        combos.push(("combmax", "max", norm, ""));
        combos.push(("combmnz", "mnz", norm, ""));
        combos.push(("wsum", "wsum", norm, "0.5,0.3,0.2"));
    }
    combos.push(("combsum", "sum", "rank", ""));
    combos.push(("rrf", "rrf", "none", ""));
    combos.push(("combmax-norm", "max", "min-max", ""));
    let keys: Vec<String> = combos.iter().map(|(_, m, n, w)| if w.is_empty() { format!("{m}:{n}") } else { format!("{m}:{n}:{w}") }).collect();
    let oracle_out = dir.path().join("ranx.json");
    let out = std::process::Command::new(python())
        .arg(repo().join("scripts/oracle/ranx_fuse.py"))
        .arg(&oracle_out)
        .args(&runs)
        .arg("--combos")
        .args(&keys)
        .output()
        .unwrap();
    assert!(out.status.success(), "ranx failed: {}", String::from_utf8_lossy(&out.stderr));
    let ranx: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&oracle_out).unwrap()).unwrap();
    for ((method, _, norm, weights), key) in combos.iter().zip(&keys) {
        let fused = dir.path().join("fused.run");
        let mut command = quantir();
        command.args(["fuse", "-k", "10000", "--method", method]).args(&runs).arg("--output").arg(&fused);
        if *method != "rrf" && *method != "combmax-norm" {
            command.args(["--norm", norm]);
        }
        if !weights.is_empty() {
            command.args(["--weights", weights]);
        }
        command.assert().success();
        let ours = read_run(&fused);
        let theirs = ranx[key].as_object().unwrap();
        assert_eq!(ours.len(), theirs.len(), "{key}: queries");
        for (qid, docs) in theirs {
            let docs = docs.as_object().unwrap();
            assert_eq!(ours[qid].len(), docs.len(), "{key} {qid}: documents");
            for (doc, score) in docs {
                let mine = ours[qid][doc];
                let theirs = score.as_f64().unwrap();
                assert!((mine - theirs).abs() <= 1e-9, "{key} query {qid} doc {doc}: quantir {mine} vs ranx {theirs}");
            }
        }
    }
}

fn fused(method: Method, constant: ConstantPolicy, lists: &[Vec<(u32, f64)>]) -> Vec<(u32, f64)> {
    let config = FusionConfig { method, norm: Some(Norm::MinMax), constant, ..Default::default() };
    fuse_query(lists, &config, 100)
}

#[test]
fn a_single_result_list_under_min_max() {
    // Sub-query 1 finds documents 1 and 2; sub-query 2 finds only document 3, with raw score 7.
    let lists = vec![vec![(1, 10.0), (2, 4.0)], vec![(3, 7.0)]];
    assert_eq!(fused(Method::CombMax, ConstantPolicy::Zero, &lists), vec![(1, 1.0), (3, 0.0), (2, 0.0)], "ranx: the lone result scores 0");
    assert_eq!(fused(Method::CombMax, ConstantPolicy::One, &lists), vec![(3, 1.0), (1, 1.0), (2, 0.0)], "Pyserini: it scores 1");
    assert_eq!(fused(Method::CombMax, ConstantPolicy::Raw, &lists), vec![(3, 7.0), (1, 1.0), (2, 0.0)], "QuanTemp++: its raw 7");
}

#[test]
fn missing_documents_add_nothing_to_sums_and_are_ignored_by_max() {
    let lists = vec![vec![(1, 1.0), (2, 0.5), (3, 0.0)], vec![(2, 1.0), (4, 0.0)]];
    let config = |method| FusionConfig { method, norm: Some(Norm::None), ..Default::default() };
    // CombSUM: 2 → 0.5 + 1.0; 1 → 1.0 (+ 0 from the list that misses it).
    assert_eq!(fuse_query(&lists, &config(Method::CombSum), 10), vec![(2, 1.5), (1, 1.0), (4, 0.0), (3, 0.0)]);
    // CombMNZ: 2 is in both lists: (0.5 + 1.0) · 2.
    assert_eq!(fuse_query(&lists, &config(Method::CombMnz), 10)[0], (2, 3.0));
    // CombMAX: a missing document is not scored low, it is not scored: 4 keeps its 0.
    assert_eq!(fuse_query(&lists, &config(Method::CombMax), 10), vec![(2, 1.0), (1, 1.0), (4, 0.0), (3, 0.0)]);
    // RRF ranks from 1 with k = 60.
    let rrf = fuse_query(&lists, &config(Method::Rrf), 10);
    assert!((rrf[0].1 - (1.0 / 62.0 + 1.0 / 61.0)).abs() < 1e-15 && rrf[0].0 == 2);
}
