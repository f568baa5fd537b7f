#!/usr/bin/env bash
# How a sub-query's BM25 and dense lists should be fused (--hybrid-fusion's default), measured:
# SciFact test, BM25 (k1 0.9, b 0.4), all-MiniLM-L6-v2 int8 at 128 tokens, k 1000, --remove-query;
# BM25 alone, dense alone, and hybrid under each fusion method (over z-scores, --hybrid-norm's
# default; CombMAX-Norm over min-max, RRF over ranks; and CombSUM over min-max). nDCG@10, R@100
# and MRR by quantir eval (equal to pytrec_eval, tested); then the same on SciFact's train queries.
# Results: bench/runs/<date>-<host>/hybrid-summary.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup_models.sh >/dev/null
cargo build --release --locked --quiet --bins
q=target/release/quantir
work=bench/tmp/hybrid
out=bench/runs/$(date +%Y-%m-%d)-$(hostname)
mkdir -p "$work" "$out"
[ -f "$work/scifact.idx/manifest.json" ] || $q index --corpus data/scifact --index "$work/scifact.idx" --dense models/all-minilm-l6-v2 2>/dev/null
measure() {  # claims, qrels, name, run flags...
    local claims=$1 qrels=$2 name=$3; shift 3
    $q run --index "$work/scifact.idx" --claims "$claims" --qrels "$qrels" -k 1000 --remove-query \
        --output "$work/$name.run" "$@" 2>/dev/null
    $q eval --qrels "$qrels" --run "$work/$name.run" -m ndcg_cut.10 -m recall.100 -m recip_rank --json \
        | python3 -c "import json,sys; a=json.load(sys.stdin)['all']; print(sys.argv[1].ljust(26), '%.4f  %.4f  %.4f' % (a['ndcg_cut_10'], a['recall_100'], a['recip_rank']))" "$name"
}
grid() {  # claims, qrels, prefix
    measure "$1" "$2" "$3bm25" --retriever bm25
    measure "$1" "$2" "$3dense" --retriever dense
    for m in combsum combmnz combmax combmax-norm rrf; do
        measure "$1" "$2" "$3hybrid-$m" --retriever hybrid --hybrid-fusion "$m"
    done
    measure "$1" "$2" "$3hybrid-combsum-minmax" --retriever hybrid --hybrid-fusion combsum --hybrid-norm min-max
}
{
    echo "# hybrid fusion on SciFact test (300 claims), $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "run                        nDCG@10 R@100   MRR"
    grid data/scifact data/scifact/qrels/test.tsv ""
    # A second query set the default was not chosen on: SciFact's 809 train queries (../shared only).
    train=../shared/data/beir/scifact
    if [ -f "$train/qrels/train.tsv" ]; then
        echo "# the same on SciFact train (809 queries, ../shared/data/beir/scifact)"
        grid "$train/queries.jsonl" "$train/qrels/train.tsv" "train-"
    fi
} | tee "$out/hybrid-summary.txt"
