"""The iterative rewrite read from dense evidence (issue 41): for each claim, the sentence of the
dense retriever's top passage that shares the most of the claim's words, appended to the claim;
the rewrite's run fused with the claim's (weighted sum, min-max) under BM25 and under hybrid, and
hybrid with the rewrite on its BM25 side only. nDCG@10, k 1000, SciFact train and test and
Climate-FEVER. Then the rewrite's weight chosen per retriever on SciFact train and Climate-FEVER
(both, not one: the weight and normalisation whose smaller gain over claim-only on the two is
largest), reported on SciFact test with the paired t-test against claim-only.
Usage (from scripts/bench_planner_dense_read.sh): python planner_dense_read.py WORK"""
import json
import re
import sys

import quantir

STOP = set("a an the of in on at to for and or is are was were be been by with as that this from it its into than not no".split())


def words(text):
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOP}


def best_sentence(claim, text):
    best, shared = None, 0
    for sentence in re.split(r"(?<=[.!?])\s+", text.strip()):
        n = len(words(claim) & words(sentence))
        if n > shared:
            best, shared = sentence, n
    return best


work = sys.argv[1]
sets = {"scifact-train": ("scifact", "data/scifact/qrels/train.tsv"), "climate-fever": ("climate-fever", "data/climate-fever/qrels/all.tsv"), "scifact-test": ("scifact", "data/scifact/qrels/test.tsv")}
print("# claim + the best sentence of the dense top passage, fused with the claim's run (wsum, min-max), nDCG@10, k 1000")
kept = {}
print("%-14s %-9s %8s %8s %8s %8s %8s %14s" % ("collection", "retriever", "claim", "rewrite", "w 0.2", "w 0.35", "w 0.5", "bm25 side 0.2"))
for name, (collection, qrels_path) in sets.items():
    index = quantir.Index(f"{work}/{collection}.idx")
    qrels = quantir.read_qrels(qrels_path)
    claims = [json.loads(line) for line in open(f"data/{collection}/queries.jsonl")]
    claims = [{"id": c["_id"], "text": c["text"]} for c in claims if c["_id"] in qrels]
    rewrites = []
    for claim in claims:
        top = [h for h in index.search(claim["text"], k=2, retriever="dense") if h.id != claim["id"]][:1]
        sentence = best_sentence(claim["text"], top[0].text) if top else None
        rewrites.append({"id": claim["id"], "text": f"{claim['text']} {sentence}" if sentence else claim["text"]})

    def ndcg(run):
        return quantir.evaluate(qrels, run, ["ndcg_cut.10"])["ndcg_cut_10"]

    bm25 = {}
    for retriever in ["bm25", "hybrid"]:
        base = index.run(claims, k=1000, remove_query=True, retriever=retriever)
        rewrite = index.run(rewrites, k=1000, remove_query=True, retriever=retriever)
        bm25[retriever] = (base, rewrite)
        kept[(name, retriever)] = (qrels, base, rewrite)
        fused = [ndcg(quantir.fuse([base, rewrite], "wsum", norm="min-max", weights=[1 - w, w])) for w in (0.2, 0.35, 0.5)]
        side = ""
        if retriever == "hybrid":
            dense = index.run(claims, k=1000, remove_query=True, retriever="dense")
            fed = quantir.fuse(list(bm25["bm25"]), "wsum", norm="min-max", weights=[0.8, 0.2])
            side = "%.4f" % ndcg(quantir.fuse([fed, dense], "combsum", norm="zmuv"))
        print("%-14s %-9s %8.4f %8.4f %8.4f %8.4f %8.4f %14s" % (name, retriever, ndcg(base), ndcg(rewrite), *fused, side), flush=True)

print("\n# the rewrite's weight chosen on scifact-train and climate-fever (largest smaller gain over claim-only), reported on scifact-test")
grid = [(norm, w) for norm in ("min-max", "zmuv") for w in (0.05, 0.1, 0.15, 0.2, 0.35, 0.5)]
for retriever in ["bm25", "hybrid"]:
    gains = {}
    for norm, w in grid:
        row = []
        for name in sets:
            qrels, base, rewrite = kept[(name, retriever)]
            fused = quantir.fuse([base, rewrite], "wsum", norm=norm, weights=[1 - w, w])
            score = quantir.evaluate(qrels, fused, ["ndcg_cut.10"])["ndcg_cut_10"]
            row.append(score - quantir.evaluate(qrels, base, ["ndcg_cut.10"])["ndcg_cut_10"])
        gains[(norm, w)] = row
        print("%-9s %-8s w %.2f  gain scifact-train %+.4f  climate-fever %+.4f  scifact-test %+.4f" % (retriever, norm, w, *row))
    norm, w = max(grid, key=lambda g: (min(gains[g][:2]), sum(gains[g][:2])))
    qrels, base, rewrite = kept[("scifact-test", retriever)]
    fused = quantir.fuse([base, rewrite], "wsum", norm=norm, weights=[1 - w, w])
    result = quantir.compare(qrels, {"claim-only": base, "dense-read": fused}, ["ndcg_cut.10"])
    test = result["runs"][1]["measures"]["ndcg_cut_10"]
    print("%-9s chosen %s w %.2f: scifact-test %.4f against claim-only %.4f (paired t-test p = %.4f)" % (retriever, norm, w, test["mean"], result["runs"][0]["measures"]["ndcg_cut_10"]["mean"], test["p"]), flush=True)
