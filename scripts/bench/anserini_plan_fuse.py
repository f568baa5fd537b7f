#!/usr/bin/env python3
"""The Anserini side of bench_plan.sh: date filter applied after retrieval, then CombMAX-Norm
fusion (per sub-query min-max, then max), as the QuanTemp++ reference code does it.

usage: anserini_plan_fuse.py CORPUS_JSONL CLAIMS_JSONL SUBQUERY_RUN DEPTH K OUT_RUN
SUBQUERY_RUN has topics named CLAIMID@@N. A document is kept for a claim when its date parses as
YYYY-MM-DD and is strictly before the claim's date (undated documents excluded, as quantir's
default); each sub-query keeps its first DEPTH such documents.
"""
import json, sys, time
from datetime import date

corpus, claims, sub_run, depth, k, out = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
t0 = time.perf_counter()


def parse(d):
    try:
        return date.fromisoformat(d) if d else None
    except (ValueError, TypeError):
        return None


doc_dates = {}
for line in open(corpus):
    d = json.loads(line)
    doc_dates[d["id"]] = parse(d.get("date"))
claim_dates = {}
for line in open(claims):
    c = json.loads(line)
    claim_dates[c["id"]] = parse(c.get("date"))
lists = {}
for line in open(sub_run):
    topic, _, doc, _, score, _ = line.split()
    claim, _ = topic.rsplit("@@", 1)
    cutoff = claim_dates.get(claim)
    dd = doc_dates.get(doc)
    if cutoff is not None and (dd is None or not dd < cutoff):
        continue
    ranked = lists.setdefault(claim, {}).setdefault(topic, [])
    if len(ranked) < depth:
        ranked.append((doc, float(score)))
with open(out, "w") as g:
    for claim, subs in lists.items():
        fused = {}
        for ranked in subs.values():
            scores = [s for _, s in ranked]
            lo, hi = min(scores), max(scores)
            for doc, s in ranked:
                v = (s - lo) / (hi - lo) if hi > lo else 0.0
                if v > fused.get(doc, -1.0):
                    fused[doc] = v
        top = sorted(fused.items(), key=lambda x: (-x[1], x[0]))[:k]
        for rank, (doc, s) in enumerate(top, 1):
            g.write(f"{claim} Q0 {doc} {rank} {s} anserini-fused\n")
print(f"{time.perf_counter() - t0:.3f}")
