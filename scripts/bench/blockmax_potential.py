#!/usr/bin/env python3
"""How much block-max pruning over document-number blocks could leave out (issue 16).

usage: blockmax_potential.py CORPUS_JSONL CLAIMS_JSONL [--k 10 100 1000] [--blocks 64 256 1024] [--claims 600]

An upper limit, not a scorer: the documents are put in date order (quantir's default layout, in
which a date cutoff is a prefix), every claim's BM25 scores (k1 0.9, b 0.4) are computed for all
documents, and with the claim's *final* k-th score as the threshold a block of B consecutive
documents is kept when the sum over the claim's terms of each term's best contribution inside
the block reaches it (block-max WAND's and BMP's bound, as tight as per-block bounds get). A
real scorer starts from a lower threshold and keeps more. Printed: the share of blocks kept and
the share of the claim terms' postings inside them (what exhaustive scoring of the kept blocks
would still read). Tokens are bm25s's (English stopwords, Snowball stemmer), close to but not
quantir's analyzer: a feasibility estimate. No date cutoff: the peers have none.
"""

import argparse
import collections
import json

import bm25s
import numpy as np
import scipy.sparse as sp
import Stemmer

parser = argparse.ArgumentParser()
parser.add_argument("corpus")
parser.add_argument("claims")
parser.add_argument("--k", type=int, nargs="+", default=[10, 100, 1000])
parser.add_argument("--blocks", type=int, nargs="+", default=[64, 256, 1024])
parser.add_argument("--claims-count", type=int, default=600, dest="count")
args = parser.parse_args()

stemmer = Stemmer.Stemmer("english")
docs = [json.loads(line) for line in open(args.corpus)]
order = np.argsort(np.array([d.get("date") or "" for d in docs]), kind="stable")
texts = [((docs[i].get("title") or "") + " " + (docs[i].get("text") or "")) for i in order]
tokens = bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False)
n, vocabulary = len(texts), len(tokens.vocab)
rows, cols, values = [], [], []
for i, ids in enumerate(tokens.ids):
    for t, f in collections.Counter(ids).items():
        rows.append(i), cols.append(t), values.append(f)
tf = sp.csc_matrix((np.array(values, dtype=np.float32), (rows, cols)), shape=(n, vocabulary))
lengths = np.array([len(ids) for ids in tokens.ids], dtype=np.float32)
k1, b = 0.9, 0.4
df = np.diff(tf.indptr)
idf = np.log(1 + (n - df + 0.5) / (df + 0.5)).astype(np.float32)
columns = {}


def column(t):
    """The documents holding term t and its contribution to each."""
    if t not in columns:
        start, end = tf.indptr[t], tf.indptr[t + 1]
        d, f = tf.indices[start:end], tf.data[start:end]
        columns[t] = (d, idf[t] * f / (f + k1 * (1 - b + b * lengths[d] / lengths.mean())))
    return columns[t]


claims = [json.loads(line) for line in open(args.claims)][: args.count]
kept = {(k, size): ([], []) for k in args.k for size in args.blocks}
for claim in claims:
    words = bm25s.tokenize([claim["text"]], stopwords="en", stemmer=stemmer, show_progress=False, return_ids=False)[0]
    terms = [(tokens.vocab[w], c) for w, c in collections.Counter(w for w in words if w in tokens.vocab).items()]
    if not terms:
        continue
    score = np.zeros(n, dtype=np.float32)
    for t, count in terms:
        d, c = column(t)
        score[d] += count * c
    total = sum(len(column(t)[0]) for t, _ in terms)
    for size in args.blocks:
        blocks = (n + size - 1) // size
        bound, postings = np.zeros(blocks), np.zeros(blocks)
        for t, count in terms:
            d, c = column(t)
            best = np.zeros(blocks)
            np.maximum.at(best, d // size, count * c)
            bound += best
            postings += np.bincount(d // size, minlength=blocks)
        for k in args.k:
            theta = np.partition(score, -k)[-k]
            keep = bound >= theta
            kept[(k, size)][0].append(keep.mean())
            kept[(k, size)][1].append(postings[keep].sum() / total)
print(f"# {n} documents in date order, {len(claims)} claims; final k-th score as the threshold")
print("k     block  blocks kept  postings in kept blocks")
for (k, size), (blocks, postings) in kept.items():
    print(f"{k:<5} {size:<6} {np.mean(blocks):<12.3f} {np.mean(postings):.3f}")
