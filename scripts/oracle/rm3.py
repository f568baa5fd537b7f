#!/usr/bin/env python3
"""RM3 written from its published definition (Anserini's Rm3Reranker: Abdul-Jaleel et al., UMass
at TREC 2004, as implemented by Anserini with fbDocs, fbTerms and originalQueryWeight), as the
oracle for quantir's expansion. It reads quantir's first pass and term statistics, not its
expansion, and writes the expansion it computes.

stdin: JSON list of queries, each {"query_terms": [terms as analysed, repeats kept],
       "feedback": [{"score": first-pass score, "terms": {term: count in the passage}}],
       "df": {term: live documents holding it}, "n": live documents,
       "fb_terms": int, "original_weight": float}
stdout: JSON list of {"document_terms": [[[term, weight], ...] per feedback document],
        "model": [[term, weight], ...], "query": [[term, weight], ...]}
"""
import json
import re
import sys

SHAPE = re.compile(r"[a-z0-9]{2,20}")


def top(weights, k):
    """The k heaviest, heaviest first, ties by term (bytes)."""
    ordered = sorted(weights.items(), key=lambda kv: (-kv[1], kv[0].encode()))
    return ordered[:k]


def expand(q):
    n, fb_terms, w = q["n"], q["fb_terms"], q["original_weight"]
    vectors = []
    for doc in q["feedback"]:
        kept = {t: float(c) for t, c in doc["terms"].items() if SHAPE.fullmatch(t) and q["df"][t] / n <= 0.1}
        vectors.append(top(kept, fb_terms))
    model = {}
    for vector, doc in zip(vectors, q["feedback"]):
        norm = sum(c for _, c in vector)
        if norm <= 0.001:
            continue
        for t, c in vector:
            model[t] = model.get(t, 0.0) + c / norm * doc["score"]
    model = top(model, fb_terms)
    total = sum(v for _, v in model)
    model = [(t, v / total) for t, v in model] if total > 0 else model
    counts = {}
    for t in q["query_terms"]:
        counts[t] = counts.get(t, 0.0) + 1.0
    qsum = sum(counts.values())
    expanded = {t: w * c / qsum for t, c in counts.items()}
    for t, p in model:
        expanded[t] = expanded.get(t, 0.0) + (1 - w) * p
    return {"document_terms": vectors, "model": model, "query": top(expanded, len(expanded))}


print(json.dumps([expand(q) for q in json.load(sys.stdin)]))
