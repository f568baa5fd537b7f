#!/usr/bin/env python3
"""Scores a TREC run with pytrec_eval (trec_eval 9's C code), as an independent oracle.

usage: trec_eval.py QRELS RUN [-m MEASURE ...] [--complete] [--per-query]

QRELS: TREC (`qid 0 docid rel`) or BEIR tsv (`query-id corpus-id score` with header).
Prints JSON {"all": {measure: mean}, "per_query": {...}} (per_query only with --per-query).
With --complete, judged queries missing from the run count as 0 (trec_eval -c).

Two measures are not in trec_eval and are built here on top of it:
- recip_rank_cut.K (MRR@K): pytrec_eval's recip_rank on the run cut at its top K documents
  (ranked as trec_eval ranks: score descending, docid descending);
- judged.K: the fraction of the top K that has any judgment (ir_measures' Judged@K), computed in
  this script, since pytrec_eval does not offer it.
"""
import argparse, json, sys

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
    p.add_argument("--complete", action="store_true")
    p.add_argument("--per-query", action="store_true")
    a = p.parse_args()
    measures = a.m or ["ndcg_cut.10", "recall.100", "recip_rank"]
    qrels, run = read_qrels(a.qrels), read_run(a.run)
    plain = {m for m in measures if not m.startswith(("recip_rank_cut.", "judged."))}
    per_query = pytrec_eval.RelevanceEvaluator(qrels, plain or {"recip_rank"}).evaluate(run)
    if not plain:
        per_query = {q: {} for q in per_query}
    for m in measures:
        if m.startswith("recip_rank_cut."):
            k = int(m.split(".")[1])
            cut = {q: {d: docs[d] for d in top(docs, k)} for q, docs in run.items()}
            values = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(cut)
            for q in per_query:
                per_query[q][m.replace(".", "_")] = values[q]["recip_rank"]
        elif m.startswith("judged."):
            k = int(m.split(".")[1])
            for q in per_query:
                per_query[q][m.replace(".", "_")] = sum(d in qrels[q] for d in top(run[q], k)) / k
    keys = sorted({k for v in per_query.values() for k in v})
    if a.complete:
        for q in qrels:
            if q not in per_query:
                per_query[q] = {k: 0.0 for k in keys}
    n = len(per_query)
    out = {"all": {k: (sum(v[k] for v in per_query.values()) / n if n else 0.0) for k in keys}, "num_q": n}
    if a.per_query:
        out["per_query"] = per_query
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
