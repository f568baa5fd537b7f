//! Acceptance: SciFact test, flat BM25 k1=0.9 b=0.4, k=1000, --remove-query, scored by
//! trec_eval's own code (pytrec_eval), not by quantir: nDCG@10 ≥ 0.675 and R@100 ≥ 0.92
//! (Anserini: 0.6789 / 0.9253).

use crate::util::{oracle, repo, scifact_run};

#[test]
fn scifact_bm25_meets_the_anserini_reference() {
    let run = scifact_run();
    let trec = oracle(&repo().join("data/scifact/qrels/test.tsv"), &run.run, &["ndcg_cut.10", "recall.100"], &["-c"]);
    let ndcg = trec["all"]["ndcg_cut_10"].as_f64().unwrap();
    let recall = trec["all"]["recall_100"].as_f64().unwrap();
    eprintln!("SciFact BM25 by pytrec_eval: nDCG@10 {ndcg:.4}, R@100 {recall:.4} (Anserini 0.6789 / 0.9253)");
    assert_eq!(trec["num_q"], 300);
    // Built with the thread count left to it: 5,183 documents make one segment.
    assert_eq!(quantir::index::Index::open(&run.index).unwrap().segments().len(), 1);
    assert!(ndcg >= 0.675, "nDCG@10 {ndcg}");
    assert!(recall >= 0.92, "R@100 {recall}");
}
