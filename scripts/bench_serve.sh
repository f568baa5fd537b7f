#!/usr/bin/env bash
# Load test of `quantir serve` on loopback, release build: 16 concurrent clients for 30 s posting
# SciFact claims to /api/search (BM25, claim-only, k=10) against the SciFact index. Prints requests,
# throughput, p50/p99 latency and errors; keeps the line in bench/runs/<date>-<host>/serve-summary.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup_python.sh >/dev/null
out=bench/runs/$(date +%Y-%m-%d)-$(hostname)
mkdir -p "$out"
QUANTIR_LOAD_SECONDS=${QUANTIR_LOAD_SECONDS:-30} cargo test --release --locked --test integration serve::load_16_clients -- --nocapture 2>&1 \
    | grep -E '^load:' | tee "$out/serve-summary.txt"
