#!/usr/bin/env python3
"""Splits data/quantemp-test-gpt4o/model_gpt4o_test_results.csv (249 QuanTemp test claims, each
with its fact-checker justification as `[Claim]:<claim>[Evidences]:<doc>`, the gold label and
GPT-4o's predicted label) into quantir's formats: evidence JSONL (the justification as the one
evidence text), gold JSONL, and GPT-4o's predictions JSONL (confidence 1: the file has none).

usage: quantemp_gpt4o.py CSV OUT_DIR
"""
import csv, json, os, sys

csv.field_size_limit(1 << 30)
source, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
with open(f"{out}/claims.jsonl", "w") as claims, open(f"{out}/gold.jsonl", "w") as gold, open(f"{out}/gpt4o.jsonl", "w") as gpt:
    for line, row in enumerate(csv.DictReader(open(source, newline="")), start=2):
        features = row["features"]
        if not features.startswith("[Claim]:") or "[Evidences]:" not in features:
            sys.exit(f"{source}:{line}: field features: expected [Claim]:<claim>[Evidences]:<doc>")
        claim, doc = features[len("[Claim]:"):].split("[Evidences]:", 1)
        claim = claim.strip().strip('"').strip()
        qid = row[""]
        claims.write(json.dumps({"id": qid, "claim": claim, "evidence": [doc], "label": row["true_label"]}) + "\n")
        gold.write(json.dumps({"id": qid, "label": row["true_label"]}) + "\n")
        gpt.write(json.dumps({"id": qid, "label": row["pred_label"], "confidence": 1.0, "evidence": []}) + "\n")
