#!/usr/bin/env python3
"""Builds data/climate-fever/ (a retrieval collection in BEIR's layout) from CLIMATE-FEVER's claims.

    scripts/make_climate_fever.py ../shared/data/climate-fever-train/claims.jsonl data/climate-fever

The claims are the queries; every distinct evidence sentence is a document (its id is the
dataset's `evidence_id`, "Article:sentence", with spaces written as underscores so that TREC run
and qrels lines keep one field per id; its title is the article); a sentence annotated SUPPORTS or
REFUTES for a claim is relevant to it (grade 1), NOT_ENOUGH_INFO is not. Claims with no relevant
sentence stay in queries.jsonl and out of the qrels (trec_eval scores only judged queries).
Deterministic: documents in first-seen order, queries in file order.
"""
import json
import sys
from pathlib import Path

RELEVANT = ("SUPPORTS", "REFUTES")


def doc_id(evidence_id):
    return evidence_id.replace(" ", "_")


def main(source, out):
    out = Path(out)
    (out / "qrels").mkdir(parents=True, exist_ok=True)
    documents = {}
    queries = []
    qrels = []
    with open(source, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            claim = json.loads(line)
            queries.append({"_id": claim["claim_id"], "text": claim["claim"], "metadata": {}})
            for e in claim["evidences"]:
                did = doc_id(e["evidence_id"])
                record = {"_id": did, "title": e["article"], "text": e["evidence"], "metadata": {}}
                if documents.setdefault(did, record) != record:
                    sys.exit(f"{source}:{n}: evidence {e['evidence_id']!r} has two texts")
                if e["evidence_label"] in RELEVANT and (claim["claim_id"], did) not in {(q, d) for q, d, _ in qrels}:
                    qrels.append((claim["claim_id"], did, 1))
    with open(out / "corpus.jsonl", "w", encoding="utf-8") as f:
        for record in documents.values():
            f.write(json.dumps(record) + "\n")
    with open(out / "queries.jsonl", "w", encoding="utf-8") as f:
        for record in queries:
            f.write(json.dumps(record) + "\n")
    with open(out / "qrels" / "all.tsv", "w", encoding="utf-8") as f:
        f.write("query-id\tcorpus-id\tscore\n")
        for q, d, s in qrels:
            f.write(f"{q}\t{d}\t{s}\n")
    judged = len({q for q, _, _ in qrels})
    print(f"{len(documents)} documents, {len(queries)} queries ({judged} judged), {len(qrels)} relevant pairs", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
