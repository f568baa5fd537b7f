#!/usr/bin/env bash
# Trains the per-evidence stance model (`--verifier stance:verifiers/stance`) on CLIMATE-FEVER's
# 3,840 annotated claim–sentence pairs (data/climate-fever/claims.jsonl, a byte copy of the
# published records; sha256 and licence in data/climate-fever/SOURCES.md), over the installed
# all-MiniLM-L6-v2 encoder (scripts/setup_models.sh, PyPI only). Prints the 5-fold cross-validation
# grouped by claim; writes verifiers/stance/{stance.json,cv_scores.json,provenance.json}. About
# 35 s on 2 cores (20 s of it encoding). Usage: scripts/train_stance.sh [OUTPUT_DIR] [extra flags]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-verifiers/stance}
shift || true
scripts/setup_models.sh
cargo build --release --locked --quiet
target/release/quantir train-stance --claims data/climate-fever/claims.jsonl --output "$out" "$@"
