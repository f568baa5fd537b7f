#!/usr/bin/env bash
# Issue 15's figures in one run: calibration, abstention and the evidence-swap check of the trained
# verifier.
#   1. 10-fold CV (seed 42) on the 3,084 labelled QuanTemp validation claims with their top-3
#      evidence: each fold's temperature and abstention thresholds come from an inner 5-fold CV
#      of its training part, never from the fold itself. Printed: 3-way scores at full coverage,
#      ECE before and after calibration, coverage and the verdicts given, selective accuracy and
#      macro-F1 at 80% and 50% coverage, and Not Enough Info with the claims' own evidence, with a
#      random other claim's and with other claims' texts retrieved for each;
#   2. verify-eval of the out-of-fold predictions before and after calibration, with the
#      reliability diagrams and the risk-coverage curve (PNG and CSV);
#   3. held out: the verifier trained on all validation claims, abstaining, on the 249 QuanTemp
#      test claims with the fact-checker's justification as evidence (macro-F1, coverage, ECE),
#      and the ECE of the same verifier trained without calibration.
# Results: bench/runs/<date>-<host>/abstention.txt and abstention-{before,after,test249}/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup_python.sh >/dev/null
cargo build --release --locked --quiet
q=target/release/quantir
py=.venv/bin/python
val=data/quantemp-val/val_claimonly_evidence_question_mapping.json
work=bench/tmp/abstention
out=bench/runs/$(date +%Y-%m-%d)-$(hostname)
mkdir -p "$work" "$out"
{
    echo "# trained verifier with calibration and abstention, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores"
    /usr/bin/time -f "%e %M" -o "$work/time.txt" $q train-verifier --claims $val --output "$work/v42" > "$work/cv.txt" 2> "$work/train.err"
    read -r seconds kb < "$work/time.txt"
    echo "## 10-fold CV, 3,084 QuanTemp validation claims, claim + top-3 evidence, seed 42"
    cat "$work/cv.txt"
    grep '^abstention rule' "$work/train.err" | sed 's/^/final model: /'
    echo "train-verifier (10-fold CV with inner 5-fold calibration and abstention, then the final model): ${seconds} s, peak $((kb / 1024)) MB"
    echo "## verify-eval of the out-of-fold predictions, before calibration (model probabilities, no abstention)"
    $q verify-eval --gold $val --pred "$work/v42/cv_predictions_uncalibrated.jsonl" --plots "$out/abstention-before" 2>/dev/null
    echo "## verify-eval of the out-of-fold predictions, calibrated and abstaining"
    $q verify-eval --gold $val --pred "$work/v42/cv_predictions.jsonl" --plots "$out/abstention-after" 2>/dev/null
    echo "## held out: 249 QuanTemp test claims, evidence = the fact-checker's justification, trained on all 3,084 validation claims"
    $py scripts/bench/quantemp_gpt4o.py data/quantemp-test-gpt4o/model_gpt4o_test_results.csv "$work/test249"
    $q verify --verifier trained:"$work/v42" --abstain --claims "$work/test249/claims.jsonl" --top 1 --output "$work/test249/pred.jsonl" 2>/dev/null
    $q verify-eval --gold "$work/test249/gold.jsonl" --pred "$work/test249/pred.jsonl" --plots "$out/abstention-test249" 2>/dev/null
    echo "## the same before calibration: a verifier trained with --no-calibrate --no-abstain"
    $q train-verifier --claims $val --output "$work/v42-raw" --folds 0 --no-calibrate --no-abstain >/dev/null 2>&1
    $q verify --verifier trained:"$work/v42-raw" --claims "$work/test249/claims.jsonl" --top 1 --output "$work/test249/raw.jsonl" 2>/dev/null
    $q verify-eval --gold "$work/test249/gold.jsonl" --pred "$work/test249/raw.jsonl" 2>/dev/null | grep -E '^(macro_f1|calibration)'
} | tee "$out/abstention.txt"
