#!/usr/bin/env python3
"""The faiss side of bench_dense.sh: the same document and query vectors (quantir's vector files),
IndexFlatIP (exact) and IndexHNSWFlat (M=16, efConstruction=200, efSearch=EF, inner product), one
thread, k nearest; prints queries/s of each and HNSW's recall@k against exact.

usage: faiss_search.py DOC_VECTORS QUERY_VECTORS K EF
"""
import json, os, sys, time

import faiss
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qtrvec import read  # noqa: E402


docs, queries = read(sys.argv[1]), read(sys.argv[2])
k, ef = int(sys.argv[3]), int(sys.argv[4])
faiss.omp_set_num_threads(1)
flat = faiss.IndexFlatIP(docs.shape[1]); flat.add(docs)
hnsw = faiss.IndexHNSWFlat(docs.shape[1], 16, faiss.METRIC_INNER_PRODUCT); hnsw.hnsw.efConstruction = 200
t = time.perf_counter(); hnsw.add(docs); build = time.perf_counter() - t
hnsw.hnsw.efSearch = ef


def timed(index):
    t = time.perf_counter()
    _, ids = index.search(queries, k)
    return len(queries) / (time.perf_counter() - t), ids


exact_qps, exact = timed(flat)
hnsw_qps, approx = timed(hnsw)
recall = np.mean([len(set(a) & set(e)) / k for a, e in zip(approx, exact)])
print(json.dumps({"exact_qps": round(exact_qps, 1), "hnsw_qps": round(hnsw_qps, 1), "hnsw_recall": round(float(recall), 4), "hnsw_build_s": round(build, 2)}))
