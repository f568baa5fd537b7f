#!/usr/bin/env bash
# quantir vs Anserini, side by side in one run, on the same corpora and claims:
#   SciFact (5,183 docs, 300 test claims) and the scale corpus that
#   make_scale_corpus.py 165700 writes (165.7k docs, 2,495 long claims).
# Prints indexing docs/s (both on 2 threads), claims/s at k=1000 on one thread, peak memory,
# top-k quality (SciFact nDCG@10 / R@100 by pytrec_eval; scale: top-k overlap) and the ratios.
# Anserini comes from PyPI alone (scripts/setup_anserini.sh). Results: bench/runs/<date>-<host>/.
#
# usage: scripts/bench_bm25.sh [SCALE_GENERATOR]   (default: ../shared/bench/make_scale_corpus.py)
set -euo pipefail
generator=$(realpath -m "${1:-$(dirname "$0")/../../shared/bench/make_scale_corpus.py}")
source "$(dirname "$0")/bench/setup.sh"
work=bench/tmp
out=bench/runs/$(date +%Y-%m-%d)-$(hostname)
rm -rf "$work"; mkdir -p "$work" "$out"
raw="$out/raw.csv"
echo "corpus,system,step,seconds,peak_rss_mb,items" > "$raw"

# timed NAME SYSTEM STEP ITEMS -- command...: wall seconds and peak RSS of one command.
timed() {
    local corpus=$1 system=$2 step=$3 items=$4; shift 5
    /usr/bin/time -f "%e %M" -o "$work/time.txt" "$@" > "$work/$system.$step.log" 2>&1
    read -r secs kb < "$work/time.txt"
    echo "$corpus,$system,$step,$secs,$((kb / 1024)),$items" >> "$raw"
}

bench_corpus() {
    local name=$1 corpus=$2 claims=$3 extra_run=$4 qrels=${5:-}
    local dir=$work/$name
    mkdir -p "$dir"
    $py scripts/bench/to_anserini.py "$corpus" "$claims" "$dir" ${qrels:+--qrels "$qrels"}
    local docs n
    docs=$(wc -l < "$dir/collection/docs.jsonl"); n=$(wc -l < "$dir/topics.tsv")
    timed "$name" quantir index "$docs" -- $q index --corpus "$corpus" --index "$dir/quantir.idx" --threads 2
    timed "$name" anserini index "$docs" -- "$java" -cp "$jar" io.anserini.index.IndexCollection \
        -collection JsonCollection -input "$dir/collection" -index "$dir/anserini.idx" \
        -generator DefaultLuceneDocumentGenerator -threads 2 -storeRaw
    # Same claims, no date cutoff (Anserini has none), one thread, k=1000.
    timed "$name" quantir search "$n" -- $q run --index "$dir/quantir.idx" --claims "$dir/claims-undated.jsonl" \
        -k 1000 --threads 1 $extra_run --output "$dir/quantir.run"
    timed "$name" anserini search "$n" -- "$java" -cp "$jar" io.anserini.search.SearchCollection \
        -index "$dir/anserini.idx" -topics "$dir/topics.tsv" -topicReader TsvString -output "$dir/anserini.run" \
        -bm25 -bm25.k1 0.9 -bm25.b 0.4 -hits 1000 -threads 1 ${extra_run:+-removeQuery}
    if [ -z "$qrels" ]; then
        # The scale claims carry dates: quantir's run with every claim's own cutoff, for reference.
        timed "$name" quantir search-with-cutoff "$n" -- $q run --index "$dir/quantir.idx" --claims "$claims" \
            -k 1000 --threads 1 --output "$dir/quantir.cutoff.run"
    fi
}

bench_corpus scifact data/scifact data/scifact --remove-query data/scifact/qrels/test.tsv
if [ -f "$generator" ]; then
    python3 "$generator" 165700 "$work/scale-src" > /dev/null
    bench_corpus scale "$work/scale-src/corpus.jsonl" "$work/scale-src/claims.jsonl" ""
else
    echo "no scale generator at $generator: scale corpus skipped" >&2
fi

{
    echo "# quantir vs Anserini $(basename "$jar" -fatjar.jar), $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(free -g | awk '/Mem/{print $2}') GiB"
    echo "# wall-clock per command (Anserini's includes JVM start); index: 2 threads; search: 1 thread, k=1000, no cutoff"
    $py - "$raw" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
get = lambda c, s, st: next((r for r in rows if r["corpus"] == c and r["system"] == s and r["step"] == st), None)
for corpus in dict.fromkeys(r["corpus"] for r in rows):
    print(f"\n## {corpus}")
    for step, unit in [("index", "docs/s"), ("search", "claims/s")]:
        a, b = get(corpus, "quantir", step), get(corpus, "anserini", step)
        ra, rb = float(a["items"]) / float(a["seconds"]), float(b["items"]) / float(b["seconds"])
        print(f"{step:7} quantir {ra:10.1f} {unit} ({a['seconds']} s, peak {a['peak_rss_mb']} MB) | "
              f"anserini {rb:10.1f} {unit} ({b['seconds']} s, peak {b['peak_rss_mb']} MB) | ratio {ra / rb:.1f}x")
    c = get(corpus, "quantir", "search-with-cutoff")
    if c:
        print(f"search  quantir with each claim's date cutoff: {float(c['items']) / float(c['seconds']):.1f} claims/s ({c['seconds']} s)")
PY
    echo
    echo "## top-k quality"
    echo "scifact quantir:  $($py scripts/oracle/trec_eval.py data/scifact/qrels/test.tsv $work/scifact/quantir.run --complete | $py -c 'import json,sys; a=json.load(sys.stdin)["all"]; print("nDCG@10 %.4f R@100 %.4f" % (a["ndcg_cut_10"], a["recall_100"]))')"
    echo "scifact anserini: $($py scripts/oracle/trec_eval.py data/scifact/qrels/test.tsv $work/scifact/anserini.run --complete | $py -c 'import json,sys; a=json.load(sys.stdin)["all"]; print("nDCG@10 %.4f R@100 %.4f" % (a["ndcg_cut_10"], a["recall_100"]))')"
    if [ -f "$work/scale/quantir.run" ]; then
        echo "scale quantir vs anserini top-k overlap (different analyzers, so not 1.0):"
        $py scripts/bench/compare_runs.py "$work/scale/quantir.run" "$work/scale/anserini.run" 10 100 1000 | sed 's/^/  /'
    fi
} | tee "$out/summary.txt"
