#!/usr/bin/env bash
# Pseudo-relevance feedback beside Anserini's, in one run (issue 41): SciFact's 300 test queries,
# BM25, BM25+RM3 (fbDocs 10, fbTerms 10, original query weight 0.5) and BM25+Rocchio (top 10
# documents, 10 terms, alpha 1, beta 0.75), k1 0.9, b 0.4, top 1000,
# --remove-query, one thread each: nDCG@10 and R@100 (trec_eval's numbers, scripts/oracle), the
# whole command's wall time (Anserini's includes the JVM's start; its own searching rate from its log
# beside) and the claims/s ratios.
# Anserini indexes with -storeDocvectors (its feedback reads them). The two analyzers differ (quantir's is
# numeric-aware), so the runs are compared by effectiveness, not term for term; the expansion's
# terms and weights are checked against a reference in tests/integration/feedback.rs.
# Results: bench/runs/<date>-<host>/feedback.txt
#
# usage: scripts/bench_feedback.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked --quiet --bin quantir
q=target/release/quantir
py=.venv/bin/python
{ read -r java; read -r jar; } < <(scripts/setup_anserini.sh)
work=bench/tmp/feedback
out=bench/runs/$(date +%Y-%m-%d)-$(hostname)
mkdir -p "$work" "$out"
$py scripts/bench/to_anserini.py data/scifact data/scifact "$work" --qrels data/scifact/qrels/test.tsv
rm -rf "$work/anserini.idx" "$work/quantir.idx"
$q index --corpus data/scifact --index "$work/quantir.idx" 2> /dev/null
"$java" -cp "$jar" io.anserini.index.IndexCollection -collection JsonCollection -input "$work/collection" -index "$work/anserini.idx" \
    -generator DefaultLuceneDocumentGenerator -threads 2 -storeRaw -storeDocvectors > "$work/anserini-index.log" 2>&1
n=$(wc -l < "$work/topics.tsv")
report=$out/feedback.txt
echo "# BM25, BM25+RM3 and BM25+Rocchio, quantir ($(git describe --always --dirty)) vs Anserini $(basename "$jar" -fatjar.jar), SciFact test ($n queries), $(date -u +%Y-%m-%dT%H:%MZ), one thread" | tee "$report"
measure() { $py scripts/oracle/trec_eval.py data/scifact/qrels/test.tsv "$1" --complete | $py -c 'import json,sys; a=json.load(sys.stdin)["all"]; print("nDCG@10 %.4f  R@100 %.4f" % (a["ndcg_cut_10"], a["recall_100"]))'; }
for variant in bm25 rm3 rocchio; do
    flags=(); aflags=()
    [ $variant = rm3 ] && flags=(--rm3) && aflags=(-rm3 -rm3.fbTerms 10 -rm3.fbDocs 10 -rm3.originalQueryWeight 0.5)
    [ $variant = rocchio ] && flags=(--rocchio) && aflags=(-rocchio -rocchio.topFbTerms 10 -rocchio.topFbDocs 10 -rocchio.alpha 1 -rocchio.beta 0.75)
    start=$(date +%s.%N)
    $q run --index "$work/quantir.idx" --claims data/scifact --qrels data/scifact/qrels/test.tsv --remove-query -k 1000 --threads 1 "${flags[@]}" --output "$work/quantir.$variant.run" 2> /dev/null
    ours=$(echo "$(date +%s.%N) - $start" | bc -l)
    start=$(date +%s.%N)
    "$java" -cp "$jar" io.anserini.search.SearchCollection -index "$work/anserini.idx" -topics "$work/topics.tsv" -topicReader TsvString \
        -output "$work/anserini.$variant.run" -bm25 -bm25.k1 0.9 -bm25.b 0.4 -hits 1000 -threads 1 -removeQuery "${aflags[@]}" > "$work/anserini-$variant.log" 2>&1
    theirs=$(echo "$(date +%s.%N) - $start" | bc -l)
    # Anserini's own rate, its searching alone (no JVM start, no index opening).
    own=$(grep -o '~[0-9.]* q/s' "$work/anserini-$variant.log" | tail -1 | tr -d '~q/s ')
    printf '%-7s quantir  %s  %6.2f s (%6.0f claims/s) | anserini %s  %6.2f s (%4.0f claims/s; %5.1f q/s by its own count) | ratio %.1fx (%.1fx against its own count)\n' \
        $variant "$(measure "$work/quantir.$variant.run")" "$ours" "$(echo "$n / $ours" | bc -l)" "$(measure "$work/anserini.$variant.run")" "$theirs" "$(echo "$n / $theirs" | bc -l)" "$own" \
        "$(echo "$theirs / $ours" | bc -l)" "$(echo "$n / $ours / $own" | bc -l)" | tee -a "$report"
done
