//! `quantir experiment quantemp` end to end on a small QuanTemp++-layout folder built from the
//! bundled real QuanTemp sample; its retrieval tables are checked against pytrec_eval and scipy
//! computed on the same run files, its verification table against scikit-learn and scipy on the
//! same prediction files.

use predicates::prelude::PredicateBooleanExt;
use predicates::str::contains;

use crate::util::{python, quantir, repo, write};

/// Three decompositions of a claim, derived from its words, in QuanTemp++'s fields.
fn decompositions(text: &str) -> serde_json::Value {
    let words: Vec<&str> = text.split_whitespace().collect();
    let half = words.len() / 2;
    serde_json::json!({
        "in_file": {words[..half].join(" "): [], words[half..].join(" "): []},
        "decomp_questions": [format!("Is it true that {}?", words[..half.max(1)].join(" "))],
        "pgmfc_questions": [format!("Question1 = What is {}?", words[half..].join(" "))],
    })
}

/// A QuanTemp++ folder: the sample's 732 dated snippets as corpus.json; its 12 claims as test.json
/// (position ids) with three decompositions each, derived from the claim's words; its qrels by
/// position; a QGen CSV; and as train.json the first 90 real QuanTemp validation claims with their
/// real labels and derived decompositions, dated 2024-01-01 (the data has no dates for them, and
/// an experiment leaves undated claims out: after every snippet, the cutoff keeps them all).
pub fn folder(dir: &std::path::Path) -> std::path::PathBuf {
    let data = dir.join("qt");
    std::fs::create_dir(&data).unwrap();
    std::fs::copy(repo().join("data/quantemp-sample/corpus.json"), data.join("corpus.json")).unwrap();
    let claims: Vec<serde_json::Value> = std::fs::read_to_string(repo().join("data/quantemp-sample/claims.jsonl")).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let position: std::collections::HashMap<String, usize> = claims.iter().enumerate().map(|(i, c)| (c["id"].as_str().unwrap().to_string(), i)).collect();
    let test: Vec<serde_json::Value> = claims
        .iter()
        .map(|c| {
            let mut claim = decompositions(c["text"].as_str().unwrap());
            claim["claim"] = c["text"].clone();
            claim["published"] = c["date"].clone();
            claim["label"] = c["label"].clone();
            claim
        })
        .collect();
    write(&data, "test.json", serde_json::to_string(&test).unwrap());
    let val: Vec<serde_json::Value> = serde_json::from_str(&std::fs::read_to_string(repo().join("data/quantemp-val/val_claimonly_evidence_question_mapping.json")).unwrap()).unwrap();
    let train: Vec<serde_json::Value> = val
        .iter()
        .take(90)
        .map(|v| {
            let text = v["claim"].as_str().unwrap().replace("/n", " ");
            let mut claim = decompositions(&text);
            claim["claim"] = text.into();
            claim["label"] = v["label"].clone();
            claim["published"] = "2024-01-01".into();
            claim
        })
        .collect();
    write(&data, "train.json", serde_json::to_string(&train).unwrap());
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
    // The paper's Table 4 under each planner it has (as printed; – where it has no such row), none
    // under quantir's own planner.
    assert!(tables.contains("| Claim only |") && tables.contains("| ↳ paper, Claim-Only | 0.33 | 0.32 | 0.51 | 0.54 | – | – | – | – |\n"), "{tables}");
    assert!(tables.contains("| ↳ paper, FCDecomp | 0.57 | 0.54 | 0.82 | 0.68 | 0.54 | 0.51 | 0.82 | 0.651 |\n"), "{tables}");
    let after_numeric = tables.split("| quantir numeric |").nth(1).unwrap().lines().nth(1).unwrap_or("");
    assert!(!after_numeric.contains("paper"), "{tables}");
    assert_eq!(std::fs::read_to_string(out.join("tables.md")).unwrap(), tables);
    let grid: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("grid.json")).unwrap()).unwrap();
    assert_eq!(grid["cells"].as_array().unwrap().len(), 14, "7 planners x with and without the filter");
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
    assert_eq!(post.len(), 7);
    assert_eq!(post[0]["exact"], grid["cells"][0]["means"]);
    check_verification(&out, &data, &tables);
    // A rerun reuses every run and prediction (resumable) and writes the same tables.
    let again = quantir().args(["experiment", "quantemp", "--data"]).arg(&data).arg("--output").arg(&out).assert().success().stderr(contains("reusing")).stderr(contains("trained a verifier").not()).get_output().stdout.clone();
    assert_eq!(String::from_utf8(again).unwrap(), tables);
    // A folder that is not QuanTemp++'s.
    quantir().args(["experiment", "quantemp", "--data"]).arg(dir.path()).arg("--output").arg(&out).assert().code(1).stderr(contains("has no corpus.json: a QuanTemp++ folder holds"));
    quantir().args(["experiment", "quantemp", "--verify-retriever", "dense", "--data"]).arg(&data).arg("--output").arg(&out).assert().code(1).stderr(contains("--verify-retriever dense is not among --retrievers"));
}

/// The verification table: one row per planner, QGen scored with the claim-only verifier (the
/// folder has no QGen queries for the training claims), every figure equal to scikit-learn's on
/// the prediction files and every p to scipy's `ttest_rel` over the same contiguous folds.
fn check_verification(out: &std::path::Path, data: &std::path::Path, tables: &str) {
    assert!(tables.contains("#### Verification") && tables.contains("| QGen* |"), "{tables}");
    // The paper's Table 5, in fractions, with its † on macro-F1.
    assert!(tables.contains("| ↳ paper, Claim-Only | 0.6653 | 0.5338 | 0.8146 | 0.3102 | 0.6403 | 0.5528 |\n"), "{tables}");
    assert!(tables.contains("| ↳ paper, FCDecomp | 0.6645 | 0.4573 | 0.8078 | 0.5025 | 0.6680 | 0.5892† |\n"), "{tables}");
    let table: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("verification.json")).unwrap()).unwrap();
    let rows = table["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 7);
    assert_eq!((table["train_claims"].as_u64(), table["test_claims"].as_u64(), table["top"].as_u64(), table["folds"].as_u64()), (Some(90), Some(12), Some(3), Some(10)));
    let trained_on: Vec<&str> = rows.iter().map(|r| r["trained_on"].as_str().unwrap()).collect();
    assert_eq!(trained_on, ["claim-only", "fcdecomp", "claimdecomp", "pgmfc", "claim-only", "numeric", "iterative"]);
    for planner in ["claim-only", "fcdecomp", "claimdecomp", "pgmfc", "numeric", "iterative"] {
        assert!(out.join(format!("verifiers/{planner}.bm25/verifier.json")).is_file(), "{planner}");
        assert!(out.join(format!("runs/train.{planner}.filter.bm25.trec")).is_file(), "{planner}");
    }
    assert!(!out.join("verifiers/qgen.bm25").exists());
    let script = r#"
import json, sys
from scipy.stats import ttest_rel
from sklearn.metrics import accuracy_score, f1_score
table = json.load(open(sys.argv[1])); test = json.load(open(sys.argv[2]))
norm = {"true": "True", "false": "False", "half true/false": "Conflicting", "conflicting": "Conflicting"}
gold = [norm[c["label"].lower()] for c in test]
out = []
for row in table["rows"]:
    pred = {}
    evidence = {}
    for line in open(row["predictions"]):
        p = json.loads(line); pred[p["id"]] = p["label"]; evidence[p["id"]] = len(p["evidence"])
    y = [pred[str(i)] for i in range(len(gold))]
    per_class = dict(zip(["True", "False", "Conflicting"], f1_score(gold, y, labels=["True", "False", "Conflicting"], average=None, zero_division=0)))
    n, k = len(gold), table["folds"]
    folds = [(f * n // k, (f + 1) * n // k) for f in range(k)]
    fm = [f1_score(gold[a:b], y[a:b], average="macro", zero_division=0) for a, b in folds]
    fw = [f1_score(gold[a:b], y[a:b], average="weighted", zero_division=0) for a, b in folds]
    out.append({"accuracy": accuracy_score(gold, y), "macro": f1_score(gold, y, average="macro", zero_division=0),
                "weighted": f1_score(gold, y, average="weighted", zero_division=0), "per_class": per_class,
                "fm": fm, "fw": fw, "max_evidence": max(evidence.values())})
base = out[0]
for o in out[1:]:
    for key, fk in (("p_macro", "fm"), ("p_weighted", "fw")):
        p = float(ttest_rel(o[fk], base[fk]).pvalue)
        o[key] = "nan" if p != p else p
print(json.dumps(out))
"#;
    let oracle = std::process::Command::new(python()).arg("-c").arg(script).arg(out.join("verification.json")).arg(data.join("test.json")).output().unwrap();
    assert!(oracle.status.success(), "{}", String::from_utf8_lossy(&oracle.stderr));
    let theirs: Vec<serde_json::Value> = serde_json::from_slice(&oracle.stdout).unwrap();
    let close = |a: &serde_json::Value, b: &serde_json::Value, what: &str| {
        let (a, b) = (a.as_f64().unwrap(), b.as_f64().unwrap());
        assert!((a - b).abs() < 1e-9, "{what}: quantir {a} vs scikit-learn/scipy {b}");
    };
    for (row, t) in rows.iter().zip(&theirs) {
        let planner = row["planner"].as_str().unwrap();
        let s = &row["scores"];
        close(&s["accuracy"], &t["accuracy"], &format!("{planner} accuracy"));
        close(&s["macro_f1"], &t["macro"], &format!("{planner} macro-F1"));
        close(&s["weighted_f1"], &t["weighted"], &format!("{planner} weighted-F1"));
        for class in ["True", "False", "Conflicting"] {
            let ours = s["per_class"].get(class).map_or(serde_json::json!(0.0), |c| c["f1"].clone());
            close(&ours, &t["per_class"][class], &format!("{planner} F1 {class}"));
        }
        for (ours, key) in [("fold_macro_f1", "fm"), ("fold_weighted_f1", "fw")] {
            for (a, b) in row[ours].as_array().unwrap().iter().zip(t[key].as_array().unwrap()) {
                close(a, b, &format!("{planner} {ours}"));
            }
        }
        assert!(t["max_evidence"].as_u64().unwrap() <= 3, "{planner}: the top 3 only");
        for (ours, key) in [("p_macro_f1", "p_macro"), ("p_weighted_f1", "p_weighted")] {
            match (&row[ours], &t[key]) {
                (serde_json::Value::Null, serde_json::Value::Null) => assert_eq!(planner, "claim-only"),
                (a, serde_json::Value::String(nan)) if nan == "nan" => assert_eq!(a.as_f64(), Some(1.0), "{planner} {ours}: no difference is p 1"),
                (a, b) => close(a, b, &format!("{planner} {ours}")),
            }
        }
    }
    let csv = std::fs::read_to_string(out.join("verification.csv")).unwrap();
    assert_eq!(csv.lines().count(), 8, "{csv}");
}

#[test]
fn experiment_runs_llm_planners_when_an_endpoint_is_given() {
    let dir = tempfile::tempdir().unwrap();
    let data = folder(dir.path());
    let out = dir.path().join("out");
    // The model: two search queries from the claim's first and last words, whatever it is asked.
    let llm = crate::plan::fake_model(10_000, |request| {
        let body: serde_json::Value = serde_json::from_str(request).unwrap();
        let prompt = body["messages"][1]["content"].as_str().unwrap().to_string();
        let claim = prompt.split("Claim: ").nth(1).unwrap_or("").lines().next().unwrap_or("").to_string();
        let words: Vec<&str> = claim.split_whitespace().collect();
        let queries = serde_json::json!({"queries": [words.iter().take(4).copied().collect::<Vec<_>>().join(" "), words.iter().rev().take(4).copied().collect::<Vec<_>>().join(" ")]});
        (200, crate::plan::completion(&queries.to_string()))
    });
    let run = |planners: Option<&str>| {
        let mut cmd = quantir();
        cmd.args(["experiment", "quantemp", "--no-verification", "--data"]).arg(&data).arg("--output").arg(&out).args(["--llm-url", &llm.url, "--llm-model", "test-model", "--llm-cache"]).arg(dir.path().join("cache")).env_remove("OPENAI_API_KEY");
        if let Some(p) = planners {
            cmd.args(["--planners", p]);
        }
        cmd.assert()
    };
    let stdout = run(None).success().get_output().stdout.clone();
    let tables = String::from_utf8(stdout).unwrap();
    for name in ["| LLM, FCDecomp-style |", "| LLM, ClaimDecomp-style |", "| LLM, PgmFC-style |", "| LLM, iterative |", "| quantir numeric |", "| quantir iterative |"] {
        assert!(tables.contains(name), "{name} in\n{tables}");
    }
    assert!(!tables.contains("#### Verification"), "--no-verification");
    let asked = llm.requests.lock().unwrap().len();
    // Each style asks once per test claim (the cache answers the no-filter and post-filter runs);
    // the iterative one twice: without the filter it is shown other evidence, so it is asked anew.
    assert_eq!(asked, 3 * 12 + 2 * 12, "{asked} requests");
    let grid: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("grid.json")).unwrap()).unwrap();
    let planners: Vec<&str> = grid["cells"].as_array().unwrap().iter().map(|c| c["planner"].as_str().unwrap()).collect();
    assert_eq!(planners.len(), 22);
    assert!(out.join("runs/llm-pgmfc.filter.bm25.trec").is_file());
    // Without an endpoint an llm planner is refused by name before any work.
    quantir().args(["experiment", "quantemp", "--planners", "claim-only,llm-fcdecomp", "--data"]).arg(&data).arg("--output").arg(dir.path().join("out2")).env_remove("QUANTIR_LLM_URL").env_remove("QUANTIR_LLM_MODEL").assert().code(1).stderr(contains("llm-fcdecomp asks an LLM"));
    assert!(!dir.path().join("out2/index").exists(), "refused before indexing");
}

/// `experiment quantemp` on `data` into `out`, claim-only and QGen, no verification table.
fn small_experiment(data: &std::path::Path, out: &std::path::Path, extra: &[&str]) -> assert_cmd::assert::Assert {
    quantir().args(["experiment", "quantemp", "--no-verification", "--planners", "claim-only,qgen", "--data"]).arg(data).arg("--output").arg(out).args(extra).assert()
}

fn stderr(assert: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&assert.get_output().stderr).into_owned()
}

/// Issue 37 (class 1): a rerun reused whatever sat in the output folder under the right file name
/// — the old tables after the claims' dates changed, after `corpus.json` was halved, with another
/// `-k`, `--depth` or `--fusion`; a hand-made run became the baseline. Now every artifact records
/// what made it and is reused only when that record matches and its bytes are as written; the
/// tables say what made them.
#[test]
fn issue_37_reruns_reuse_only_what_the_same_data_and_settings_made() {
    let dir = tempfile::tempdir().unwrap();
    let data = folder(dir.path());
    let out = dir.path().join("out");
    let first = small_experiment(&data, &out, &[]).success();
    let tables = String::from_utf8(first.get_output().stdout.clone()).unwrap();
    assert!(tables.contains("- corpus: ") && tables.contains("- claims: ") && tables.contains("settings: ") && tables.contains("fingerprint "), "the header says what made the tables:\n{tables}");
    let grid: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("grid.json")).unwrap()).unwrap();
    assert!(grid["provenance"]["fingerprint"].is_string() && grid["provenance"]["inputs"].as_array().unwrap().len() >= 4, "{}", grid["provenance"]);
    // Unchanged: everything reused, nothing indexed, run or trained.
    let again = small_experiment(&data, &out, &[]).success();
    let log = stderr(&again);
    assert!(log.contains("reusing") && !log.contains("ran ") && !log.contains("index (BM25)") && !log.contains("redoing"), "{log}");
    assert_eq!(String::from_utf8(again.get_output().stdout.clone()).unwrap(), tables);
    // Other settings: every run is made again, saying which setting changed.
    for (flag, value, said) in [("-k", "50", "k 100 → 50"), ("--depth", "20", "depth 100 → 20"), ("--fusion", "rrf", "fusion")] {
        let log = stderr(&small_experiment(&data, &out, &[flag, value]).success());
        assert!(log.contains("redoing") && log.contains(said) && log.contains("ran "), "{flag} {value}: {log}");
    }
    // With --resume strict, an artifact made otherwise is refused, and nothing is changed.
    let run = out.join("runs/claim-only.filter.bm25.trec");
    let before = std::fs::read(&run).unwrap();
    let log = stderr(&small_experiment(&data, &out, &["--resume", "strict"]).code(1));
    assert!(log.contains("with other settings") && log.contains("hint: run without --resume strict"), "{log}");
    assert_eq!(std::fs::read(&run).unwrap(), before);
    small_experiment(&data, &out, &[]).success();
    // A hand-made run under the baseline's name is never reused.
    std::fs::write(&run, "0 Q0 planted 1 99.0 hand\n").unwrap();
    let planted = small_experiment(&data, &out, &[]).success();
    assert!(stderr(&planted).contains("was changed after quantir wrote it"), "{}", stderr(&planted));
    assert_eq!(String::from_utf8(planted.get_output().stdout.clone()).unwrap(), tables);
    std::fs::write(&run, "0 Q0 planted 1 99.0 hand\n").unwrap();
    std::fs::remove_file(out.join("runs/claim-only.filter.bm25.trec.provenance.json")).unwrap();
    let log = stderr(&small_experiment(&data, &out, &[]).success());
    assert!(log.contains("has no provenance record"), "{log}");
    // Other claims' dates: the runs are made again.
    let test_path = data.join("test.json");
    let mut test: Vec<serde_json::Value> = serde_json::from_str(&std::fs::read_to_string(&test_path).unwrap()).unwrap();
    test[0]["published"] = "2010-01-01".into();
    write(&data, "test.json", serde_json::to_string(&test).unwrap());
    let log = stderr(&small_experiment(&data, &out, &[]).success());
    assert!(log.contains("redoing") && log.contains("test.json changed"), "{log}");
    // Half the corpus: the index is built again (a new generation), then every run.
    let corpus: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&std::fs::read_to_string(data.join("corpus.json")).unwrap()).unwrap();
    let half: serde_json::Map<String, serde_json::Value> = corpus.into_iter().take(366).collect();
    write(&data, "corpus.json", serde_json::to_string(&half).unwrap());
    let log = stderr(&small_experiment(&data, &out, &[]).success());
    assert!(log.contains("rebuilding") && log.contains("corpus.json is not the file it was built from") && log.contains("indexed 366 snippets"), "{log}");
    assert_eq!(quantir::index::Index::open(&out.join("index")).unwrap().num_docs(), 366);
}

/// Issue 37 (class 4): an undated claim ran without its cutoff in the "with temporal filter"
/// columns; an empty corpus, claims file or qrels gave full tables of 0.0000 (and -0.0000); a
/// QGen file lacking most claims gave a row computed mostly from the claim alone, unmarked.
#[test]
fn issue_37_missing_and_empty_data_are_errors_or_counted() {
    let dir = tempfile::tempdir().unwrap();
    let data = folder(dir.path());
    let out = dir.path().join("out");
    // An undated claim is left out of every cell, and named.
    let test_path = data.join("test.json");
    let original = std::fs::read_to_string(&test_path).unwrap();
    let mut test: Vec<serde_json::Value> = serde_json::from_str(&original).unwrap();
    test[3]["published"] = serde_json::Value::Null;
    write(&data, "test.json", serde_json::to_string(&test).unwrap());
    // QGen queries for three claims only.
    let qgen = std::fs::read_to_string(data.join("qgen_out.csv")).unwrap();
    write(&data, "qgen_out.csv", qgen.lines().take(4).collect::<Vec<_>>().join("\n") + "\n");
    let assert = small_experiment(&data, &out, &[]).success();
    let tables = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    assert!(tables.contains("claims: 11 run; 1 claims of test.json without a date left out of every cell (3)"), "{tables}");
    assert!(tables.contains("| QGen (3 of 11 claims; 8 run as the claim alone) |"), "{tables}");
    assert!(!tables.contains("-0.0000"), "{tables}");
    let grid: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("grid.json")).unwrap()).unwrap();
    assert_eq!((grid["claims"].as_u64(), grid["undated"].clone()), (Some(11), serde_json::json!(["3"])));
    for cell in grid["cells"].as_array().unwrap() {
        let run = std::fs::read_to_string(cell["run"].as_str().unwrap()).unwrap();
        assert!(!run.lines().any(|l| l.starts_with("3 ")), "the undated claim is in no run");
    }
    write(&data, "test.json", &original);
    // Empty inputs: an error naming the file, exit 1, no tables.
    for (file, empty, said) in [("corpus.json", "{}", "no documents"), ("test.json", "[]", "no claims"), ("test_qrels.json", "{}", "no judgments")] {
        let saved = std::fs::read(data.join(file)).unwrap();
        write(&data, file, empty);
        let fresh = dir.path().join(format!("out-{file}"));
        let log = stderr(&small_experiment(&data, &fresh, &[]).code(1));
        assert!(log.contains(file) && log.contains(said) && log.contains("hint:"), "{file}: {log}");
        assert!(!fresh.join("tables.md").exists());
        std::fs::write(data.join(file), saved).unwrap();
    }
    // Qrels that judge none of the claims.
    let saved = std::fs::read(data.join("test_qrels.json")).unwrap();
    write(&data, "test_qrels.json", r#"{"999": {"x": 1}}"#);
    let log = stderr(&small_experiment(&data, &dir.path().join("out-foreign"), &[]).code(1));
    assert!(log.contains("none of its 1 judged queries is among the 12 claims"), "{log}");
    std::fs::write(data.join("test_qrels.json"), saved).unwrap();
}
