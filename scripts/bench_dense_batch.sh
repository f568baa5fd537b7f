#!/usr/bin/env bash
# Dense search at full size, side by side with faiss: every sub-query of the QuanTemp++ test
# claims (the numeric planner's) over the replica's 165.7k passage vectors (all-MiniLM-L6-v2 int8,
# 128 tokens), exact top-k, one batched call each side on the same vectors and threads.
# quantir reports its time without cutoffs (what faiss IndexFlatIP computes) and with each claim's
# own date as its cutoff (what a run computes); faiss has no per-query filter in a batched search.
#
# usage: scripts/bench_dense_batch.sh REPLICA_DIR [INDEX_DIR] [K] [THREADS]
#   REPLICA_DIR from ../shared/bench/make_quantemp_replica.py; INDEX_DIR is built there with
#   --dense when it has no vectors (resumable; hours on 2 cores).
# Results: bench/runs/<date>-<host>/dense-batch-summary.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:?usage: scripts/bench_dense_batch.sh REPLICA_DIR [INDEX_DIR] [K] [THREADS]}
index=${2:-bench/tmp/dense-batch/replica.idx}
k=${3:-100}
threads=${4:-$(nproc)}
scripts/setup_python.sh >/dev/null
scripts/setup_models.sh >/dev/null
.venv/bin/python -c "import faiss" 2>/dev/null || .venv/bin/python -m pip install --quiet "faiss-cpu==1.15.1"
cargo build --release --locked --quiet --bins --example dense_batch
q=target/release/quantir
work=bench/tmp/dense-batch
out=bench/runs/$(date +%Y-%m-%d)-$(hostname)
mkdir -p "$work" "$out"
if [ ! -f "$index/dense/vectors.f32" ]; then
    /usr/bin/time -f "encoded in %e s, peak %M KB" $q index --corpus "$data/corpus.json" --index "$index" --dense models/all-minilm-l6-v2
fi
$q plan --claims "$data/test.json" --plan numeric --output "$work/test.numeric.jsonl" 2>/dev/null
ours=$(target/release/examples/dense_batch "$index" models/all-minilm-l6-v2 models/onnxruntime/libonnxruntime.so \
    "$data/test.json" "$work/test.numeric.jsonl" "$work/queries.f32" "$k" "$threads")
theirs=$(.venv/bin/python scripts/bench/faiss_batch.py "$index/dense/vectors.f32" "$work/queries.f32" "$k" "$threads")
{
    echo "# batched exact dense search, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, k=$k, $threads threads"
    echo "quantir: $ours"
    echo "faiss IndexFlatIP: $theirs"
    .venv/bin/python -c "
import json; a, b = json.loads('$ours'), json.loads('$theirs')
print(f\"ratio, no cutoffs (faiss time / quantir time): {b['exact_s'] / a['exact_s']:.2f}x\")
print(f\"ratio, quantir with each claim's cutoff vs faiss without: {b['exact_s'] / a['exact_with_cutoffs_s']:.2f}x\")"
} | tee "$out/dense-batch-summary.txt"
