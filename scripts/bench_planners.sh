#!/usr/bin/env bash
# The offline planners chosen by measurement on more than one collection (issue 41):
#  A. effectiveness: claim-only, numeric and iterative × BM25, dense and hybrid (the default
#     hybrid fusion) × the sub-query fusion (CombMAX-Norm, the default; CombSUM over min-max), on
#     SciFact's 809 train queries and Climate-FEVER's 529 judged claims (data/climate-fever) to
#     choose on, and SciFact's 300 test queries to report, with the paired t-test of each against
#     claim-only under the same retriever (quantir compare; Holm over the planners). nDCG@10, k 1000.
#  B. cost: planned claims/s for each planner on the QuanTemp++ replica's 2,495 test claims over its
#     165,700 snippets (BM25, each claim's date cutoff, depth 100, top 100), one thread and all threads.
# Usage: scripts/bench_planners.sh [path/to/make_quantemp_replica.py]
# Results: bench/runs/<date>-<host>/planners.txt.
set -euo pipefail
replica_gen=$(realpath -m "${1:-$(dirname "$0")/../../shared/bench/make_quantemp_replica.py}")
work=bench/tmp/planners
source "$(dirname "$0")/bench/collections.sh"
ndcg() { $q eval --qrels "$1" --run "$2" -m ndcg_cut.10 --json | python3 -c "import json,sys; print('%.4f' % json.load(sys.stdin)['all']['ndcg_cut_10'])"; }
{
echo "# offline planners × retrievers × sub-query fusion, nDCG@10, k 1000, $(date -u +%Y-%m-%dT%H:%MZ)"
printf '%-34s %14s %14s %14s\n' "retriever / fusion / planner" scifact-train climate-fever scifact-test
for retriever in bm25 dense hybrid; do
    for fusion in "combmax-norm" "combsum --norm min-max"; do
        tag=${fusion/ --norm /-}
        runs=()
        for planner in claim-only numeric iterative; do
            row=()
            for set in "scifact-train scifact data/scifact/qrels/train.tsv" "climate-fever climate-fever data/climate-fever/qrels/all.tsv" "scifact-test scifact data/scifact/qrels/test.tsv"; do
                read -r name collection qrels <<< "$set"
                file="$work/$name.$retriever.$tag.$planner.run"
                # shellcheck disable=SC2086
                $q run --index "$work/$collection.idx" --claims "data/$collection/queries.jsonl" --qrels "$qrels" -k 1000 --remove-query \
                    --retriever "$retriever" --plan "$planner" --fusion $fusion --output "$file" 2>/dev/null
                row+=("$(ndcg "$qrels" "$file")")
            done
            printf '%-34s %14s %14s %14s\n' "$retriever / $tag / $planner" "${row[@]}"
            runs+=("$work/scifact-test.$retriever.$tag.$planner.run")
        done
        echo "  paired t-test against claim-only on scifact-test:"
        $q compare --qrels data/scifact/qrels/test.tsv "${runs[@]}" -m ndcg_cut.10 | grep 'p=' | sed "s|$work/||; s/^/  /"
    done
done
} | tee "$out/planners.txt"

# B. Cost on the replica.
replica=$work/replica
if [ ! -f "$replica/test.json" ]; then
    [ -f "$replica_gen" ] || { echo "no replica generator at $replica_gen: skipping the cost part" | tee -a "$out/planners.txt"; exit 0; }
    python3 "$replica_gen" "$replica" > /dev/null
fi
[ -f "$work/replica.idx/CURRENT" ] || $q index --corpus "$replica/corpus.json" --index "$work/replica.idx" 2>/dev/null
{
echo "# planned claims/s on the replica's test claims (BM25, each claim's cutoff, depth 100, top 100), $(nproc) cores"
for threads in 1 0; do
    for planner in claim-only numeric iterative; do
        best=""
        for _ in 1 2 3; do
            line=$($q run --index "$work/replica.idx" --claims "$replica/test.json" --plan "$planner" -k 100 --threads "$threads" --output "$work/cost.run" 2>&1 | grep '^ran ')
            rate=$(sed -E 's/.*\(([0-9.]+) claims\/s\).*/\1/' <<< "$line")
            best=$(python3 -c "print(max(float('$rate'), float('${best:-0}')))")
            subq=$(sed -E 's/.* ([0-9]+) sub-queries.*/\1/' <<< "$line")
        done
        printf 'threads %-3s %-12s %8.0f claims/s (best of 3), %s sub-queries\n' "$([ "$threads" = 0 ] && echo all || echo 1)" "$planner" "$best" "$subq"
    done
done
} | tee -a "$out/planners.txt"
