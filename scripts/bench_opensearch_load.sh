#!/usr/bin/env bash
# The OpenSearch loader's peak memory against the corpus's size (issue 39: the loader streams its
# file and keeps nothing per document). Three loopback nodes (scripts/opensearch_cluster.sh, 2
# primaries, 1 replica each); each corpus loaded once into a fresh index with default settings,
# the whole command timed by /usr/bin/time (elapsed seconds, peak RSS):
#   the QuanTemp++ replica's corpus.json (165,700 snippets, make_quantemp_replica.py),
#   the replica's documents 4 times over (662,800; one corpus.json, scripts/bench/make_big_corpus.py),
#   a 2M-document scale corpus (make_scale_corpus.py 2000000).
# With OLD=path/to/an/older/quantir the same loads are run by it, beside.
# Results: bench/runs/<date>-<host>/opensearch-load.txt
#
# usage: scripts/bench_opensearch_load.sh  (env: OLD=binary, SHARED=../shared)
set -euo pipefail
cd "$(dirname "$0")/.."
shared=$(realpath -m "${SHARED:-../shared}")
cargo build --release --locked --quiet --bin quantir
work=bench/tmp/opensearch-load
out=bench/runs/$(date +%Y-%m-%d)-$(hostname)
mkdir -p "$work" "$out"
[ -f "$work/replica/corpus.json" ] || python3 "$shared/bench/make_quantemp_replica.py" "$work/replica" > /dev/null
[ -f "$work/big4.json" ] || python3 scripts/bench/make_big_corpus.py "$work/replica/corpus.json" 4 "$work/big4.json" "$work/big4.jsonl"
[ -f "$work/scale2m/corpus.jsonl" ] || python3 "$shared/bench/make_scale_corpus.py" 2000000 "$work/scale2m" > /dev/null
export QUANTIR_OPENSEARCH_DIR=/tmp/quantir-opensearch-load QUANTIR_OPENSEARCH_PORT=9290
cluster=scripts/opensearch_cluster.sh
trap '$cluster stop >/dev/null 2>&1 || true' EXIT
$cluster stop > /dev/null 2>&1 || true
$cluster start 3 > /dev/null
export QUANTIR_OPENSEARCH_URL=$($cluster urls)
first=${QUANTIR_OPENSEARCH_URL%%,*}
report=$out/opensearch-load.txt
echo "quantir OpenSearch loader, $(date -u +%Y-%m-%dT%H:%MZ), $(git describe --always --dirty), 3 loopback nodes (2 primaries, 1 replica), $(nproc) cores" | tee "$report"
binaries=("new=target/release/quantir")
[ -n "${OLD:-}" ] && binaries+=("old=$OLD")
for corpus in "$work/replica/corpus.json" "$work/big4.json" "$work/scale2m/corpus.jsonl"; do
  for entry in "${binaries[@]}"; do
    name=${entry%%=*} bin=${entry#*=}
    curl -sf -XDELETE "$first/load*?expand_wildcards=all" > /dev/null || true
    /usr/bin/time -f "%e %M" -o "$work/time" "$bin" index --corpus "$corpus" --backend opensearch --opensearch-index load 2> "$work/log" || { tail -3 "$work/log"; exit 1; }
    read -r secs kb < "$work/time"
    docs=$(grep -o 'loaded [0-9]* documents' "$work/log" | grep -o '[0-9]*')
    printf '%-4s %-28s %10s bytes %9s documents %8.1f s %8.0f docs/s  peak RSS %5d MB\n' "$name" "${corpus#$work/}" "$(stat -c %s "$corpus")" "$docs" "$secs" "$(echo "$docs / $secs" | bc -l)" $((kb / 1024)) | tee -a "$report"
  done
done
