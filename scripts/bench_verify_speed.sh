#!/usr/bin/env bash
# Prediction speed on one core (issue 40): the trained verifier (trained on all 3,084 QuanTemp
# validation claims) and the stance verifier (trained on CLIMATE-FEVER) each verifying the same
# 3,084 claims with their top-3 evidence, pinned to one CPU (taskset -c 0), whole command (opening
# the verifier, reading the claims, writing the predictions) best of 3, and ms a claim.
# Results: bench/runs/<date>-<host>/verify-speed.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup_models.sh >/dev/null
cargo build --release --locked --quiet
q=target/release/quantir
val=data/quantemp-val/val_claimonly_evidence_question_mapping.json
work=bench/tmp/verify-speed
out=bench/runs/$(date +%Y-%m-%d)-$(hostname)
mkdir -p "$work" "$out"
$q train-verifier --claims $val --folds 0 --output "$work/trained" >/dev/null 2>&1
$q train-stance --claims data/climate-fever/claims.jsonl --folds 0 --output "$work/stance" >/dev/null 2>&1
{
    echo "# prediction on one core (taskset -c 0), 3,084 QuanTemp validation claims with their top-3 evidence, whole command, best of 3, $(date -u +%Y-%m-%dT%H:%MZ)"
    for spec in "trained:$work/trained" "stance:$work/stance"; do
        best=""
        for _ in 1 2 3; do
            /usr/bin/time -f "%e" -o "$work/time.txt" taskset -c 0 $q verify --verifier "$spec" --claims $val --top 3 --encoder-workers 1 --output "$work/pred.jsonl" 2>/dev/null
            best=$(python3 -c "print(min(float(open('$work/time.txt').read()), float('${best:-inf}')))")
        done
        python3 -c "s = $best; print(f'${spec%%:*} verifier: {s:.2f} s, {1000 * s / 3084:.2f} ms a claim, {3084 / s:.0f} claims/s')"
    done
} | tee "$out/verify-speed.txt"
