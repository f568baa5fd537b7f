#!/usr/bin/env bash
# quantir eval vs pytrec_eval on 2,495 queries x 1,000 documents, side by side: the run is
# quantir's BM25 run of the 2,495 scale claims over the 165.7k scale corpus
# (make_scale_corpus.py), the qrels a deterministic sample (relevance is meaningless here: speed only).
# Best of 3 wall-clock timings each, both including file reading. Results: bench/runs/<date>-<host>/.
#
# usage: scripts/bench_eval.sh [SCALE_GENERATOR]   (default: ../shared/bench/make_scale_corpus.py)
set -euo pipefail
cd "$(dirname "$0")/.."
generator=${1:-../shared/bench/make_scale_corpus.py}
scripts/setup_python.sh >/dev/null
cargo build --release --locked --quiet
q=target/release/quantir
py=.venv/bin/python
work=bench/tmp/eval
out=bench/runs/$(date +%Y-%m-%d)-$(hostname)
mkdir -p "$work" "$out"
if [ ! -f "$work/run.trec" ]; then
    [ -f bench/tmp/scale-src/corpus.jsonl ] || python3 "$generator" 165700 bench/tmp/scale-src > /dev/null
    [ -f bench/tmp/scale/quantir.idx/CURRENT ] || $q index --corpus bench/tmp/scale-src/corpus.jsonl --index bench/tmp/scale/quantir.idx 2>/dev/null
    $q run --index bench/tmp/scale/quantir.idx --claims bench/tmp/scale-src/claims.jsonl -k 1000 --output "$work/run.trec" 2>/dev/null
    # 1-5 judged documents per claim: some retrieved (graded 0-2), some not.
    $py - "$work/run.trec" > "$work/qrels.txt" <<'PY'
import random, sys
rng = random.Random(7)
by_q = {}
for line in open(sys.argv[1]):
    q, _, d, r, _, _ = line.split()
    by_q.setdefault(q, []).append(d)
for q, docs in by_q.items():
    for d in rng.sample(docs, rng.randint(1, 5)):
        print(q, 0, d, rng.choice([0, 1, 1, 2]))
    print(q, 0, f"unretrieved-{q}", 1)
PY
fi
measures=(ndcg_cut.10 recall.10 recall.100 recip_rank map P.10)
margs=(); for m in "${measures[@]}"; do margs+=(-m "$m"); done
best() { sort -n | head -1; }
quantir_s=$(for i in 1 2 3; do /usr/bin/time -f "%e" $q eval --qrels "$work/qrels.txt" --run "$work/run.trec" "${margs[@]}" 2>&1 >/dev/null | tail -1; done | best)
pytrec_s=$(for i in 1 2 3; do $py scripts/bench/pytrec_eval_time.py "$work/qrels.txt" "$work/run.trec" "${measures[@]}" | awk '{print $3}'; done | best)
pytrec_eval_only=$($py scripts/bench/pytrec_eval_time.py "$work/qrels.txt" "$work/run.trec" "${measures[@]}" | awk '{print $2}')
lines=$(wc -l < "$work/run.trec")
{
    echo "# quantir eval vs pytrec_eval $($py -c 'import importlib.metadata as m; print(m.version("pytrec-eval-terrier"))'), $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores"
    echo "run: $lines lines (2,495 queries x 1,000), measures: ${measures[*]}"
    echo "quantir eval (whole command, best of 3):      ${quantir_s} s"
    echo "pytrec_eval (parse + evaluate, best of 3):    ${pytrec_s} s  (evaluate alone ${pytrec_eval_only} s)"
    $py -c "print(f'ratio: quantir is {float(\"$pytrec_s\") / float(\"$quantir_s\"):.1f}x faster')"
} | tee "$out/eval-summary.txt"
