//! `quantir experiment quantemp` end to end on a small QuanTemp++-layout folder built from the
//! bundled real QuanTemp sample; its tables are checked against pytrec_eval and scipy computed
//! on the same run files.

use predicates::str::contains;

use crate::util::{python, quantir, repo, write};

/// A QuanTemp++ folder: the sample's 732 dated snippets as corpus.json; its 12 claims as test.json
/// (position ids) with three decompositions each, derived from the claim's words; its qrels by
/// position; and a QGen CSV.
fn folder(dir: &std::path::Path) -> std::path::PathBuf {
    let data = dir.join("qt");
    std::fs::create_dir(&data).unwrap();
    std::fs::copy(repo().join("data/quantemp-sample/corpus.json"), data.join("corpus.json")).unwrap();
    let claims: Vec<serde_json::Value> = std::fs::read_to_string(repo().join("data/quantemp-sample/claims.jsonl")).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let position: std::collections::HashMap<String, usize> = claims.iter().enumerate().map(|(i, c)| (c["id"].as_str().unwrap().to_string(), i)).collect();
    let test: Vec<serde_json::Value> = claims
        .iter()
        .map(|c| {
            let words: Vec<&str> = c["text"].as_str().unwrap().split_whitespace().collect();
            let half = words.len() / 2;
            serde_json::json!({
                "claim": c["text"], "published": c["date"], "label": c["label"],
                "in_file": {words[..half].join(" "): [], words[half..].join(" "): []},
                "decomp_questions": [format!("Is it true that {}?", words[..half.max(1)].join(" "))],
                "pgmfc_questions": [format!("Question1 = What is {}?", words[half..].join(" "))],
            })
        })
        .collect();
    write(&data, "test.json", serde_json::to_string(&test).unwrap());
    let mut qrels: std::collections::BTreeMap<String, std::collections::BTreeMap<String, i32>> = Default::default();
    for line in std::fs::read_to_string(repo().join("data/quantemp-sample/qrels.tsv")).unwrap().lines() {
        let f: Vec<&str> = line.split(' ').collect();
        qrels.entry(position[f[0]].to_string()).or_default().insert(f[2].to_string(), 1);
    }
    write(&data, "test_qrels.json", serde_json::to_string(&qrels).unwrap());
    let mut qgen = String::from("claim,gpt_out\n");
    for c in &claims {
        let text = c["text"].as_str().unwrap();
        let words: Vec<&str> = text.split_whitespace().collect();
        qgen.push_str(&format!("\"{}\",\"{} [SEP] {}\"\n", text.replace('"', "\"\""), words[..3.min(words.len())].join(" ").replace('"', "\"\""), words.iter().rev().take(4).copied().collect::<Vec<_>>().join(" ").replace('"', "\"\"")));
    }
    write(&data, "qgen_out.csv", qgen);
    data
}

#[test]
fn experiment_tables_equal_pytrec_eval_and_scipy_on_its_runs() {
    let dir = tempfile::tempdir().unwrap();
    let data = folder(dir.path());
    let out = dir.path().join("out");
    let first = quantir().args(["experiment", "quantemp", "--data"]).arg(&data).arg("--output").arg(&out).assert().success().stderr(contains("runs and measures")).get_output().stdout.clone();
    let tables = String::from_utf8(first).unwrap();
    assert!(tables.contains("| Claim only |") && tables.contains("| QGen |") && tables.contains("| quantir numeric |"), "{tables}");
    assert!(tables.contains("post-filter"));
    assert_eq!(std::fs::read_to_string(out.join("tables.md")).unwrap(), tables);
    let grid: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("grid.json")).unwrap()).unwrap();
    assert_eq!(grid["cells"].as_array().unwrap().len(), 12, "6 planners x with and without the filter");
    // The oracle: pytrec_eval on each run file, scipy's paired t-test against claim only.
    let script = r#"
import json, sys, pytrec_eval
from scipy.stats import ttest_rel
grid = json.load(open(sys.argv[1])); qrels = {q: {d: int(r) for d, r in ds.items()} for q, ds in json.load(open(sys.argv[2])).items()}
keys = ["ndcg_cut_10", "recall_10", "recall_100", "recip_rank"]
def per_query(path):
    run = {}
    for line in open(path):
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {})[d] = float(s)
    values = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "recall.10,100", "recip_rank"}).evaluate(run)
    # Judged claims missing from the run count 0 (trec_eval -c).
    return {q: [values.get(q, {}).get(k, 0.0) for k in keys] for q in qrels}
out = []
for cell in grid["cells"]:
    pq = per_query(cell["run"])
    base = next(c for c in grid["cells"] if c["planner"] == "claim-only" and c["filter"] == cell["filter"] and c["retriever"] == cell["retriever"])
    bq = per_query(base["run"])
    qs = sorted(qrels)
    means = [sum(pq[q][m] for q in qs) / len(qs) for m in range(4)]
    ps = [None if cell is base else float(ttest_rel([pq[q][m] for q in qs], [bq[q][m] for q in qs]).pvalue) for m in range(4)]
    ps = ["nan" if p is not None and p != p else p for p in ps]
    out.append({"means": means, "p": ps})
print(json.dumps(out))
"#;
    let oracle = std::process::Command::new(python()).arg("-c").arg(script).arg(out.join("grid.json")).arg(data.join("test_qrels.json")).output().unwrap();
    assert!(oracle.status.success(), "{}", String::from_utf8_lossy(&oracle.stderr));
    let theirs: Vec<serde_json::Value> = serde_json::from_slice(&oracle.stdout).unwrap();
    for (cell, t) in grid["cells"].as_array().unwrap().iter().zip(&theirs) {
        for m in 0..4 {
            let (a, b) = (cell["means"][m].as_f64().unwrap(), t["means"][m].as_f64().unwrap());
            assert!((a - b).abs() < 1e-9, "{} {} measure {m}: quantir {a} vs pytrec_eval {b}", cell["planner"], cell["filter"]);
            match (cell["p_values"][m].as_f64(), &t["p"][m]) {
                (Some(a), serde_json::Value::Number(b)) => assert!((a - b.as_f64().unwrap()).abs() < 1e-9, "{} p {m}: {a} vs scipy {b}", cell["planner"]),
                // scipy gives NaN where every difference is 0; quantir's test then says 1 (no difference).
                (Some(a), serde_json::Value::String(nan)) if nan == "nan" => assert_eq!(a, 1.0, "{} p {m}", cell["planner"]),
                (None, serde_json::Value::Null) => {}
                other => panic!("{} measure {m}: {other:?}", cell["planner"]),
            }
        }
    }
    // The post-filter rows: one per planner, the exact means those of the filtered cells.
    let post = grid["post_filter"].as_array().unwrap();
    assert_eq!(post.len(), 6);
    assert_eq!(post[0]["exact"], grid["cells"][0]["means"]);
    // A rerun reuses every run (resumable) and writes the same tables.
    let again = quantir().args(["experiment", "quantemp", "--data"]).arg(&data).arg("--output").arg(&out).assert().success().stderr(contains("reusing")).get_output().stdout.clone();
    assert_eq!(String::from_utf8(again).unwrap(), tables);
    // A folder that is not QuanTemp++'s.
    quantir().args(["experiment", "quantemp", "--data"]).arg(dir.path()).arg("--output").arg(&out).assert().code(1).stderr(contains("has no corpus.json: a QuanTemp++ folder holds"));
}
