#!/usr/bin/env bash
# The stance verifier, measured (README "Per-evidence stance"): its 5-fold cross-validation grouped
# by claim on CLIMATE-FEVER (beside the trained verifier's baseline, scripts/bench_verify_climate_fever.sh),
# QuanTemp's 3,084 validation claims with their top-3 BM25 evidence and its 249 test claims with the
# fact-checker's justification verified by it, and its
# prediction speed on one core (one encoder worker) over CLIMATE-FEVER's 768 claims with their
# five sentences, and the encoder's share of it. Writes bench/runs/DATE-vm/stance-climate-fever.txt.
# About 7 minutes on 2 cores; run it on an idle machine (the speed is measured on one core).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup_models.sh
cargo build --release --locked --quiet
q=target/release/quantir
work=bench/tmp/stance
out=bench/runs/$(date +%F)-vm/stance-climate-fever.txt
mkdir -p "$work" "$(dirname "$out")"
{
    echo "== quantir train-stance on data/climate-fever/claims.jsonl (5 folds grouped by claim)"
    $q train-stance --claims data/climate-fever/claims.jsonl --output "$work/model" 2>&1
    echo
    echo "== QuanTemp validation (3,084 claims, top-3 BM25 evidence), verified by the stance verifier"
    $q verify --claims data/quantemp-val/val_claimonly_evidence_question_mapping.json --verifier "stance:$work/model" --output "$work/quantemp-val.pred.jsonl" 2>&1
    $q verify-eval --gold data/quantemp-val/val_claimonly_evidence_question_mapping.json --pred "$work/quantemp-val.pred.jsonl"
    echo
    echo "== QuanTemp test, the 249 claims with the fact-checker's justification as evidence (GPT-4o: 0.5633)"
    .venv/bin/python scripts/bench/quantemp_gpt4o.py data/quantemp-test-gpt4o/model_gpt4o_test_results.csv "$work/test249"
    $q verify --verifier "stance:$work/model" --claims "$work/test249/claims.jsonl" --top 1 --output "$work/test249/stance.jsonl" 2>&1
    $q verify-eval --gold "$work/test249/gold.jsonl" --pred "$work/test249/stance.jsonl" | head -3
    echo
    echo "== prediction speed, one encoder worker: 768 claims with their 5 sentences"
    python3 -c "
import json
with open('$work/cf.jsonl', 'w') as f:
    for line in open('data/climate-fever/claims.jsonl'):
        c = json.loads(line)
        f.write(json.dumps({'id': c['claim_id'], 'claim': c['claim'], 'evidence': [e['evidence'] for e in c['evidences']]}) + '\n')"
    start=$(date +%s.%N)
    taskset -c 0 $q verify --claims "$work/cf.jsonl" --top 5 --encoder-workers 1 --verifier "stance:$work/model" --output "$work/cf.pred.jsonl" 2>&1
    end=$(date +%s.%N)
    python3 -c "s = $end - $start; print(f'{s:.1f} s for 768 claims and 3,840 sentences on one core: {1000 * s / 768:.1f} ms a claim, {768 / s:.1f} claims/s (loading the model and the encoder included)')"
    echo "-- the encoder alone on the same 4,608 texts, one worker on one core (quantir index --dense):"
    python3 -c "
import json
with open('$work/texts.jsonl', 'w') as f:
    for line in open('data/climate-fever/claims.jsonl'):
        c = json.loads(line)
        f.write(json.dumps({'_id': 'c' + c['claim_id'], 'text': c['claim']}) + '\n')
        for k, e in enumerate(c['evidences']):
            f.write(json.dumps({'_id': 'e%s-%d' % (c['claim_id'], k), 'text': e['evidence']}) + '\n')"
    rm -rf "$work/enc-index"
    start=$(date +%s.%N)
    taskset -c 0 $q index --corpus "$work/texts.jsonl" --index "$work/enc-index" --dense models/all-minilm-l6-v2 --encoder-workers 1 2>&1 | tail -1
    end=$(date +%s.%N)
    python3 -c "s = $end - $start; print(f'{s:.1f} s: {1000 * s / 768:.1f} ms a claim of the above is the encoder')"
} | tee "$out"
