#!/usr/bin/env python3
"""bm25s searching the claims quantir's CLI searches, timed as its own benchmark times it.

usage: bm25s_peer.py COLLECTION_JSONL TOPICS_TSV REPEAT K... > rows.csv

COLLECTION_JSONL is the Anserini collection bench_bm25.sh writes (`id`, `contents`: the passage
quantir indexes), TOPICS_TSV its claims (`qid<TAB>text`). The claims are searched REPEAT times
over (the same list quantir's CLI is given, so a run lasts long enough to time), BM25 k1=0.9
b=0.4, one thread, for each K. Timed: tokenizing the claims (English stopwords, the Snowball
English stemmer: its README's setting) and `retrieve`, whose result is bm25s's own (arrays of
document indices and scores, as xhluca/bm25-benchmarks times it), not a run file or dicts; the
index build and numba's compilation (a warm-up search) are not. Each K's time is the fastest of
3 runs. Prints raw.csv rows: `corpus,system,step,seconds,peak_rss_mb,items` with the corpus
name left for the caller (`-`) and peak memory the process's after all runs.
"""

import json
import resource
import sys
import time

import bm25s
import Stemmer

collection, topics, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3])
depths = [int(k) for k in sys.argv[4:]]

docs = [json.loads(line)["contents"] for line in open(collection)]
claims = [line.rstrip("\n").split("\t", 1)[1] for line in open(topics) if line.strip()] * repeat
stemmer = Stemmer.Stemmer("english")
for backend in ("numba", "numpy"):
    retriever = bm25s.BM25(k1=0.9, b=0.4, backend=backend)
    retriever.index(bm25s.tokenize(docs, stopwords="en", stemmer=stemmer, show_progress=False), show_progress=False)
    for k in depths:
        k = min(k, len(docs))

        def search():
            tokens = bm25s.tokenize(claims, stopwords="en", stemmer=stemmer, show_progress=False)
            return retriever.retrieve(tokens, k=k, n_threads=1, show_progress=False)

        search()  # warm-up (numba compiles on first use)
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            found, _scores = search()
            best = min(best, time.perf_counter() - start)
        assert found.shape == (len(claims), k)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
        print(f"-,bm25s-{backend},search-repeated@{k},{best:.3f},{peak},{len(claims)}")
