#!/usr/bin/env bash
# The OpenSearch backend's tests: starts a three-node cluster on loopback
# (scripts/opensearch_cluster.sh, OpenSearch from Maven Central), runs tests/opensearch one test at
# a time, then the command given (scripts/test.sh gives scripts/test_python.sh, whose
# test_opensearch.py uses the same cluster), and stops the cluster however the tests end.
#
# usage: scripts/test_opensearch.sh [COMMAND ARGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
export QUANTIR_OPENSEARCH_DIR="${QUANTIR_OPENSEARCH_DIR:-/tmp/quantir-opensearch-test}"
export QUANTIR_OPENSEARCH_PORT="${QUANTIR_OPENSEARCH_PORT:-9270}"
scripts/opensearch_cluster.sh stop >/dev/null 2>&1 || true
trap 'scripts/opensearch_cluster.sh stop' EXIT
scripts/opensearch_cluster.sh start 3
QUANTIR_TEST_OPENSEARCH_URL="$(scripts/opensearch_cluster.sh urls)"
export QUANTIR_TEST_OPENSEARCH_URL
cargo test --locked --release --test opensearch -- --test-threads=1
if [ "$#" -gt 0 ]; then
    "$@"
fi
