#!/usr/bin/env python3
"""Top-k agreement of two TREC runs: mean over shared queries of |A@k ∩ B@k| / k, by rank order
(score descending, docid descending, as trec_eval ranks).

usage: compare_runs.py RUN_A RUN_B [K ...]
"""
import sys

def read(path):
    run = {}
    for line in open(path):
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, []).append((float(s), d))
    # docid descending first, then a stable sort by score descending: trec_eval's order.
    return {q: [d for s, d in sorted(sorted(v, key=lambda x: x[1], reverse=True), key=lambda x: -x[0])] for q, v in run.items()}

a, b = read(sys.argv[1]), read(sys.argv[2])
ks = [int(k) for k in sys.argv[3:]] or [10, 100, 1000]
shared = sorted(set(a) & set(b))
for k in ks:
    overlap = sum(len(set(a[q][:k]) & set(b[q][:k])) / k for q in shared) / max(len(shared), 1)
    print(f"overlap@{k} {overlap:.4f} over {len(shared)} queries")
