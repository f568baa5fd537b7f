#!/usr/bin/env bash
# Runs every test: installs the Python oracles (pytrec_eval, ir_measures, scipy, ranx,
# scikit-learn, schemathesis, pytest) from PyPI into .venv and Debian's chromium for the web page
# test, then the Rust unit, property and integration tests, every cargo fuzz target for 20 s
# (scripts/fuzz.sh, cargo-fuzz from crates.io), the OpenSearch backend's tests on a three-node
# cluster (scripts/test_opensearch.sh, OpenSearch from Maven Central) and the Python package's
# tests (scripts/test_python.sh).
# `.ci/run` calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup_python.sh
scripts/setup_models.sh
if ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    else
        echo "chromium is missing: install Debian's chromium (apt-get install chromium) for the web page test" >&2
    fi
fi
# Release: the tests run several times faster than unoptimised, and the Python package's build
# and the CLI the Python tests compare against then reuse what this compiled.
cargo test --locked --release "$@"
scripts/fuzz.sh 20
scripts/test_opensearch.sh scripts/test_python.sh
