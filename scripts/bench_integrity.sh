#!/usr/bin/env bash
# What issue 37's guarantees cost, on the workload's real size (not a timed test):
# 1. The integrity check on open: the QuanTemp++ replica's index (165,700 snippets) opened
#    REPEATS times, the median open and the median check of every file's xxh3 digest, beside the
#    median run of its 2,495 test claims (each with its own cutoff, BM25, top 100, every core)
#    — warm (the page cache holds the index) and cold (caches dropped first, when this machine
#    lets root do it).
# 2. Peak memory while indexing a large corpus: the replica's corpus.json repeated COPIES times
#    (26: 2.06 GB, one line, as QuanTemp++ publishes it) and the same documents as JSONL,
#    indexed by this quantir (and, with OLD=path/to/quantir, by another build beside it).
# Results: bench/runs/<date>-<host>/integrity.txt (and raw.json lines).
#
# usage: scripts/bench_integrity.sh [REPLICA_GENERATOR]   (env: REPEATS=7 COPIES=26 OLD=)
set -euo pipefail
cd "$(dirname "$0")/.."
repeats=${REPEATS:-7}
copies=${COPIES:-26}
generator=$(realpath -m "${1:-../shared/bench/make_quantemp_replica.py}")
command -v /usr/bin/time >/dev/null || { apt-get update -qq && apt-get install -y -qq time >/dev/null; }
cargo build --release --locked --quiet --bin quantir --example open_cost
q=target/release/quantir
work=bench/tmp/integrity
out=bench/runs/$(date +%Y-%m-%d)-$(hostname)
mkdir -p "$work" "$out"
report="$out/integrity.txt"
: > "$report"
say() { echo "$*" | tee -a "$report"; }

[ -f "$work/replica/corpus.json" ] || python3 "$generator" "$work/replica" > /dev/null
rm -rf "$work/replica-idx"
"$q" index --corpus "$work/replica/corpus.json" --index "$work/replica-idx" 2> /dev/null
say "quantir $(git rev-parse --short HEAD) on $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(date -u +%Y-%m-%dT%H:%MZ)"
say ""
say "1. integrity check on open: the replica's index ($(du -sh "$work/replica-idx" | cut -f1)), medians of $repeats"
warm=$(target/release/examples/open_cost "$work/replica-idx" "$work/replica/test.json" 100 "$repeats")
say "   warm: $warm"
if sync && echo 3 > /proc/sys/vm/drop_caches 2> /dev/null; then
    cold=$(target/release/examples/open_cost "$work/replica-idx" "$work/replica/test.json" 100 1)
    say "   cold (caches dropped, one open then one run): $cold"
else
    say "   cold: not measured (cannot drop the page cache here)"
fi
"$q" check --index "$work/replica-idx" 2>&1 | tee -a "$report"

say ""
say "2. peak memory while indexing a large corpus ($copies copies of the replica's documents)"
if [ ! -f "$work/big.json" ] || [ ! -f "$work/big.jsonl" ]; then
    python3 scripts/bench/make_big_corpus.py "$work/replica/corpus.json" "$copies" "$work/big.json" "$work/big.jsonl"
fi
for corpus in big.json big.jsonl; do
    for binary in "$q" ${OLD:-}; do
        rm -rf "$work/big-idx"
        /usr/bin/time -f "%e %M" -o "$work/time.txt" "$binary" index --corpus "$work/$corpus" --index "$work/big-idx" 2> "$work/index.log" || true
        read -r secs kb < "$work/time.txt"
        size=$(stat -c %s "$work/$corpus")
        docs=$(grep -o 'indexed [0-9]* documents' "$work/index.log" || echo "failed: $(tail -1 "$work/index.log")")
        say "   $corpus ($(( size / 1000000 )) MB): $binary: $docs in $secs s, peak RSS $(( kb / 1024 )) MB ($(python3 -c "print(f'{$kb * 1024 / $size:.2f}')")x the file)"
        echo "{\"corpus\": \"$corpus\", \"bytes\": $size, \"binary\": \"$binary\", \"seconds\": $secs, \"peak_rss_kb\": $kb}" >> "$out/integrity-raw.jsonl"
    done
done
rm -rf "$work/big-idx"
say ""
say "results in $report"
