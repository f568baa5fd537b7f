#!/usr/bin/env bash
# What updating an index costs against rebuilding it, on the QuanTemp++ replica (165,700
# snippets; issue 39; not a timed test):
# 1. BM25: the replica less 1% indexed, then that 1% added and 1% of the rest deleted, each timed
#    (whole command) beside a full build of the final corpus; the 2,495 test claims' runs over the
#    updated and the rebuilt index compared byte for byte.
# 2. 100 successive additions of 0.1% each to the replica less 10%, for each merge factor in
#    FACTORS: the updates' total time, the segments left, and the median time of the 2,495-claim
#    run (BM25, each claim's own cutoff, top 100, every core; examples/open_cost) against a fresh
#    build of the same corpus, measured alternately on the same warm machine; runs compared.
# 3. Dense (DENSE=1): the replica less 1% built with vectors (all-MiniLM-L6-v2 int8), then the 1%
#    added (only those passages encoded) and 1% deleted, each timed beside that build.
# 4. OpenSearch (OPENSEARCH=1): a three-node cluster on loopback (scripts/opensearch_cluster.sh),
#    the replica less 1% loaded in full, then the 1% added, 1% replaced without --expunge and 1%
#    deleted with it, each timed with its documents/s beside the full load's; after the replace
#    and after the delete, the 2,495-claim run against the embedded index of the same corpus
#    (scripts/bench/os_equal.py: the score drift the deleted copies cause, and none after
#    --expunge).
# Results: bench/runs/<date>-<host>/update.txt (and update-raw.jsonl); with SECTIONS, update-SECTIONS.txt.
#
# usage: scripts/bench_update.sh [REPLICA_GENERATOR]
#   (env: FACTORS="10 4 1000" REPEATS=9 DENSE=1 OPENSEARCH=1 SECTIONS="bm25 merge dense opensearch")
set -euo pipefail
cd "$(dirname "$0")/.."
factors=${FACTORS:-10 4 1000}
repeats=${REPEATS:-9}
dense=${DENSE:-1}
opensearch=${OPENSEARCH:-1}
sections=${SECTIONS:-bm25 merge dense opensearch}
has() { [[ " $sections " == *" $1 "* ]]; }
generator=$(realpath -m "${1:-../shared/bench/make_quantemp_replica.py}")
cargo build --release --locked --quiet --bin quantir --example open_cost
q=target/release/quantir
model=models/all-minilm-l6-v2
lib=models/onnxruntime/libonnxruntime.so
work=bench/tmp/update
out=bench/runs/$(date +%Y-%m-%d)-$(hostname)
mkdir -p "$work" "$out"
# A run of some sections only writes a report of its own (update-opensearch.txt, …).
suffix=${SECTIONS:+-${sections// /-}}
report="$out/update$suffix.txt"
raw="$out/update$suffix-raw.jsonl"
: > "$report"
: > "$raw"
say() { echo "$*" | tee -a "$report"; }
# timed LABEL COMMAND...: runs COMMAND, its stderr to $work/LABEL.log, and sets $secs.
timed() {
    local label=$1
    shift
    local start end
    start=$(date +%s.%N)
    "$@" 2> "$work/$label.log" > "$work/$label.out"
    end=$(date +%s.%N)
    secs=$(python3 -c "print(f'{$end - $start:.2f}')")
    echo "{\"step\": \"$label\", \"seconds\": $secs}" >> "$raw"
}
ratio() { python3 -c "print(f'{$1 / $2:.3f}')"; }
run_ms() { target/release/examples/open_cost "$1" "$work/replica/test.json" 100 1 | python3 -c "import json,sys; print(json.load(sys.stdin)['run_ms'])"; }
median() { python3 -c "import statistics,sys; print(f'{statistics.median(float(x) for x in sys.argv[1:]):.1f}')" "$@"; }

[ -f "$work/replica/corpus.json" ] || python3 "$generator" "$work/replica" > /dev/null
[ -f "$work/split/replaced-deleted.jsonl" ] || python3 scripts/bench/split_for_update.py "$work/replica/corpus.json" "$work/split" > /dev/null
s=$work/split
say "quantir $(git rev-parse --short HEAD) on $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(date -u +%Y-%m-%dT%H:%MZ)"
say "replica: $(wc -l < "$s/full.jsonl") documents; 1% = $(wc -l < "$s/add1.jsonl"); 0.1% = $(wc -l < "$s/small/000.jsonl")"
say ""

if has bm25; then
say "1. BM25: add 1%, delete 1%, against a full build of the final corpus (whole commands)"
rm -rf "$work/u1" "$work/r1"
"$q" index --corpus "$s/base99.jsonl" --index "$work/u1" 2> /dev/null
timed add1 "$q" add --index "$work/u1" --corpus "$s/add1.jsonl" --json
add=$secs
timed delete1 "$q" delete --index "$work/u1" --ids "$s/delete1.txt" --json
del=$secs
timed rebuild1 "$q" index --corpus "$s/final1.jsonl" --index "$work/r1"
build=$secs
say "   full build of the final corpus: $build s"
say "   add 1%:    $add s ($(ratio "$add" "$build") of the build)   $(cat "$work/add1.out")"
say "   delete 1%: $del s ($(ratio "$del" "$build") of the build)   $(cat "$work/delete1.out")"
"$q" run --index "$work/u1" --claims "$work/replica/test.json" -k 100 --output "$work/u1.run" 2> /dev/null
"$q" run --index "$work/r1" --claims "$work/replica/test.json" -k 100 --output "$work/r1.run" 2> /dev/null
if cmp -s "$work/u1.run" "$work/r1.run"; then same="byte-identical"; else same="DIFFERENT"; fi
say "   2,495-claim runs, updated vs rebuilt: $same ($(wc -l < "$work/r1.run") lines)"
say ""
fi

if has merge; then
say "2. 100 successive additions of 0.1%, then the 2,495-claim run (median of $repeats, ms) against a fresh build"
rm -rf "$work/fresh"
"$q" index --corpus "$s/full.jsonl" --index "$work/fresh" 2> /dev/null
"$q" run --index "$work/fresh" --claims "$work/replica/test.json" -k 100 --output "$work/fresh.run" 2> /dev/null
for factor in $factors; do
    rm -rf "$work/u100"
    "$q" index --corpus "$s/base90.jsonl" --index "$work/u100" 2> /dev/null
    start=$(date +%s.%N)
    for part in "$s"/small/*.jsonl; do
        "$q" add --index "$work/u100" --corpus "$part" --merge-factor "$factor" --json 2> /dev/null
    done > "$work/u100-$factor.jsonl"
    end=$(date +%s.%N)
    updates=$(python3 -c "print(f'{$end - $start:.1f}')")
    summary=$(python3 - "$work/u100-$factor.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print(f"{len(rows)} updates, {sum(r['rewritten'] for r in rows)} documents indexed again by merges, "
      f"slowest update {max(r['seconds'] for r in rows):.2f} s, {rows[-1]['segments']} segments at the end")
PY
)
    "$q" run --index "$work/u100" --claims "$work/replica/test.json" -k 100 --output "$work/u100.run" 2> /dev/null
    if cmp -s "$work/u100.run" "$work/fresh.run"; then same="byte-identical"; else same="DIFFERENT"; fi
    updated=() fresh=()
    for _ in $(seq "$repeats"); do
        updated+=("$(run_ms "$work/u100")")
        fresh+=("$(run_ms "$work/fresh")")
    done
    mu=$(median "${updated[@]}")
    mf=$(median "${fresh[@]}")
    say "   --merge-factor $factor: updates $updates s in all ($summary)"
    say "      run: updated $mu ms, fresh build $mf ms: $(ratio "$mu" "$mf")x; runs $same"
    echo "{\"step\": \"small-updates\", \"merge_factor\": $factor, \"updates_seconds\": $updates, \"run_ms_updated\": [$(IFS=,; echo "${updated[*]}")], \"run_ms_fresh\": [$(IFS=,; echo "${fresh[*]}")]}" >> "$raw"
done
say ""
fi

if [ "$dense" = 1 ] && has dense; then
    say "3. dense (all-MiniLM-L6-v2 int8, exact vectors): add 1%, delete 1%, against a build with vectors"
    rm -rf "$work/d1"
    timed dense-build "$q" index --corpus "$s/base99.jsonl" --index "$work/d1" --dense "$model" --ort-lib "$lib"
    build=$secs
    timed dense-add1 "$q" add --index "$work/d1" --corpus "$s/add1.jsonl" --ort-lib "$lib" --json
    add=$secs
    timed dense-delete1 "$q" delete --index "$work/d1" --ids "$s/delete1.txt" --json
    del=$secs
    say "   build of $(wc -l < "$s/base99.jsonl") documents with vectors: $build s"
    say "   add 1%:    $add s ($(ratio "$add" "$build") of the build)   $(cat "$work/dense-add1.out")"
    say "   delete 1%: $del s ($(ratio "$del" "$build") of the build)   $(cat "$work/dense-delete1.out")"
fi

if [ "$opensearch" = 1 ] && has opensearch; then
    say ""
    say "4. OpenSearch (three nodes on loopback, two shards, one replica): bulk updates against a full load"
    export QUANTIR_OPENSEARCH_DIR=$PWD/$work/opensearch QUANTIR_OPENSEARCH_PORT=9650
    scripts/opensearch_cluster.sh stop > /dev/null 2>&1 || true
    trap 'scripts/opensearch_cluster.sh stop > /dev/null 2>&1 || true' EXIT
    scripts/opensearch_cluster.sh start 3 > /dev/null
    export QUANTIR_OPENSEARCH_URL=$(scripts/opensearch_cluster.sh urls)
    os=(--backend opensearch --opensearch-index bench-update)
    docs_s() { python3 -c "print(f'{$1 / $2:,.0f}')"; }
    timed os-load "$q" index --corpus "$s/base99.jsonl" "${os[@]}"
    load=$secs
    say "   full load of $(wc -l < "$s/base99.jsonl") documents: $load s ($(docs_s "$(wc -l < "$s/base99.jsonl")" "$load") docs/s)"
    timed os-add1 "$q" add --corpus "$s/add1.jsonl" "${os[@]}" --json
    say "   add 1%: $secs s ($(docs_s "$(wc -l < "$s/add1.jsonl")" "$secs") docs/s)   $(cat "$work/os-add1.out")"
    timed os-replace1 "$q" add --corpus "$s/replace1.jsonl" "${os[@]}" --json
    say "   replace 1% without --expunge: $secs s ($(docs_s "$(wc -l < "$s/replace1.jsonl")" "$secs") docs/s)   $(cat "$work/os-replace1.out")"
    compare_os() {
        rm -rf "$work/os-embedded"
        "$q" index --corpus "$s/$1" --index "$work/os-embedded" 2> /dev/null
        "$q" run --index "$work/os-embedded" --claims "$work/replica/test.json" -k 100 --output "$work/os-e.run" 2> /dev/null
        "$q" run "${os[@]}" --claims "$work/replica/test.json" -k 100 --output "$work/os-r.run" 2> /dev/null
        python3 scripts/bench/os_equal.py "$work/os-e.run" "$work/os-r.run"
    }
    say "      its 2,495-claim run against the embedded index of the same corpus: $(compare_os replaced.jsonl)"
    timed os-delete1 "$q" delete --ids "$s/delete1.txt" "${os[@]}" --expunge --json
    say "   delete 1% with --expunge (merging away the replaced and deleted copies): $secs s   $(cat "$work/os-delete1.out")"
    say "      its 2,495-claim run against the embedded index of the same corpus: $(compare_os replaced-deleted.jsonl)"
fi
