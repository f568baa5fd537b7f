#!/usr/bin/env bash
# Today's trained verifier on real claim–evidence stance labels (issue 40's baseline figures):
# CLIMATE-FEVER's training half (data/climate-fever/claims.jsonl, 768 claims, 3,840 sentences
# labelled by annotators), five folds grouped by claim (scripts/bench/climate_fever_verify.py):
# per fold, `quantir train-verifier` on the other folds' True/False/Conflicting claims with their
# five sentences (defaults: calibrated, with its abstention rule), then `quantir verify --abstain`
# on the fold's claims (all five sentences), on the same claims with another claim's sentences
# (and both again with --no-abstain), and on each claim–sentence pair alone, its verdict read as a stance. Scored with scikit-learn.
# Results: bench/runs/<date>-<host>/verify-climate-fever.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup_python.sh >/dev/null
cargo build --release --locked --quiet --bin quantir
q=target/release/quantir
py=.venv/bin/python
work=bench/tmp/verify-climate-fever
out=bench/runs/$(date +%Y-%m-%d)-$(hostname)
rm -rf "$work"
mkdir -p "$work" "$out"
$py scripts/bench/climate_fever_verify.py folds data/climate-fever/claims.jsonl "$work"
start=$(date +%s.%N)
for f in 0 1 2 3 4; do
    d=$work/fold$f
    $q train-verifier --claims "$d/train.jsonl" --folds 0 --top 5 --output "$d/verifier" 2>"$d/train.log"
    $q verify --claims "$d/claims.jsonl" --top 5 --verifier "trained:$d/verifier" --abstain --output "$d/claims.pred" 2>>"$d/verify.log"
    $q verify --claims "$d/swapped.jsonl" --top 5 --verifier "trained:$d/verifier" --abstain --output "$d/swapped.pred" 2>>"$d/verify.log"
    $q verify --claims "$d/claims.jsonl" --top 5 --verifier "trained:$d/verifier" --no-abstain --output "$d/claims.plain.pred" 2>>"$d/verify.log"
    $q verify --claims "$d/swapped.jsonl" --top 5 --verifier "trained:$d/verifier" --no-abstain --output "$d/swapped.plain.pred" 2>>"$d/verify.log"
    $q verify --claims "$d/pairs.jsonl" --top 1 --verifier "trained:$d/verifier" --abstain --output "$d/pairs.pred" 2>>"$d/verify.log"
done
seconds=$(echo "$(date +%s.%N) - $start" | bc)
{
    echo "# today's trained verifier on CLIMATE-FEVER's labelled evidence, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, commit $(git rev-parse --short HEAD)"
    echo "# train-verifier defaults (character n-grams, calibrated, abstention rule), --top 5; verify --abstain"
    $py scripts/bench/climate_fever_verify.py score "$work"
    printf 'five folds trained and predicted in %.1f s\n' "$seconds"
} | tee "$out/verify-climate-fever.txt"
