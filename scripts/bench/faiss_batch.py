#!/usr/bin/env python3
"""The faiss side of bench_dense_batch.sh: the same document and query vectors (quantir's vector
files), IndexFlatIP, one batched search of every query on THREADS OpenMP threads, k nearest; prints
the time and queries/s. faiss has no per-query date filter in a batched search, so this is the
unfiltered search (quantir reports both).

usage: faiss_batch.py DOC_VECTORS QUERY_VECTORS K THREADS
"""
import json, os, sys, time

import faiss

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qtrvec import read  # noqa: E402


docs, queries = read(sys.argv[1]), read(sys.argv[2])
k, threads = int(sys.argv[3]), int(sys.argv[4])
faiss.omp_set_num_threads(threads)
flat = faiss.IndexFlatIP(docs.shape[1])
flat.add(docs)
flat.search(queries[:1], k)
t = time.perf_counter()
flat.search(queries, k)
took = time.perf_counter() - t
print(json.dumps({"queries": len(queries), "documents": len(docs), "exact_s": round(took, 3), "exact_qps": round(len(queries) / took, 1)}))
