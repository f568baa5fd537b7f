#!/usr/bin/env bash
# Planned retrieval at scale, quantir vs Anserini doing the same work, side by side:
# the 2,495 scale claims over the 165.7k-document scale corpus (make_scale_corpus.py), the numeric
# planner's sub-queries (the claim plus one per quantity), each with the claim's own date cutoff,
# depth 100, fused by CombMAX-Norm, top 1000, one search thread on each side.
#   quantir:  quantir run --plan numeric --fusion combmax-norm (cutoff exact, inside retrieval)
#   Anserini: one SearchCollection run over all sub-queries (hits 1000), the date filter applied
#             afterwards and CombMAX-Norm in Python (scripts/bench/anserini_plan_fuse.py)
# Results: bench/runs/<date>-<host>/plan-summary.txt.
set -euo pipefail
generator=$(realpath -m "${1:-$(dirname "$0")/../../shared/bench/make_scale_corpus.py}")
source "$(dirname "$0")/bench/setup.sh"
src=bench/tmp/scale-src
work=bench/tmp/plan
out=bench/runs/$(date +%Y-%m-%d)-$(hostname)
mkdir -p "$work" "$out"
[ -f $src/corpus.jsonl ] || python3 "$generator" 165700 $src > /dev/null
[ -f bench/tmp/scale/quantir.idx/CURRENT ] || { mkdir -p bench/tmp/scale; $q index --corpus $src/corpus.jsonl --index bench/tmp/scale/quantir.idx 2>/dev/null; }
if [ ! -d bench/tmp/scale/anserini.idx ]; then
    $py scripts/bench/to_anserini.py $src/corpus.jsonl $src/claims.jsonl bench/tmp/scale
    "$java" -cp "$jar" io.anserini.index.IndexCollection -collection JsonCollection -input bench/tmp/scale/collection \
        -index bench/tmp/scale/anserini.idx -generator DefaultLuceneDocumentGenerator -threads 2 -storeRaw > /dev/null 2>&1
fi

# The same sub-queries for both sides: quantir's numeric plans, as Anserini topics CLAIM@@N.
$q plan --claims $src/claims.jsonl --plan numeric --output "$work/plans.jsonl" 2>/dev/null
$py - "$work/plans.jsonl" > "$work/topics.tsv" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    p = json.loads(line)
    for i, q in enumerate(p["queries"]):
        print(f"{p['id']}@@{i}\t{' '.join(q.split())}")
PY
subqueries=$(wc -l < "$work/topics.tsv")

/usr/bin/time -f "%e %M" -o "$work/q.time" $q run --index bench/tmp/scale/quantir.idx --claims $src/claims.jsonl \
    --plan numeric --fusion combmax-norm --depth 100 -k 1000 --threads 1 --output "$work/quantir.run" 2> "$work/quantir.log"
/usr/bin/time -f "%e %M" -o "$work/a.time" "$java" -cp "$jar" io.anserini.search.SearchCollection -index bench/tmp/scale/anserini.idx \
    -topics "$work/topics.tsv" -topicReader TsvString -output "$work/anserini.sub.run" -bm25 -bm25.k1 0.9 -bm25.b 0.4 -hits 1000 -threads 1 > "$work/anserini.log" 2>&1
fuse_s=$($py scripts/bench/anserini_plan_fuse.py $src/corpus.jsonl $src/claims.jsonl "$work/anserini.sub.run" 100 1000 "$work/anserini.run")
read -r q_s q_kb < "$work/q.time"
read -r a_s a_kb < "$work/a.time"
{
    echo "# planned retrieval: quantir vs Anserini + Python, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores"
    echo "2,495 claims, $subqueries numeric sub-queries, each claim's date cutoff, depth 100, CombMAX-Norm, top 1000, 1 search thread"
    echo "quantir (plan + retrieve with cutoff + fuse): ${q_s} s, peak $((q_kb / 1024)) MB"
    echo "anserini SearchCollection (hits 1000):       ${a_s} s, peak $((a_kb / 1024)) MB"
    echo "python date filter + CombMAX-Norm:           ${fuse_s} s"
    $py -c "a=float('$a_s')+float('$fuse_s'); q=float('$q_s'); print(f'anserini + python total: {a:.2f} s; ratio: quantir {a/q:.1f}x faster')"
    echo "top-k overlap (analyzers and post-filter depth differ, so not 1.0):"
    $py scripts/bench/compare_runs.py "$work/quantir.run" "$work/anserini.run" 10 100 | sed 's/^/  /'
} | tee "$out/plan-summary.txt"
