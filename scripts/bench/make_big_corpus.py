#!/usr/bin/env python3
"""A large QuanTemp++-layout corpus.json (one line, as the published file is) and the same
documents as quantir JSONL, from a replica's corpus.json repeated with new ids, for the memory
benchmark of scripts/bench_integrity.sh. Streams: memory stays at one copy of the source.

usage: make_big_corpus.py SOURCE_CORPUS_JSON COPIES OUT_JSON OUT_JSONL
"""
import json
import sys

source, copies, out_json, out_jsonl = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
documents = json.load(open(source))
with open(out_json, "w") as whole, open(out_jsonl, "w") as lines:
    whole.write("{")
    first = True
    for copy in range(copies):
        for key, doc in documents.items():
            id = f"{key}-{copy}"
            whole.write(("" if first else ", ") + json.dumps(id) + ": " + json.dumps(doc))
            first = False
            lines.write(json.dumps({"id": id, "title": doc.get("title", ""), "text": doc.get("snippet", ""), "date": doc.get("date"), "url": doc.get("link")}) + "\n")
    whole.write("}")
