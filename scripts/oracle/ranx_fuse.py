#!/usr/bin/env python3
"""Fuses TREC runs with ranx (the oracle for `quantir fuse`) for several method/norm pairs at once.

usage: ranx_fuse.py OUT_JSON RUN... --combos METHOD:NORM[:W,W,...] ...
METHOD is a ranx name (sum, max, mnz, rrf, wsum), NORM a ranx normalisation (min-max, max, sum,
zmuv, rank) or none. Writes {"METHOD:NORM[:W]": {qid: {docid: score}}} to OUT_JSON.
Oracle: ranx 0.3.21 (`ranx.fuse`), as installed by scripts/setup_python.sh.
"""
import json, sys

from ranx import Run, fuse

args = sys.argv[1:]
out, rest = args[0], args[1:]
split = rest.index("--combos")
paths, combos = rest[:split], rest[split + 1 :]


def load(path):
    d = {}
    for line in open(path):
        q, _, doc, _, score, _ = line.split()
        d.setdefault(q, {})[doc] = float(score)
    return Run.from_dict(d)


runs = [load(p) for p in paths]
result = {}
for combo in combos:
    parts = combo.split(":")
    method, norm = parts[0], parts[1]
    params = {"weights": [float(w) for w in parts[2].split(",")]} if len(parts) > 2 else {}
    fused = fuse(runs=runs, norm=None if norm == "none" else norm, method=method, params=params)
    result[combo] = {q: {d: float(s) for d, s in docs.items()} for q, docs in fused.to_dict().items()}
json.dump(result, open(out, "w"))
