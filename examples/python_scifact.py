# %% [markdown]
# # SciFact from Python: quantir's numbers, then fusion with ranx
#
# Run from the repository root after `pip install ./python` (and `pip install ranx` for the last
# cells). Reproduces the README's SciFact figures (BM25 k1=0.9 b=0.4, top 1000, remove-query:
# nDCG@10 0.6821, R@100 0.9220), checks them against ranx, then fuses two runs with quantir and
# with ranx and compares the fusions.

# %%
import json

import quantir
import ranx

index = quantir.Index.build("data/scifact", "index/scifact", format="beir", k1=0.9, b=0.4)
qrels = quantir.read_qrels("data/scifact/qrels/test.tsv")
# The 300 test claims: the queries the test qrels judge.
claims = [{"id": q["_id"], "text": q["text"]} for q in map(json.loads, open("data/scifact/queries.jsonl")) if q["_id"] in qrels]

# %% The BM25 run and its measures, trec_eval's numbers
bm25 = index.run(claims, k=1000, remove_query=True)
measures = quantir.evaluate(qrels, bm25, ["ndcg_cut.10", "recall.100", "recip_rank", "map"])
for name, value in measures.items():
    print(f"{name.replace('_cut_', '_cut.').replace('recall_', 'recall.'):12} {value:.4f}")

# %% The same run in ranx
ranx_qrels = quantir.to_ranx_qrels(qrels)
ranx_bm25 = quantir.to_ranx_run(bm25, name="bm25")
print("ranx ndcg@10", round(ranx.evaluate(ranx_qrels, ranx_bm25, "ndcg@10", make_comparable=True), 4))

# %% A second run (numeric planner, CombMAX-Norm over its sub-queries), fused with the first
numeric = index.run(claims, k=1000, remove_query=True, plan="numeric")
ours = quantir.fuse([bm25, numeric], "combsum", norm="min-max")
theirs = ranx.fuse(runs=[ranx_bm25, quantir.to_ranx_run(numeric, name="numeric")], norm="min-max", method="sum")
print("fused ndcg@10 quantir", round(quantir.evaluate(qrels, ours, ["ndcg_cut.10"])["ndcg_cut_10"], 4),
      "ranx", round(ranx.evaluate(ranx_qrels, theirs, "ndcg@10", make_comparable=True), 4))

# %% Significance against BM25 (paired t-test, Holm-corrected)
table = quantir.compare(qrels, {"bm25": bm25, "numeric": numeric, "combsum": ours}, ["ndcg_cut.10"])
for row in table["runs"]:
    m = row["measures"]["ndcg_cut_10"]
    print(f"{row['run']:8} {m['mean']:.4f}  p={m['p_corrected']}")
