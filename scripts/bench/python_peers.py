#!/usr/bin/env python3
"""quantir's Python API against Pyserini's LuceneSearcher.batch_search and bm25s, in one process.

usage: python_peers.py NAME CORPUS_JSONL CLAIMS_JSONL ANSERINI_INDEX OUT_JSON [--qrels TSV] [--remove-query]

Every system searches the same claims (no date cutoff: the peers have none) for the top 1000 and
the top 10, on one thread and on two, BM25 k1=0.9 b=0.4; each timing is the median of 3 runs after a warm-up
(bm25s's numba backend compiles on first use). Claims/s counts query analysis and the results as
Python objects: what a researcher's loop gets. Quality: nDCG@10 by pytrec_eval when qrels are
given, else top-10 overlap with Pyserini. With --remove-query a hit whose id is the claim's is
dropped (BEIR's convention): inside retrieval for quantir, afterwards for the peers.
"""

import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import bm25s  # noqa: E402
import numpy  # noqa: E402
import pytrec_eval  # noqa: E402
import Stemmer  # noqa: E402

import quantir  # noqa: E402
from pyserini_import import LuceneSearcher  # noqa: E402

name, corpus_path, claims_path, anserini_index, out_path = sys.argv[1:6]
qrels_path = sys.argv[sys.argv.index("--qrels") + 1] if "--qrels" in sys.argv else None
remove_query = "--remove-query" in sys.argv
DEPTHS, REPEATS = (1000, 10), 3

docs = [json.loads(line) for line in open(corpus_path)]
docs = [d for d in docs if (d.get("title") or "").strip() or (d.get("text") or "").strip()]
doc_ids = [str(d.get("id", d.get("_id"))) for d in docs]
# The passage quantir indexes (title, a space, text), for bm25s too.
passages = [(d["title"] + " " + d["text"]) if d.get("title") else d["text"] for d in docs]
claims = [json.loads(line) for line in open(claims_path)]
qrels = None
if qrels_path:
    qrels = {}
    for i, line in enumerate(open(qrels_path)):
        parts = line.split()
        if parts and not (i == 0 and parts[0] == "query-id"):
            qrels.setdefault(parts[0], {})[parts[1]] = int(parts[2])
    claims = [c for c in claims if str(c.get("id", c.get("_id"))) in qrels]
qids = [str(c.get("id", c.get("_id"))) for c in claims]
texts = [" ".join(c["text"].split()) for c in claims]
records = [{"id": q, "text": t} for q, t in zip(qids, texts)]


def timed(fn):
    fn()  # warm-up
    seconds = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        result = fn()
        seconds.append(time.perf_counter() - start)
    return result, statistics.median(seconds)


def drop_query(run):
    if not remove_query:
        return run
    return {q: {d: s for d, s in docs.items() if d != q} for q, docs in run.items()}


results = {"name": name, "docs": len(docs), "claims": len(claims), "depths": list(DEPTHS), "systems": {}}

# quantir: the index built from Python, runs from Python.
workdir = Path(out_path).parent / f"{name}-quantir-index"
start = time.perf_counter()
index = quantir.Index.build(corpus_path, workdir)
results["quantir_index_seconds"] = time.perf_counter() - start

# bm25s: its tokenizer with English stopwords and the Snowball English stemmer (its README's setting).
stemmer = Stemmer.Stemmer("english")
start = time.perf_counter()
retrievers = {}
corpus_tokens = bm25s.tokenize(passages, stopwords="en", stemmer=stemmer, show_progress=False)
for backend in ("numpy", "numba"):
    r = bm25s.BM25(k1=0.9, b=0.4, backend=backend)
    r.index(corpus_tokens, show_progress=False)
    retrievers[backend] = r
results["bm25s_index_seconds"] = (time.perf_counter() - start) / 2

searcher = LuceneSearcher(anserini_index)
searcher.set_bm25(0.9, 0.4)


def run_quantir(k, threads):
    return lambda: index.run(records, k=k, threads=threads, remove_query=remove_query)


def run_pyserini(k, threads):
    def go():
        hits = searcher.batch_search(texts, qids, k=k, threads=threads)
        return drop_query({q: {h.docid: h.score for h in hits[q]} for q in qids})

    return go


id_array = numpy.array(doc_ids)


def run_bm25s(backend, k, threads):
    retriever = retrievers[backend]

    def go():
        tokens = bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False)
        found, scores = retriever.retrieve(tokens, k=min(k, len(docs)), n_threads=threads, show_progress=False)
        # The fastest conversion to a run found: whole rows through numpy, then tolist().
        return drop_query({q: dict(zip(id_array[row].tolist(), srow.tolist())) for q, row, srow in zip(qids, found, scores)})

    return go


def quality(run, reference):
    if qrels is not None:
        per_query = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}).evaluate(run)
        return {"ndcg_cut_10": sum(v["ndcg_cut_10"] for v in per_query.values()) / len(qrels)}
    if reference is None:
        return {}
    top = lambda r, q: set(list(r.get(q, {}))[:10])
    return {"top10_overlap_with_pyserini": sum(len(top(run, q) & top(reference, q)) for q in qids) / (10 * len(qids))}


reference = None
for system, make in (("pyserini", run_pyserini), ("quantir", run_quantir), ("bm25s-numpy", lambda k, t: run_bm25s("numpy", k, t)), ("bm25s-numba", lambda k, t: run_bm25s("numba", k, t))):
    entry = {}
    for k in DEPTHS:
        for threads in (1, 2):
            run, seconds = timed(make(k, threads))
            entry[f"k{k}_threads_{threads}"] = {"seconds": seconds, "claims_per_s": len(claims) / seconds}
            if k == 1000 and threads == 1:
                deep = run
    if system == "pyserini":
        reference = deep
    entry.update(quality(deep, reference if system != "pyserini" else None))
    results["systems"][system] = entry
    print(system, json.dumps(entry), file=sys.stderr)

json.dump(results, open(out_path, "w"), indent=1)
