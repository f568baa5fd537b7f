#!/usr/bin/env bash
# Runs every test: installs the Python oracles (pytrec_eval, scipy) from PyPI into .venv, then
# the Rust unit, property and integration tests. `.ci/run` calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup_python.sh
cargo test --locked "$@"
