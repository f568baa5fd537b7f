#!/usr/bin/env python3
"""Times pytrec_eval on the same files quantir eval reads: parsing the files, then evaluating.

usage: pytrec_eval_time.py QRELS RUN MEASURE...   prints "parse_s eval_s total_s"
"""
import sys, time

import pytrec_eval

t0 = time.perf_counter()
qrels = {}
for line in open(sys.argv[1]):
    q, _, d, r = line.split()
    qrels.setdefault(q, {})[d] = int(r)
run = {}
for line in open(sys.argv[2]):
    q, _, d, _, s, _ = line.split()
    run.setdefault(q, {})[d] = float(s)
t1 = time.perf_counter()
evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(sys.argv[3:]))
result = evaluator.evaluate(run)
means = {m: sum(v[m] for v in result.values()) / len(result) for m in next(iter(result.values()))}
t2 = time.perf_counter()
print(f"{t1 - t0:.3f} {t2 - t1:.3f} {t2 - t0:.3f}")
