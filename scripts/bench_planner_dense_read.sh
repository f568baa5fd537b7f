#!/usr/bin/env bash
# The iterative planner's rewrite read from dense evidence instead of BM25's (issue 41): is there a
# planner that lifts BM25 without losing under hybrid? (scripts/bench/planner_dense_read.py says
# what is measured). Needs the Python package (scripts/test_python.sh installs it in .venv).
# Usage: scripts/bench_planner_dense_read.sh. Results: bench/runs/<date>-<host>/planner-dense-read.txt.
set -euo pipefail
work=bench/tmp/planners
source "$(dirname "$0")/bench/collections.sh"
.venv/bin/python scripts/bench/planner_dense_read.py "$work" | tee "$out/planner-dense-read.txt"
