#!/usr/bin/env python3
"""Converts the published QuanTemp ClaimDecomp questions (test_claimdecomp.csv) into quantir's
decomposition JSONL (run once by a developer; the output is committed under queries/).

usage: make_claimdecomp_queries.py test_claimdecomp.csv queries/quantemp-test.claimdecomp.jsonl
Rows keep their order: id = 0-based row = the claim's position in the QuanTemp test set.
"""
import csv, json, sys

src, out = sys.argv[1], sys.argv[2]
with open(src, newline="") as f, open(out, "w") as g:
    reader = csv.DictReader(f, delimiter="@")
    for i, row in enumerate(reader):
        claim = row["claims"].strip().strip('"').strip()
        questions = [q.strip() for q in row["questions"].split("Next Question:") if q.strip()]
        g.write(json.dumps({"id": str(i), "claim": claim, "queries": questions}, ensure_ascii=False) + "\n")
