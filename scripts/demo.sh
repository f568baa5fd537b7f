#!/usr/bin/env bash
# The main job on the bundled data.
# 1. SciFact: index, run its 300 test claims (BM25 k1=0.9 b=0.4, top 1000), evaluate
#    (nDCG@10 / R@10 / R@100 / MRR / MAP).
# 2. The whole pipeline on real QuanTemp claims and evidence (data/quantemp-sample): claims with
#    their dates -> planned sub-queries (the numeric planner) -> retrieval under each claim's own
#    cutoff -> CombMAX-Norm fusion -> verdicts from the trained verifier (trained on the other
#    3,072 labelled validation claims, the 12 demo claims held out), with retrieval measures and
#    verdict scores, and one claim's evidence cards; then the same claims judged card by card by the
#    stance verifier (trained on CLIMATE-FEVER), with val-115's cards and their stances.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked
q=target/release/quantir
mkdir -p index out verifiers

echo "== SciFact: index, run the test claims, evaluate"
$q index --corpus data/scifact --index index/scifact
$q run --index index/scifact --claims data/scifact --qrels data/scifact/qrels/test.tsv \
    -k 1000 --remove-query --output out/scifact.bm25.trec --eval data/scifact/qrels/test.tsv

echo
echo "== QuanTemp: 12 real claims, each searched with its own date as the cutoff"
$q index --corpus data/quantemp-sample/corpus.json --index index/quantemp-sample
$q plan --claims data/quantemp-sample/claims.jsonl --plan numeric --output out/quantemp-sample.plans.jsonl
echo "-- the numeric planner's sub-queries for val-156:"
grep '"val-156"' out/quantemp-sample.plans.jsonl
echo "-- retrieval under each claim's cutoff, sub-queries fused with CombMAX-Norm; measured against each"
echo "   claim's own QuanTemp BM25 evidence (data/quantemp-sample/qrels.tsv; the cutoff removes the newest):"
$q run --index index/quantemp-sample --claims data/quantemp-sample/claims.jsonl --plan numeric -k 100 \
    --output out/quantemp-sample.numeric.trec --eval data/quantemp-sample/qrels.tsv
echo "-- verdicts from the top-3 evidence (verifier trained on the other labelled validation claims):"
python3 - <<'PY'
import json
held_out = {json.loads(l)["id"] for l in open("data/quantemp-sample/claims.jsonl")}
items = json.load(open("data/quantemp-val/val_claimonly_evidence_question_mapping.json"))
with open("out/quantemp-val-train.jsonl", "w") as f:
    for i, item in enumerate(items):
        if f"val-{i}" not in held_out:
            evidence = [d for ev in item["evidences"] for d in ev["top_k_doc"]]
            f.write(json.dumps({"id": f"val-{i}", "claim": item["claim"].replace("/n", " "), "evidence": evidence, "label": item["label"]}) + "\n")
PY
$q train-verifier --claims out/quantemp-val-train.jsonl --folds 0 --output verifiers/quantemp-demo
$q verify --claims data/quantemp-sample/claims.jsonl --run out/quantemp-sample.numeric.trec --index index/quantemp-sample \
    --verifier trained:verifiers/quantemp-demo --output out/quantemp-sample.pred.jsonl
$q verify-eval --gold data/quantemp-sample/claims.jsonl --pred out/quantemp-sample.pred.jsonl
echo
claim="Two men were sentenced to eight months in prison for throwing bacon at a mosque."
echo "== One claim's evidence cards: \"$claim\" (val-115, True), made 2016-11-02"
echo "-- evidence published strictly before 2016-11-02:"
$q search --index index/quantemp-sample -k 3 --before 2016-11-02 "$claim"
python3 -c "
import json
p = next(json.loads(l) for l in open('out/quantemp-sample.pred.jsonl') if json.loads(l)['id'] == 'val-115')
print(f\"-- verdict: {p['label']} (confidence {p['confidence']:.2f}; gold: True)\")"
echo
echo "== The same claims judged card by card: the stance verifier (scripts/train_stance.sh; trained on"
echo "   CLIMATE-FEVER's annotated sentences, not on QuanTemp)"
$q train-stance --claims data/climate-fever/claims.jsonl --output verifiers/stance >/dev/null
$q verify --claims data/quantemp-sample/claims.jsonl --run out/quantemp-sample.numeric.trec --index index/quantemp-sample \
    --verifier stance:verifiers/stance --output out/quantemp-sample.stance.jsonl
python3 -c "
import json
p = next(json.loads(l) for l in open('out/quantemp-sample.stance.jsonl') if json.loads(l)['id'] == 'val-115')
print(f\"-- val-115: {p['label']} (confidence {p['confidence']:.2f}; gold: True); the cards it read:\")
for text, s in zip(p['evidence'], p['stances']):
    print(f\"   {s['stance']:<13} {s['probability']:.2f} (supports {s['supports']:.2f})  {text[:80]}\")"
