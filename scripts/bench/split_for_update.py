#!/usr/bin/env python3
"""The update benchmark's corpora, from a QuanTemp++ folder's corpus.json (scripts/bench_update.sh).

Writes, as quantir JSONL (documents in the corpus's order), under OUT:
  full.jsonl                   every document
  base99.jsonl, add1.jsonl     all but 1% held out at random, and that 1%
  delete1.txt, final1.jsonl    1% of base99's ids, and base99 + add1 - delete1
  base90.jsonl, small/NNN.jsonl  all but 10% held out, and that 10% in 100 parts of 0.1% each
                               (base90 + every part = full)
  replace1.jsonl               new versions of 1% of base99's documents (none of delete1's)
  replaced.jsonl, replaced-deleted.jsonl
                               base99 + add1 with replace1's versions, and that less delete1
usage: split_for_update.py CORPUS_JSON OUT [SEED]
"""
import json
import random
import sys
from pathlib import Path


def main() -> None:
    corpus, out = Path(sys.argv[1]), Path(sys.argv[2])
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 39
    rng = random.Random(seed)
    with corpus.open() as f:
        records = json.load(f)
    docs = [
        {"id": doc_id, "title": r.get("title", ""), "text": r.get("text") or r["snippet"], "date": r.get("date"), "url": r.get("link") or r.get("url")}
        for doc_id, r in records.items()
    ]
    ids = [d["id"] for d in docs]
    out.mkdir(parents=True, exist_ok=True)
    (out / "small").mkdir(exist_ok=True)

    def write(path: Path, keep) -> None:
        with path.open("w") as f:
            for d in docs:
                if keep(d["id"]):
                    f.write(json.dumps(d, ensure_ascii=False) + "\n")

    one = len(ids) // 100
    held = set(rng.sample(ids, one))
    base99 = [i for i in ids if i not in held]
    deleted = set(rng.sample(base99, one))
    write(out / "full.jsonl", lambda i: True)
    write(out / "base99.jsonl", lambda i: i not in held)
    write(out / "add1.jsonl", lambda i: i in held)
    (out / "delete1.txt").write_text("".join(f"{i}\n" for i in ids if i in deleted))
    write(out / "final1.jsonl", lambda i: (i not in held and i not in deleted) or i in held)

    kept = [i for i in base99 if i not in deleted]
    changed = set(rng.sample(kept, one))
    by_id = {d["id"]: d for d in docs}
    versions = {i: dict(by_id[i], text=by_id[i]["text"] + " (corrected: 12 of 19, not 13)") for i in changed}
    with (out / "replace1.jsonl").open("w") as f:
        for i in ids:
            if i in changed:
                f.write(json.dumps(versions[i], ensure_ascii=False) + "\n")
    for name, drop in [("replaced.jsonl", set()), ("replaced-deleted.jsonl", deleted)]:
        with (out / name).open("w") as f:
            for i in ids:
                if i not in drop:
                    f.write(json.dumps(versions.get(i, by_id[i]), ensure_ascii=False) + "\n")

    ten = rng.sample(ids, len(ids) // 10)
    part = {i: n * 100 // len(ten) for n, i in enumerate(ten)}
    write(out / "base90.jsonl", lambda i: i not in part)
    for n in range(100):
        write(out / "small" / f"{n:03}.jsonl", lambda i, n=n: part.get(i) == n)
    print(f"{len(ids)} documents: 1% = {one}, 0.1% parts of {len(ten) // 100}-{-(-len(ten) // 100)}")


if __name__ == "__main__":
    main()
