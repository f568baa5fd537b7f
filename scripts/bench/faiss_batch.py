#!/usr/bin/env python3
"""The faiss side of bench_dense_batch.sh: the same document and query vectors (quantir's vector
files), IndexFlatIP, one batched search of every query on THREADS OpenMP threads, k nearest; prints
the time and queries/s. faiss has no per-query date filter in a batched search, so this is the
unfiltered search (quantir reports both).

usage: faiss_batch.py DOC_VECTORS QUERY_VECTORS K THREADS
"""
import json, struct, sys, time

import faiss
import numpy as np


def read(path):
    raw = open(path, "rb").read()
    assert raw[:8] == b"QTRVEC\0\0"
    dim, count, dtype = struct.unpack("<I", raw[12:16])[0], struct.unpack("<Q", raw[16:24])[0], struct.unpack("<I", raw[24:28])[0]
    return np.frombuffer(raw[32:], dtype="<f4" if dtype == 0 else "<f2").astype("float32").reshape(count, dim)


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
