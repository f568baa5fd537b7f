#!/usr/bin/env bash
# The main job on the bundled data: build quantir, index SciFact, run its 300 test claims
# (BM25 k1=0.9 b=0.4, top 1000) and print nDCG@10 / R@10 / R@100 / MRR / MAP; then show the
# publication-date cutoff on the real QuanTemp evidence sample.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked
q=target/release/quantir
mkdir -p index out

echo "== SciFact: index, run the test claims, evaluate"
$q index --corpus data/scifact --index index/scifact
$q run --index index/scifact --claims data/scifact --qrels data/scifact/qrels/test.tsv \
    -k 1000 --remove-query --output out/scifact.bm25.trec --eval data/scifact/qrels/test.tsv

echo
echo "== QuanTemp sample: evidence published strictly before the claim"
$q index --corpus data/quantemp-sample/corpus.json --index index/quantemp-sample
claim="Says the military accounts for about 10 percent of Florida's economy."
echo "-- no cutoff:"
$q search --index index/quantemp-sample -k 3 "$claim"
echo "-- --before 2023-04-24 (the demo cutoff of this claim in data/quantemp-sample/claims.jsonl):"
$q search --index index/quantemp-sample -k 3 --before 2023-04-24 "$claim"
$q run --index index/quantemp-sample --claims data/quantemp-sample/claims.jsonl -k 100 --output out/quantemp-sample.trec
