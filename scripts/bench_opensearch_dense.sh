#!/usr/bin/env bash
# Dense and hybrid retrieval on the OpenSearch backend at the real workload's size, beside the
# embedded index, in one run: the QuanTemp++ replica's 165,700-snippet corpus.json
# (make_quantemp_replica.py), its 2,495 test claims and the numeric planner's sub-queries, each
# claim's own cutoff, depth 100, CombMAX-Norm, top 100, int8 all-MiniLM-L6-v2.
#   encode:   the embedded dense index with its HNSW graph (M 16, ef_construction 200), passages/s
#             (skipped when bench/tmp/opensearch/dense.idx is already built: ~45 min on 2 cores)
#   load:     docs/s into the cluster with each document's vector (--vectors-from), 1 and 3 nodes
#   runs:     claims/s for dense exact, dense HNSW (ef 256) and hybrid (HNSW + BM25, CombSUM of
#             z-scores), embedded and on the cluster
#   recall:   HNSW's recall@100 against exact, per claim, averaged (embedded and cluster)
#   equality: the cluster's exact dense run against the embedded one (scripts/bench/os_equal.py)
# Cluster: scripts/opensearch_cluster.sh with the k-NN plugin, heap 1 GB a node (the Lucene engine
# builds its graphs on the heap), 2 primaries, 1 replica each with 3 nodes (none with 1). Two
# threads for the embedded runs; 4 requests in flight to the cluster.
# Results: bench/runs/<date>-<host>/opensearch-dense.{txt,csv}.
#
# usage: scripts/bench_opensearch_dense.sh [REPLICA_GENERATOR]  (default ../shared/bench/make_quantemp_replica.py)
#        BENCH_NODES="1 3" (the default) picks the cluster sizes run.
set -euo pipefail
generator=$(realpath -m "${1:-$(dirname "$0")/../../shared/bench/make_quantemp_replica.py}")
cd "$(dirname "$0")/.."
command -v /usr/bin/time >/dev/null || { apt-get update -qq && apt-get install -y -qq time >/dev/null; }
scripts/setup_models.sh >/dev/null
cargo build --release --locked --quiet --bin quantir
q=target/release/quantir
model=models/all-minilm-l6-v2
export ORT_DYLIB_PATH=$PWD/models/onnxruntime/libonnxruntime.so
name=opensearch-dense heap=1g timed_log_prefix=dense-
# shellcheck source=scripts/bench/opensearch_setup.sh
source scripts/bench/opensearch_setup.sh

# recall EXACT_RUN HNSW_RUN: HNSW's recall@100 against exact, per claim, averaged.
recall() {
    python3 - "$1" "$2" <<'PY'
import sys
def read(path):
    run = {}
    for line in open(path):
        qid, _, doc, *_ = line.split()
        run.setdefault(qid, set()).add(doc)
    return run
exact, hnsw = read(sys.argv[1]), read(sys.argv[2])
print(f"{sum(len(d & hnsw.get(q, set())) / len(d) for q, d in exact.items()) / len(exact):.4f}")
PY
}

# The embedded index: vectors and graph (kept between runs of this script), then its runs.
# (an interrupted encode resumes from its finished chunks)
if ! compgen -G "$work/dense.idx/gen-*/dense/vectors.f32" > /dev/null; then
    timed embedded 0 encode "$docs" -- $q index --corpus "$qt/corpus.json" --index "$work/dense.idx" --dense $model --hnsw --threads 2
fi
timed embedded 0 dense-exact "$n" -- $q run --index "$work/dense.idx" "${run_flags[@]}" --retriever dense --threads 2 --output "$work/dense-embedded-exact.run"
timed embedded 0 dense-hnsw "$n" -- $q run --index "$work/dense.idx" "${run_flags[@]}" --retriever dense --ann hnsw --threads 2 --output "$work/dense-embedded-hnsw.run"
timed embedded 0 hybrid-hnsw "$n" -- $q run --index "$work/dense.idx" "${run_flags[@]}" --retriever hybrid --ann hnsw --threads 2 --output "$work/dense-embedded-hybrid.run"
echo "embedded,0,recall,$(recall "$work/dense-embedded-exact.run" "$work/dense-embedded-hnsw.run"),0,0,0" >> "$raw"

nodes_list=${BENCH_NODES:-1 3}
for nodes in $nodes_list; do
    replicas=$((nodes > 1 ? 1 : 0))
    $cluster stop >/dev/null 2>&1 || true
    $cluster start "$nodes"
    export QUANTIR_OPENSEARCH_URL
    QUANTIR_OPENSEARCH_URL=$($cluster urls)
    timed opensearch "$nodes" load "$docs" -- $q index --corpus "$qt/corpus.json" --backend opensearch \
        --opensearch-index replica-dense --opensearch-replicas "$replicas" --vectors-from "$work/dense.idx"
    remote=(--backend opensearch --opensearch-index replica-dense)
    # HNSW twice: the first run warms the nodes' JIT and caches; the second is reported.
    $q run "${remote[@]}" "${run_flags[@]}" --retriever dense --ann hnsw --output "$work/dense-os-$nodes.warm.run" > /dev/null 2>&1
    timed opensearch "$nodes" dense-hnsw "$n" -- $q run "${remote[@]}" "${run_flags[@]}" --retriever dense --ann hnsw --output "$work/dense-os-$nodes-hnsw.run"
    timed opensearch "$nodes" hybrid-hnsw "$n" -- $q run "${remote[@]}" "${run_flags[@]}" --retriever hybrid --ann hnsw --output "$work/dense-os-$nodes-hybrid.run"
    timed opensearch "$nodes" dense-exact "$n" -- $q run "${remote[@]}" "${run_flags[@]}" --retriever dense --output "$work/dense-os-$nodes-exact.run"
    echo "opensearch,$nodes,recall,$(recall "$work/dense-os-$nodes-exact.run" "$work/dense-os-$nodes-hnsw.run"),0,0,0" >> "$raw"
    python3 scripts/bench/os_equal.py "$work/dense-embedded-exact.run" "$work/dense-os-$nodes-exact.run" > "$work/dense-equal-$nodes.txt"
    $cluster stop
done

{
    echo "# dense and hybrid on the OpenSearch backend vs embedded, QuanTemp++ replica ($docs snippets, $n test claims), $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(free -g | awk '/Mem/{print $2}') GiB"
    echo "# int8 all-MiniLM-L6-v2; numeric planner, each claim's date cutoff, depth 100, CombMAX-Norm, top 100; HNSW M 16, ef_construction 200, ef 256 (embedded: hnsw_rs; cluster: Lucene engine); OpenSearch ${QUANTIR_OPENSEARCH_VERSION:-2.19.6} + k-NN, heap 1 GB a node"
    python3 - "$raw" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def get(system, nodes, step):
    return next((r for r in rows if r["system"] == system and r["nodes"] == str(nodes) and r["step"] == step), None)
rate = lambda r: float(r["items"]) / float(r["seconds"]) if r else float("nan")
enc = get("embedded", 0, "encode")
if enc:
    print(f"\nembedded encode + HNSW graph: {rate(enc):.1f} passages/s ({float(enc['seconds']) / 60:.1f} min), peak {enc['quantir_peak_mb']} MB")
print(f"\n{'system':22} {'load docs/s':>12} {'dense exact':>12} {'dense HNSW':>11} {'hybrid HNSW':>12} {'recall@100':>11} {'cluster peak MB':>16}")
print(f"{'':22} {'':>12} {'claims/s':>12} {'claims/s':>11} {'claims/s':>12}")
print(f"{'embedded (2 threads)':22} {'-':>12} {rate(get('embedded', 0, 'dense-exact')):12.1f} {rate(get('embedded', 0, 'dense-hnsw')):11.1f} {rate(get('embedded', 0, 'hybrid-hnsw')):12.1f} {float(get('embedded', 0, 'recall')['seconds']):11.4f} {'-':>16}")
for nodes in (1, 3):
    load = get("opensearch", nodes, "load")
    if not load:
        continue
    peak = max(int(r["cluster_peak_mb"]) for r in rows if r["system"] == "opensearch" and r["nodes"] == str(nodes))
    print(f"{'opensearch ' + str(nodes) + ' node' + ('s' if nodes > 1 else ''):22} {rate(load):12.0f} {rate(get('opensearch', nodes, 'dense-exact')):12.1f} {rate(get('opensearch', nodes, 'dense-hnsw')):11.1f} {rate(get('opensearch', nodes, 'hybrid-hnsw')):12.1f} {float(get('opensearch', nodes, 'recall')['seconds']):11.4f} {peak:>16}")
print("\nratios (cluster against embedded):")
for nodes in (1, 3):
    if get("opensearch", nodes, "load"):
        parts = [f"{step} {rate(get('opensearch', nodes, step)) / rate(get('embedded', 0, step)):.3f}x" for step in ("dense-exact", "dense-hnsw", "hybrid-hnsw")]
        print(f"  {nodes} node(s): " + ", ".join(parts))
PY
    echo
    echo "## the cluster's exact dense runs against the embedded exact run"
    for nodes in $nodes_list; do echo "$nodes node(s): $(cat "$work/dense-equal-$nodes.txt")"; done
} | tee "$out/opensearch-dense.txt"
