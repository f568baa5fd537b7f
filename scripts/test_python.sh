#!/usr/bin/env bash
# The Python package's tests: installs the package from this checkout into .venv exactly as the
# README says (`pip install ./python`), builds the CLI the tests compare against, runs pytest.
# scripts/test.sh calls this after the Rust tests; it needs scripts/setup_python.sh's .venv.
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/python -m pip install --quiet --disable-pip-version-check ./python
cargo build --release --locked --bin quantir
QUANTIR_BIN="$PWD/target/release/quantir" .venv/bin/python -m pytest -q python/tests "$@"
