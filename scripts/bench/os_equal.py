#!/usr/bin/env python3
"""Compares two TREC runs of the same claims (the embedded index's and the cluster's): claims
whose ranked ids are identical, positions whose ids differ only within a tie (scores equal to
1e-4 relative), positions that differ otherwise, and the largest score difference relative to the
claim's top score (fused scores are min-max normalised, so a relative difference of a score near
0 only measures f32 rounding) and in absolute terms.

usage: os_equal.py EMBEDDED_RUN OTHER_RUN
"""
import sys


def read(path):
    run = {}
    for line in open(path):
        qid, _, doc, _, score, _ = line.split()
        run.setdefault(qid, []).append((doc, float(score)))
    return run


a, b = read(sys.argv[1]), read(sys.argv[2])
close = lambda x, y: abs(x - y) <= 1e-4 * max(abs(x), abs(y), 1e-9)
identical = tied = other = 0
worst = absolute = 0.0
for qid in set(a) | set(b):
    x, y = a.get(qid, []), b.get(qid, [])
    if [d for d, _ in x] == [d for d, _ in y]:
        identical += 1
    for i, ((dx, sx), (dy, sy)) in enumerate(zip(x, y)):
        worst = max(worst, abs(sx - sy) / max(abs(x[0][1]), 1e-9))
        absolute = max(absolute, abs(sx - sy))
        if dx != dy:
            near = (i > 0 and close(x[i - 1][1], sx)) or (i + 1 < len(x) and close(x[i + 1][1], sx))
            if near and close(sx, sy):
                tied += 1
            else:
                other += 1
    other += abs(len(x) - len(y))
print(f"{len(set(a) | set(b))} claims, {identical} with identical ranked ids; {tied} positions swapped within ties, {other} other differences; max score difference {worst:.1e} of the top score ({absolute:.1e} absolute)")
