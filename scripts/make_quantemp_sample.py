#!/usr/bin/env python3
"""Builds data/quantemp-sample/ from the real QuanTemp validation evidence (run once, by a developer;
its output is committed, and nothing at build, test or run time reads the source).

usage: make_quantemp_sample.py SOURCE_DIR OUT_DIR
SOURCE_DIR holds val_claimonly_evidence_question_mapping.json (see data/quantemp-sample/SOURCES.md).

corpus.json: every distinct evidence snippet that carries a `YYYY-MM-DD  text` prefix, in the
QuanTemp++ corpus schema {"<id>": {"title", "snippet", "date"}}; the prefix is the date, the rest
the snippet; ids are qt-NNNN in first-seen order. The source has no titles or links.
claims.jsonl: the first 12 claims (file order) with at least two dated snippets among their own
top-3 evidence, as {"id", "text", "date", "label"}. The source gives no claim dates, so "date" is
a demo cutoff: the most recent date among that claim's own dated snippets, so a run with it
drops that snippet (published that day, not strictly before) and keeps the older ones.
qrels.tsv: for each of those claims, its own dated top-3 snippets, relevance 1 (TREC qrels): not
relevance judgments, but the evidence QuanTemp's own BM25 found for the claim, so a run's
measures against it say how much of that evidence quantir finds (and how much the cutoff removes).
"""
import json, os, re, sys

src, out = sys.argv[1], sys.argv[2]
pattern = re.compile(r"^(\d{4}-\d{2}-\d{2})  (.*)$", re.S)
items = json.load(open(os.path.join(src, "val_claimonly_evidence_question_mapping.json")))
corpus, id_of = {}, {}
for item in items:
    for ev in item["evidences"]:
        for doc in ev["top_k_doc"]:
            m = pattern.match(doc)
            if m and doc not in id_of:
                id_of[doc] = f"qt-{len(id_of) + 1:04d}"
                corpus[id_of[doc]] = {"title": "", "snippet": m.group(2).strip(), "date": m.group(1)}
claims, qrels = [], []
for index, item in enumerate(items):
    dated = [pattern.match(d).group(1) for ev in item["evidences"] for d in ev["top_k_doc"] if pattern.match(d)]
    if len(dated) >= 2 and len(claims) < 12:
        claims.append({"id": f"val-{index}", "text": item["claim"].replace("/n", " "), "date": max(dated), "label": item["label"]})
        own = sorted({id_of[d] for ev in item["evidences"] for d in ev["top_k_doc"] if d in id_of})
        qrels += [f"val-{index} 0 {doc} 1" for doc in own]
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, "corpus.json"), "w") as f:
    json.dump(corpus, f, indent=1, ensure_ascii=False)
    f.write("\n")
with open(os.path.join(out, "claims.jsonl"), "w") as f:
    for c in claims:
        f.write(json.dumps(c, ensure_ascii=False) + "\n")
with open(os.path.join(out, "qrels.tsv"), "w") as f:
    f.write("\n".join(qrels) + "\n")
print(f"{len(corpus)} snippets, {len(claims)} claims, {len(qrels)} qrels")
