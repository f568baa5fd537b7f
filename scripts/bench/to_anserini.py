#!/usr/bin/env python3
"""Writes the same corpus and claims for Anserini: a JsonCollection ({"id", "contents"} with
contents = title + " " + text, as quantir indexes them) and a TsvString topics file.

usage: to_anserini.py CORPUS CLAIMS OUT_DIR [--qrels TSV]
  CORPUS: quantir JSONL, a BEIR folder, or a QuanTemp++ corpus.json ({"<id>": {"title", "snippet"}})
  CLAIMS: quantir JSONL, a BEIR folder, or a QuanTemp++ claims list ({split}.json; ids are positions,
          as quantir numbers them)
"""
import json, os, sys

corpus, claims, out = sys.argv[1:4]
qrels = sys.argv[sys.argv.index("--qrels") + 1] if "--qrels" in sys.argv else None
if os.path.isdir(corpus):
    corpus = os.path.join(corpus, "corpus.jsonl")
if os.path.isdir(claims):
    claims = os.path.join(claims, "queries.jsonl")
judged = None
if qrels:
    judged = set()
    for i, line in enumerate(open(qrels)):
        parts = line.split()
        if parts and not (i == 0 and parts[0] == "query-id"):
            judged.add(parts[0])
os.makedirs(os.path.join(out, "collection"), exist_ok=True)
clean = lambda s: " ".join(s.split())


def documents():
    if corpus.endswith(".json"):
        for doc_id, d in json.load(open(corpus)).items():
            yield {"id": doc_id, "title": d.get("title"), "text": d.get("snippet")}
    else:
        yield from map(json.loads, open(corpus))


def claim_records():
    if claims.endswith(".json"):
        for i, c in enumerate(json.load(open(claims))):
            yield {"id": str(i), "text": c["claim"]}
    else:
        yield from map(json.loads, open(claims))


with open(os.path.join(out, "collection", "docs.jsonl"), "w") as g:
    for d in documents():
        title, text = d.get("title") or "", d.get("text") or ""
        if not (title.strip() or text.strip()):
            continue
        doc_id = d.get("id", d.get("_id"))
        g.write(json.dumps({"id": doc_id, "contents": (title + " " + text) if title else text}) + "\n")
with open(os.path.join(out, "topics.tsv"), "w") as g, open(os.path.join(out, "claims-undated.jsonl"), "w") as u:
    for c in claim_records():
        qid = c.get("id", c.get("_id"))
        if judged is not None and qid not in judged:
            continue
        g.write(f"{qid}\t{clean(c['text'])}\n")
        u.write(json.dumps({"id": qid, "text": c["text"]}) + "\n")
