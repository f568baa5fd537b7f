#!/usr/bin/env bash
# Fuzzes quantir's loaders and the API's request parsing with cargo fuzz (libFuzzer, AddressSanitizer):
#   corpus       corpus files in every format and name the loaders detect
#   claims       claim files in every format
#   run          TREC runs, and the evaluation of what parses
#   qrels        qrels in every layout
#   plan_file    decomposition files (quantir JSONL, QuanTemp++ JSON fields, ClaimDecomp/QGen CSV)
#   api_request  the body of POST /api/search, /api/verify and each /api/batch line
#   claim_text   the numeric planner, quantity extraction and comparisons, the analyzer
#
# usage: scripts/fuzz.sh [SECONDS] [TARGET ...]   (SECONDS per target, default 30; all targets)
# The test command runs every target briefly (scripts/test.sh); run longer by hand, e.g.
#   scripts/fuzz.sh 600             ten minutes each
#   scripts/fuzz.sh 3600 claim_text one hour of one target
# Seeds come from tests/fixtures, data/ and queries/ into fuzz/corpus/TARGET (git-ignored), where
# libFuzzer keeps what it finds; a crash is saved under fuzz/artifacts/TARGET and fails the script.
# cargo-fuzz comes from crates.io; it builds with the nightly toolchain where rustup has one, else
# with the stable one and RUSTC_BOOTSTRAP=1 (cargo fuzz passes -Z flags).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
shift || true
all=(corpus claims run qrels plan_file api_request claim_text)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install --quiet --locked cargo-fuzz --version 0.13.2
fi
toolchain=()
if rustup run nightly rustc --version >/dev/null 2>&1; then
    toolchain=(+nightly)
else
    export RUSTC_BOOTSTRAP=1
fi

# A seed: the first byte picks the format and file name the target writes (common.rs `pick`).
seed() { # target choice file
    local dir=fuzz/corpus/$1
    mkdir -p "$dir"
    { printf "\\x$(printf %02x "$2")"; cat "$3"; } > "$dir/seed-$2-$(basename "$3")"
}
plain() { # target file
    mkdir -p "fuzz/corpus/$1"
    cp "$2" "fuzz/corpus/$1/seed-$(basename "$2")"
}
seeds() {
    local f=tests/fixtures
    for c in 0 1 2 3 4 5 6 7 8 9 10 11; do
        seed corpus $c $f/jsonl/corpus.jsonl; seed corpus $c $f/quantemp/corpus.json; seed corpus $c $f/beir/corpus.jsonl
        seed claims $c $f/jsonl/claims.jsonl; seed claims $c $f/quantemp/test.json; seed claims $c $f/beir/queries.jsonl
        seed qrels $c $f/beir/qrels/test.tsv; seed qrels $c $f/quantemp/test_qrels.json; seed qrels $c data/quantemp-sample/qrels.tsv
    done
    head -c 4000 queries/quantemp-test.claimdecomp.jsonl > /tmp/quantir-fuzz-plan.jsonl
    for c in 0 1 2 3 4 5; do
        seed plan_file $c /tmp/quantir-fuzz-plan.jsonl; seed plan_file $c $f/quantemp/test.json
    done
    printf 'q1 Q0 d1 1 2.5 x\nq1 Q0 d2 2 1.5 x\n# a comment\nq2 Q0 d3 1 1.0 x extra\nq1 0 d1 1\nq2 0 d3 2\n' > /tmp/quantir-fuzz-run.trec
    plain run /tmp/quantir-fuzz-run.trec
    local i=0
    for body in '{"claim": "Inflation is down close to 3%", "date": "2023-04-24", "k": 5}' \
        '{"claim": "41 homicides per 100,000 people", "plan": "numeric", "fusion": "rrf", "norm": "zmuv", "depth": 50, "undated": "include"}' \
        '{"id": "a", "claim": "x", "retriever": "hybrid", "hybrid_fusion": "combmax-norm"}'; do
        i=$((i + 1)); printf '%s' "$body" > "/tmp/quantir-fuzz-api-$i.json"; plain api_request "/tmp/quantir-fuzz-api-$i.json"
    done
    head -n 40 data/quantemp-sample/claims.jsonl | while IFS= read -r line; do
        i=$((i + 1)); printf '%s' "$line" > "/tmp/quantir-fuzz-claim-$i.txt"; plain claim_text "/tmp/quantir-fuzz-claim-$i.txt"
    done
}
seeds

cargo "${toolchain[@]}" fuzz build -O
status=0
for t in "${targets[@]}"; do
    log=$(mktemp)
    if cargo "${toolchain[@]}" fuzz run -O "$t" "fuzz/corpus/$t" -- -max_total_time="$seconds" -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 >"$log" 2>&1; then
        runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
        cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 || true)
        echo "fuzz $t: ${seconds} s, $runs executions, $cov, no crash"
    else
        echo "fuzz $t: FAILED (the input is under fuzz/artifacts/$t)" >&2
        grep -A 3 -E "panicked at|ERROR: AddressSanitizer|ERROR: libFuzzer" "$log" | head -n 20 >&2 || true
        tail -n 30 "$log" >&2
        status=1
    fi
    rm -f "$log"
done
exit $status
