#!/usr/bin/env bash
# How a sub-query's BM25 and dense lists should be fused (--hybrid-fusion / --hybrid-norm's
# defaults), measured on two collections: SciFact (its 809 train queries to choose on, its 300 test
# queries to report) and Climate-FEVER (data/climate-fever: 768 real claims over their 3,002
# evidence sentences, SUPPORTS/REFUTES sentences relevant; 529 judged). BM25 (the index's k1 0.9,
# b 0.4), all-MiniLM-L6-v2 int8 at 128 tokens, k 1000; BM25 alone, dense alone, and hybrid under
# every fusion × normalisation (CombSUM, CombMNZ, CombMAX over none / min-max / max / sum / zmuv /
# rank; CombMAX-Norm, always min-max; RRF, ranks only). nDCG@10 by quantir eval (equal to
# pytrec_eval, tested). The default is the hybrid with the best mean nDCG@10 over the two choosing
# sets (SciFact train, Climate-FEVER) among those at or above BM25 on both; it is marked `*`.
# Results: bench/runs/<date>-<host>/hybrid-summary.txt.
set -euo pipefail
work=bench/tmp/hybrid
source "$(dirname "$0")/bench/collections.sh"
# name → collection, queries, qrels
sets=("scifact-train scifact data/scifact/queries.jsonl data/scifact/qrels/train.tsv"
      "climate-fever climate-fever data/climate-fever/queries.jsonl data/climate-fever/qrels/all.tsv"
      "scifact-test scifact data/scifact/queries.jsonl data/scifact/qrels/test.tsv")
runs=("bm25|--retriever bm25" "dense|--retriever dense")
for m in combsum combmnz combmax; do
    for n in none min-max max sum zmuv rank; do runs+=("$m/$n|--retriever hybrid --hybrid-fusion $m --hybrid-norm $n"); done
done
runs+=("combmax-norm|--retriever hybrid --hybrid-fusion combmax-norm" "rrf|--retriever hybrid --hybrid-fusion rrf")
scores=$work/scores.tsv
: > "$scores"
for set in "${sets[@]}"; do
    read -r name collection claims qrels <<< "$set"
    for run in "${runs[@]}"; do
        label=${run%%|*}; flags=${run#*|}
        file="$work/$name-${label//\//-}.run"
        # shellcheck disable=SC2086
        $q run --index "$work/$collection.idx" --claims "$claims" --qrels "$qrels" -k 1000 --remove-query --output "$file" $flags 2>/dev/null
        ndcg=$($q eval --qrels "$qrels" --run "$file" -m ndcg_cut.10 --json | python3 -c "import json,sys; print(json.load(sys.stdin)['all']['ndcg_cut_10'])")
        printf '%s\t%s\t%s\n' "$name" "$label" "$ndcg" >> "$scores"
    done
done
python3 - "$scores" <<'PY' > "$work/summary.txt"
import sys, time
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
sets = list(dict.fromkeys(r[0] for r in rows))
runs = list(dict.fromkeys(r[1] for r in rows))
score = {(s, r): float(v) for s, r, v in rows}
choosing = ["scifact-train", "climate-fever"]
mean = {r: sum(score[s, r] for s in choosing) / len(choosing) for r in runs}
eligible = [r for r in runs if r not in ("bm25", "dense") and all(score[s, r] >= score[s, "bm25"] for s in choosing)]
best = max(eligible, key=lambda r: (mean[r], r))
print(f"# hybrid fusion × normalisation, nDCG@10, k 1000, {time.strftime('%Y-%m-%dT%H:%MZ', time.gmtime())}")
print("# chosen (*): best mean over " + " and ".join(choosing) + " among hybrids at or above BM25 on both")
print(f"{'run':<20}" + "".join(f"{s:>15}" for s in sets) + f"{'mean(choose)':>15}")
for r in runs:
    mark = " *" if r == best else ""
    print(f"{r + mark:<20}" + "".join(f"{score[s, r]:>15.4f}" for s in sets) + f"{mean[r]:>15.4f}")
runner_up = max((r for r in eligible if r != best), key=lambda r: (mean[r], r))
print(f"# paired t-test of the runner-up ({runner_up}) and BM25 against the chosen ({best}), per query set:")
print(f"@ {best.replace('/', '-')} {runner_up.replace('/', '-')}")
PY
{
    grep -v '^@' "$work/summary.txt"
    read -r _ best second < <(grep '^@' "$work/summary.txt")
    for set in "${sets[@]}"; do
        read -r name _ _ qrels <<< "$set"
        $q compare --qrels "$qrels" "$work/$name-$best.run" "$work/$name-$second.run" "$work/$name-bm25.run" -m ndcg_cut.10 | grep 'p=' | sed "s/^/  /"
    done
} | tee "$out/hybrid-summary.txt"
