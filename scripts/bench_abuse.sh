#!/usr/bin/env bash
# The server under abuse for 30 s on loopback (release build, QuanTemp sample index): 600
# slowloris connections, 520 batch clients that never read, 16 normal clients; then SIGTERM.
# Results: bench/runs/<date>-<host>/abuse.json. The attackers need file descriptors: the script
# raises the soft limit to the hard one.
set -euo pipefail
cd "$(dirname "$0")/.."
ulimit -n "$(ulimit -Hn)"
cargo build --release --locked --quiet
out=bench/runs/$(date +%Y-%m-%d)-$(hostname)
mkdir -p "$out" bench/tmp
target/release/quantir index --corpus data/quantemp-sample/corpus.json --index bench/tmp/abuse-index 2>/dev/null
python3 scripts/bench/abuse.py target/release/quantir bench/tmp/abuse-index data/quantemp-sample/claims.jsonl "$out/abuse.json" "$@"
