//! `quantir eval` equals trec_eval (pytrec_eval) per query to 1e-9, and `Judged@K` equals
//! ir_measures', on runs chosen to exercise their semantics: the SciFact BM25 run, many tied
//! scores, judged queries missing from the run (with and without -c), graded qrels with negative
//! grades, relevance levels (-l) and ranking cuts (-M); `compare`'s t-test equals scipy's.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use proptest::prelude::*;
use quantir::eval::{evaluate, Completeness, Measure};
use quantir::trec::{Qrels, QrelsFormat, Run};

use crate::util::{assert_same_values, oracle, python, quantir, quantir_eval, repo, scifact_run, write};

/// Every measure quantir has, in lists and bare names as trec_eval takes them.
const MEASURES: [&str; 23] = [
    "ndcg", "ndcg_cut.5,10,100,1000", "recall.10,100,1000", "P.5", "P.10,100", "map", "map_cut.10,100", "recip_rank", "recip_rank_cut.10", "success",
    "Rprec", "bpref", "num_ret", "num_rel", "num_rel_ret", "set_P", "set_recall", "set_F", "iprec_at_recall", "iprec_at_recall.0.25,0.05", "Judged@10",
    "Judged@100", "Judged@2000",
];

/// Flags for `-c`.
fn complete_flag(complete: bool) -> &'static [&'static str] {
    if complete {
        &["-c"]
    } else {
        &[]
    }
}

fn qrels() -> std::path::PathBuf {
    repo().join("data/scifact/qrels/test.tsv")
}

/// The SciFact run's lines, transformed.
fn rewrite(to: &Path, f: impl Fn(&[&str]) -> Option<String>) {
    let text = std::fs::read_to_string(&scifact_run().run).unwrap();
    let mut out = String::new();
    for line in text.lines() {
        let fields: Vec<&str> = line.split(' ').collect();
        if let Some(l) = f(&fields) {
            out.push_str(&l);
            out.push('\n');
        }
    }
    std::fs::write(to, out).unwrap();
}

#[test]
fn scifact_run_per_query() {
    let run = &scifact_run().run;
    for complete in [false, true] {
        let flags = complete_flag(complete);
        assert_same_values(&quantir_eval(&qrels(), run, &MEASURES, flags), &oracle(&qrels(), run, &MEASURES, flags));
    }
}

#[test]
fn many_tied_scores() {
    let dir = tempfile::tempdir().unwrap();
    let tied = dir.path().join("tied.run");
    // Scores rounded to whole numbers: most documents of a query tie, and the run's own order
    // (by the unrounded score) is no longer trec_eval's.
    rewrite(&tied, |f| Some(format!("{} Q0 {} {} {} tied", f[0], f[2], f[3], f[4].parse::<f64>().unwrap().round())));
    assert_same_values(&quantir_eval(&qrels(), &tied, &MEASURES, &[]), &oracle(&qrels(), &tied, &MEASURES, &[]));
}

#[test]
fn judged_queries_missing_from_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let partial = dir.path().join("partial.run");
    rewrite(&partial, |f| (f[0].parse::<u64>().unwrap() % 3 != 0).then(|| f.join(" ")));
    for complete in [false, true] {
        let flags = complete_flag(complete);
        let ours = quantir_eval(&qrels(), &partial, &MEASURES, flags);
        assert_same_values(&ours, &oracle(&qrels(), &partial, &MEASURES, flags));
        let n = ours["per_query"].as_object().unwrap().len();
        assert_eq!(n == 300, complete, "{n} queries evaluated");
    }
}

#[test]
fn graded_qrels() {
    let dir = tempfile::tempdir().unwrap();
    // Grades 0..=3 and -1 on the top documents of each query, chosen by a fixed hash, plus the
    // real judgments at grade 2: gains are the grades, ≤ 0 counts as non-relevant.
    let text = std::fs::read_to_string(&scifact_run().run).unwrap();
    let mut graded: BTreeMap<(String, String), i32> = BTreeMap::new();
    for line in std::fs::read_to_string(qrels()).unwrap().lines().skip(1) {
        let f: Vec<&str> = line.split_whitespace().collect();
        graded.insert((f[0].to_string(), f[1].to_string()), 2);
    }
    for line in text.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        let rank: u64 = f[3].parse().unwrap();
        let h = f[2].bytes().fold(rank, |h, b| h.wrapping_mul(31).wrapping_add(b as u64));
        if rank <= 20 && h % 3 == 0 {
            graded.entry((f[0].to_string(), f[2].to_string())).or_insert([-1, 0, 1, 3][(h / 3 % 4) as usize]);
        }
    }
    let mut trec = String::new();
    for ((q, d), g) in &graded {
        writeln!(trec, "{q} 0 {d} {g}").unwrap();
    }
    let graded_path = write(dir.path(), "graded.qrels", trec);
    let run = &scifact_run().run;
    // Tied scores and a third of the queries missing, too.
    let tied = dir.path().join("tied.run");
    rewrite(&tied, |f| (f[0].parse::<u64>().unwrap() % 3 != 0).then(|| format!("{} Q0 {} {} {} tied", f[0], f[2], f[3], f[4].parse::<f64>().unwrap().round())));
    for (run, flags) in [
        (run, &[][..]),
        (&tied, &[][..]),
        (&tied, &["-c"][..]),
        (&tied, &["-l", "2"][..]),
        (&tied, &["-l", "3"][..]),
        (run, &["-M", "7"][..]),
        (&tied, &["-c", "-l", "2", "-M", "50"][..]),
    ] {
        let ours = quantir_eval(&graded_path, run, &MEASURES, flags);
        assert_same_values(&ours, &oracle(&graded_path, run, &MEASURES, flags));
        assert_eq!(ours["all"].as_object().unwrap().len(), 43, "{flags:?}: every measure of the lists");
    }
}

/// The text output prints counts as trec_eval does: whole, summed over queries.
#[test]
fn counts_are_summed_and_printed_whole() {
    let dir = tempfile::tempdir().unwrap();
    let qrels = write(dir.path(), "q.qrels", "q1 0 a 1\nq1 0 b 0\nq2 0 c 1\nq2 0 d 2\n");
    let run = write(dir.path(), "r.trec", "q1 Q0 a 1 3 x\nq1 Q0 z 2 2 x\nq2 Q0 d 1 1 x\n");
    let out = quantir().args(["eval", "-m", "num_ret", "-m", "num_rel,", "--qrels"]).arg(&qrels).arg("--run").arg(&run).assert().code(2).get_output().stderr.clone();
    assert!(String::from_utf8_lossy(&out).contains("expected a trec_eval measure"));
    let out = quantir().args(["eval", "-m", "num_ret", "-m", "num_rel", "-m", "num_rel_ret", "-m", "set_P", "-l", "2", "--qrels"]).arg(&qrels).arg("--run").arg(&run).assert().success().get_output().stdout.clone();
    let out = String::from_utf8(out).unwrap();
    for line in ["num_ret               \tall\t3\n", "num_rel               \tall\t1\n", "num_rel_ret           \tall\t1\n", "set_P                 \tall\t0.5000\n"] {
        assert!(out.contains(line), "{line:?} in {out}");
    }
    quantir().args(["eval", "-l", "0", "--qrels"]).arg(&qrels).arg("--run").arg(&run).assert().code(2);
    quantir().args(["eval", "-M", "0", "--qrels"]).arg(&qrels).arg("--run").arg(&run).assert().code(2);
}

#[test]
fn t_test_equals_scipy() {
    let dir = tempfile::tempdir().unwrap();
    let index = &scifact_run().index;
    let mut runs = vec![scifact_run().run.clone()];
    for (name, k1, b) in [("b.run", "1.2", "0.75"), ("c.run", "0.3", "0.9")] {
        let path = dir.path().join(name);
        quantir()
            .args(["run", "--remove-query", "--k1", k1, "--b", b, "--index"])
            .arg(index)
            .arg("--claims")
            .arg(repo().join("data/scifact"))
            .arg("--qrels")
            .arg(qrels())
            .arg("--output")
            .arg(&path)
            .assert()
            .success();
        runs.push(path);
    }
    let out = quantir().args(["compare", "--json", "--correction", "none", "-m", "ndcg_cut.10", "-m", "map", "--qrels"]).arg(qrels()).args(&runs).assert().success().get_output().stdout.clone();
    let ours: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let script = r#"
import json, sys
import pytrec_eval
from scipy import stats
qrels_path, runs = sys.argv[1], sys.argv[2:]
qrels = {}
for i, line in enumerate(open(qrels_path)):
    p = line.split()
    if i > 0 and p: qrels.setdefault(p[0], {})[p[1]] = int(p[2])
def evaluate(path):
    run = {}
    for line in open(path):
        p = line.split(); run.setdefault(p[0], {})[p[2]] = float(p[4])
    return pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "map"}).evaluate(run)
values = [evaluate(r) for r in runs]
qs = sorted(values[0])
out = []
for v in values[1:]:
    out.append({m: stats.ttest_rel([v[q][m] for q in qs], [values[0][q][m] for q in qs]).pvalue for m in ["ndcg_cut_10", "map"]})
print(json.dumps(out))
"#;
    let scipy = std::process::Command::new(python()).arg("-c").arg(script).arg(qrels()).args(&runs).output().unwrap();
    assert!(scipy.status.success(), "{}", String::from_utf8_lossy(&scipy.stderr));
    let theirs: serde_json::Value = serde_json::from_slice(&scipy.stdout).unwrap();
    for (i, row) in theirs.as_array().unwrap().iter().enumerate() {
        for m in ["ndcg_cut_10", "map"] {
            let p_scipy = row[m].as_f64().unwrap();
            let p_ours = ours["runs"][i + 1]["measures"][m]["p"].as_f64().unwrap();
            assert!((p_ours - p_scipy).abs() <= 1e-9, "run {} {m}: quantir {p_ours} vs scipy {p_scipy}", i + 1);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// Shuffling the lines of a run file changes no number.
    #[test]
    fn shuffled_run_lines_change_nothing(seed in any::<u64>(), ties in any::<bool>()) {
        let dir = tempfile::tempdir().unwrap();
        let mut state = seed | 1;
        let mut next = |n: u64| { state ^= state << 13; state ^= state >> 7; state ^= state << 17; state % n };
        let mut lines = Vec::new();
        let mut qrels = String::new();
        for q in 0..6 {
            for d in 0..30 {
                let score = if ties { (next(4)) as f64 } else { next(1000) as f64 / 7.0 };
                lines.push(format!("q{q} Q0 d{d} {} {score} t", d + 1));
                if next(4) == 0 {
                    writeln!(qrels, "q{q} 0 d{d} {}", next(3)).unwrap();
                }
            }
            writeln!(qrels, "q{q} 0 d-unretrieved 1").unwrap();
        }
        let qrels_path = write(dir.path(), "q.qrels", qrels);
        let original = write(dir.path(), "a.run", lines.join("\n"));
        for i in (1..lines.len()).rev() {
            let j = next(i as u64 + 1) as usize;
            lines.swap(i, j);
        }
        let shuffled = write(dir.path(), "b.run", lines.join("\n"));
        let q = Qrels::read(&qrels_path, QrelsFormat::Trec).unwrap();
        let measures: Vec<Measure> = MEASURES.iter().flat_map(|m| Measure::parse_list(m).unwrap()).collect();
        let a = evaluate(&Run::read_trec(&original).unwrap().view(), &q, &measures, Completeness::Complete);
        let b = evaluate(&Run::read_trec(&shuffled).unwrap().view(), &q, &measures, Completeness::Complete);
        prop_assert_eq!(a, b);
    }
}
