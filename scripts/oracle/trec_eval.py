#!/usr/bin/env python3
"""Scores a TREC run with pytrec_eval (trec_eval 9's C code), as an independent oracle.

usage: trec_eval.py QRELS RUN [-m MEASURE ...] [-c] [-l LEVEL] [-M N] [--per-query]

QRELS: TREC (`qid 0 docid rel`) or BEIR tsv (`query-id corpus-id score` with header).
Prints JSON {"all": {measure: aggregate}, "per_query": {...}} (per_query only with --per-query);
`all` is pytrec_eval's aggregate (a sum for num_ret, num_rel and num_rel_ret, else the mean).
A measure may be a trec_eval list (P.5,10) or a bare name (iprec_at_recall).
With -c (--complete), judged queries missing from the run are evaluated as empty rankings
(trec_eval -c); -l is pytrec_eval's relevance_level (trec_eval -l); -M N cuts each query's
ranking at its top N documents in trec_eval's order, as trec_eval -M does (pytrec_eval has no -M).

Two measures are not in pytrec_eval and come from elsewhere:
- recip_rank_cut.K (MRR@K): pytrec_eval's recip_rank on the run cut at its top K documents
  (ranked as trec_eval ranks: score descending, docid descending);
- Judged@K: ir_measures' Judged@K (its own judged provider); an empty ranking, which it cannot
  divide by, is 0.
On an empty ranking (-c), trec_eval's C code divides 0 by 0 for iprec_at_recall_0.00 and gives
NaN; quantir gives 0, as for every other measure there, and so does this script.
"""
import math
import argparse, json, sys

import ir_measures
import pytrec_eval


def read_qrels(path):
    qrels = {}
    with open(path) as f:
        for i, line in enumerate(f):
            parts = line.split()
            if not parts or (i == 0 and parts[0] == "query-id"):
                continue
            if len(parts) == 3:
                q, d, r = parts
            else:
                q, _, d, r = parts
            qrels.setdefault(q, {})[d] = int(r)
    return qrels


def read_run(path):
    run = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if parts:
                run.setdefault(parts[0], {})[parts[2]] = float(parts[4])
    return run


def top(docs, k):
    """The top k docids of {docid: score} in trec_eval's order."""
    ranked = sorted(sorted(docs.items(), key=lambda x: x[0], reverse=True), key=lambda x: -x[1])
    return [d for d, _ in ranked[:k]]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("qrels")
    p.add_argument("run")
    p.add_argument("-m", action="append", default=None)
    p.add_argument("-c", "--complete", action="store_true")
    p.add_argument("-l", type=int, default=1)
    p.add_argument("-M", type=int, default=None)
    p.add_argument("--per-query", action="store_true")
    a = p.parse_args()
    measures = a.m or ["ndcg_cut.10", "recall.100", "recip_rank"]
    qrels, run = read_qrels(a.qrels), read_run(a.run)
    if a.M is not None:
        run = {q: {d: docs[d] for d in top(docs, a.M)} for q, docs in run.items()}
    if a.complete:
        run.update({q: {} for q in qrels if q not in run})
    evaluator = lambda ms, r: pytrec_eval.RelevanceEvaluator(qrels, ms, relevance_level=a.l).evaluate(r)
    plain = {m for m in measures if not m.startswith(("recip_rank_cut.", "Judged@"))}
    per_query = evaluator(plain or {"recip_rank"}, run)
    if not plain:
        per_query = {q: {} for q in per_query}
    for m in measures:
        if m.startswith("recip_rank_cut."):
            k = int(m.split(".")[1])
            cut = {q: {d: docs[d] for d in top(docs, k)} for q, docs in run.items()}
            values = evaluator({"recip_rank"}, cut)
            for q in per_query:
                per_query[q][m.replace(".", "_")] = values[q]["recip_rank"]
        elif m.startswith("Judged@"):
            measure = ir_measures.parse_measure(m)
            nonempty = {q: docs for q, docs in run.items() if docs}
            values = {r.query_id: r.value for r in ir_measures.iter_calc([measure], qrels, nonempty)}
            for q in per_query:
                per_query[q][m] = values.get(q, 0.0)
    for q, docs in run.items():
        if not docs:
            per_query[q] = {k: (0.0 if math.isnan(v) else v) for k, v in per_query[q].items()}
    keys = sorted({k for v in per_query.values() for k in v})
    n = len(per_query)
    out = {"all": {k: pytrec_eval.compute_aggregated_measure(k, [v[k] for v in per_query.values()]) if n else 0.0 for k in keys}, "num_q": n}
    if a.per_query:
        out["per_query"] = per_query
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
