#!/usr/bin/env python3
"""RM3 and Rocchio written from their published definitions, as Anserini implements them
(Rm3Reranker: Abdul-Jaleel et al., UMass at TREC 2004, with fbDocs, fbTerms and
originalQueryWeight; RocchioReranker: alpha, beta, topFbDocs, topFbTerms, no negative feedback),
as the oracle for quantir's expansion. It reads quantir's first pass and term statistics, not its
expansion, and writes the expansion it computes.

stdin: JSON list of queries, each {"method": "rm3" | "rocchio",
       "query_terms": [terms as analysed, repeats kept],
       "feedback": [{"score": first-pass score, "terms": {term: count in the passage}}],
       "df": {term: live documents holding it}, "n": live documents, "fb_terms": int,
       "original_weight": float (rm3), "alpha", "beta": float (rocchio)}
stdout: JSON list of {"document_terms": [[[term, weight], ...] per feedback document],
        "model": [[term, weight], ...], "query": [[term, weight], ...]}
"""
import json
import math
import re
import sys

RM3_SHAPE = re.compile(r"[a-z0-9]{2,20}")


def java_length(term):
    """String.length(): UTF-16 code units."""
    return len(term.encode("utf-16-le")) // 2


def top(weights, k):
    """The k heaviest, heaviest first, ties by term (bytes)."""
    ordered = sorted(weights.items(), key=lambda kv: (-kv[1], kv[0].encode()))
    return ordered[:k]


def l1(terms):
    return sum(abs(v) for _, v in terms)


def l2(terms):
    return math.sqrt(sum(v * v for _, v in terms))


def scaled(terms, norm):
    n = norm(terms)
    return [(t, v / n) for t, v in terms] if n > 0 else terms


def combined(a, wa, b, wb):
    out = {t: wa * v for t, v in a}
    for t, v in b:
        out[t] = out.get(t, 0.0) + wb * v
    return top({t: v for t, v in out.items() if v > 0}, len(out))


def expand(q):
    n, fb_terms, rm3 = q["n"], q["fb_terms"], q["method"] == "rm3"
    vectors = []
    for doc in q["feedback"]:
        shaped = (lambda t: RM3_SHAPE.fullmatch(t)) if rm3 else (lambda t: 2 <= java_length(t) <= 20)
        kept = {t: float(c) for t, c in doc["terms"].items() if shaped(t) and q["df"][t] / n <= 0.1}
        vectors.append(top(kept, fb_terms if rm3 else len(kept)))
    counts = {}
    for t in q["query_terms"]:
        counts[t] = counts.get(t, 0.0) + 1.0
    original = list(counts.items())
    model = {}
    if rm3:
        for vector, doc in zip(vectors, q["feedback"]):
            norm = l1(vector)
            if norm <= 0.001:
                continue
            for t, c in vector:
                model[t] = model.get(t, 0.0) + c / norm * doc["score"]
        model = scaled(top(model, fb_terms), l1)
        w = q["original_weight"]
        query = combined(scaled(original, l1), w, model, 1 - w)
    else:
        for vector in vectors:
            norm = l2(vector)
            if norm <= 0.001:
                continue
            for t, c in vector:
                model[t] = model.get(t, 0.0) + c / norm
        mean = {t: v / max(len(vectors), 1) for t, v in model.items()}
        model = scaled(top(mean, fb_terms), l2)
        query = combined(scaled(original, l2), q["alpha"], model, q["beta"])
    return {"document_terms": vectors, "model": model, "query": query}


print(json.dumps([expand(q) for q in json.load(sys.stdin)]))
