#!/usr/bin/env bash
# The OpenSearch backend at the real workload's size, side by side with the embedded index and
# Anserini in one run: the QuanTemp++ replica's 165,700-snippet corpus.json
# (make_quantemp_replica.py) and its 2,495 test claims.
#   ingest:      docs/s into the cluster (1, 2 and 3 nodes), the embedded index, Anserini's index
#   planned run: claims/s for the numeric planner's sub-queries, each claim's own date cutoff,
#                depth 100, CombMAX-Norm, top 100 (Anserini: SearchCollection over the same
#                sub-queries, the date filter afterwards and the fusion in Python, as bench_plan.sh)
#   equality:    the cluster's run against the embedded run (tie-aware, scripts/bench/os_equal.py)
#   memory:      peak RSS of quantir and the sum of the nodes' peak RSS (VmHWM)
# Cluster: scripts/opensearch_cluster.sh, heap 512 MB a node, 2 primaries, 1 replica each with 2 or
# 3 nodes (none with 1). Two threads for quantir's embedded run; the cluster's own threads
# otherwise (4 requests in flight). Results: bench/runs/<date>-<host>/opensearch.{txt,csv}.
#
# usage: scripts/bench_opensearch.sh [REPLICA_GENERATOR]  (default ../shared/bench/make_quantemp_replica.py)
set -euo pipefail
generator=$(realpath -m "${1:-$(dirname "$0")/../../shared/bench/make_quantemp_replica.py}")
source "$(dirname "$0")/bench/setup.sh"
name=opensearch heap=512m
# shellcheck source=scripts/bench/opensearch_setup.sh
source scripts/bench/opensearch_setup.sh
# Anserini's inputs: the corpus as JSONL, and the claims with their ids (quantir's: the position
# in the list) and dates.
if [ ! -f "$work/corpus.jsonl" ]; then
    $py - "$qt/corpus.json" "$work/corpus.jsonl" <<'PY'
import json, sys
with open(sys.argv[2], "w") as g:
    for i, d in json.load(open(sys.argv[1])).items():
        g.write(json.dumps({"id": i, "title": d.get("title") or "", "text": d.get("snippet") or "", "date": d.get("date")}) + "\n")
PY
fi
$q plan --claims "$claims" --plan numeric --output "$work/plans.jsonl" 2>/dev/null
$py - "$work/plans.jsonl" "$claims" "$work/claims.jsonl" "$work/topics.tsv" <<'PY'
import json, sys
plans = [json.loads(l) for l in open(sys.argv[1])]
listed = json.load(open(sys.argv[2]))
with open(sys.argv[3], "w") as c, open(sys.argv[4], "w") as t:
    for p, claim in zip(plans, listed):
        c.write(json.dumps({"id": p["id"], "text": claim["claim"], "date": claim["published"]}) + "\n")
        for i, q in enumerate(p["queries"]):
            t.write(f"{p['id']}@@{i}\t{' '.join(q.split())}\n")
PY

# The embedded index and Anserini.
rm -rf "$work/embedded.idx"
timed embedded 0 ingest "$docs" -- $q index --corpus "$qt/corpus.json" --index "$work/embedded.idx" --threads 2
timed embedded 0 run "$n" -- $q run --index "$work/embedded.idx" "${run_flags[@]}" --threads 2 --output "$work/embedded.run"
rm -rf "$work/anserini.idx" "$work/anserini-in"
$py scripts/bench/to_anserini.py "$work/corpus.jsonl" "$work/claims.jsonl" "$work/anserini-in" > /dev/null
timed anserini 0 ingest "$docs" -- "$java" -cp "$jar" io.anserini.index.IndexCollection -collection JsonCollection \
    -input "$work/anserini-in/collection" -index "$work/anserini.idx" -generator DefaultLuceneDocumentGenerator -threads 2 -storeRaw
timed anserini 0 search "$n" -- "$java" -cp "$jar" io.anserini.search.SearchCollection -index "$work/anserini.idx" \
    -topics "$work/topics.tsv" -topicReader TsvString -output "$work/anserini.sub.run" -bm25 -bm25.k1 0.9 -bm25.b 0.4 -hits 1000 -threads 2
fuse_s=$($py scripts/bench/anserini_plan_fuse.py "$work/corpus.jsonl" "$work/claims.jsonl" "$work/anserini.sub.run" 100 100 "$work/anserini.run")
echo "anserini,0,fuse,$fuse_s,$n,0,0" >> "$raw"

for nodes in 1 2 3; do
    replicas=$((nodes > 1 ? 1 : 0))
    $cluster stop >/dev/null 2>&1 || true
    $cluster start "$nodes"
    export QUANTIR_OPENSEARCH_URL
    QUANTIR_OPENSEARCH_URL=$($cluster urls)
    timed opensearch "$nodes" ingest "$docs" -- $q index --corpus "$qt/corpus.json" --backend opensearch \
        --opensearch-index replica --opensearch-replicas "$replicas"
    # Twice: the first run warms the nodes' JIT and caches; the second is reported.
    $q run --backend opensearch --opensearch-index replica "${run_flags[@]}" --output "$work/opensearch-$nodes.warm.run" > /dev/null 2>&1
    timed opensearch "$nodes" run "$n" -- $q run --backend opensearch --opensearch-index replica "${run_flags[@]}" --output "$work/opensearch-$nodes.run"
    $py scripts/bench/os_equal.py "$work/embedded.run" "$work/opensearch-$nodes.run" > "$work/equal-$nodes.txt"
    $cluster stop
done

{
    echo "# OpenSearch backend vs embedded vs Anserini, QuanTemp++ replica ($docs snippets, $n test claims), $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(free -g | awk '/Mem/{print $2}') GiB"
    echo "# planned run: numeric planner, each claim's date cutoff, depth 100, CombMAX-Norm, top 100; OpenSearch ${QUANTIR_OPENSEARCH_VERSION:-2.19.6}, heap 512 MB a node"
    $py - "$raw" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def get(system, nodes, step):
    return next((r for r in rows if r["system"] == system and r["nodes"] == str(nodes) and r["step"] == step), None)
emb_i, emb_r = get("embedded", 0, "ingest"), get("embedded", 0, "run")
ans_i, ans_s, ans_f = get("anserini", 0, "ingest"), get("anserini", 0, "search"), get("anserini", 0, "fuse")
rate = lambda r: float(r["items"]) / float(r["seconds"])
ans_run = float(ans_s["items"]) / (float(ans_s["seconds"]) + float(ans_f["seconds"]))
print(f"\n{'system':24} {'ingest docs/s':>14} {'run claims/s':>13} {'quantir peak MB':>16} {'cluster peak MB':>16}")
print(f"{'embedded (2 threads)':24} {rate(emb_i):14.0f} {rate(emb_r):13.1f} {emb_r['quantir_peak_mb']:>16} {'-':>16}")
print(f"{'anserini (2 threads)':24} {rate(ans_i):14.0f} {ans_run:13.1f} {ans_s['quantir_peak_mb']:>16} {'-':>16}")
for nodes in (1, 2, 3):
    i, r = get("opensearch", nodes, "ingest"), get("opensearch", nodes, "run")
    if i and r:
        print(f"{'opensearch ' + str(nodes) + ' node' + ('s' if nodes > 1 else ''):24} {rate(i):14.0f} {rate(r):13.1f} {r['quantir_peak_mb']:>16} {max(int(i['cluster_peak_mb']), int(r['cluster_peak_mb'])):>16}")
print("\nratios (OpenSearch 3 nodes against):")
i3, r3 = get("opensearch", 3, "ingest"), get("opensearch", 3, "run")
if i3 and r3:
    print(f"  embedded: ingest {rate(i3) / rate(emb_i):.3f}x, run {rate(r3) / rate(emb_r):.3f}x")
    print(f"  anserini: ingest {rate(i3) / rate(ans_i):.3f}x, run {rate(r3) / ans_run:.3f}x")
PY
    echo
    echo "## the cluster's runs against the embedded run"
    for nodes in 1 2 3; do echo "$nodes node(s): $(cat "$work/equal-$nodes.txt")"; done
} | tee "$out/opensearch.txt"
