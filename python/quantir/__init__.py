"""quantir: evidence retrieval and verification for numerical claims, in-process.

The engine is quantir's Rust library (the same code as the ``quantir`` CLI): numeric-aware BM25
and dense search with an exact publication-date cutoff, claim decomposition, fusion,
trec_eval-equal evaluation and verification. Runs and judgments are the dicts pytrec_eval and ranx
use (``{qid: {docid: score}}``); ``ranx.Run``/``ranx.Qrels`` objects and pandas DataFrames are
accepted wherever a run or qrels is, and converted back with ``to_ranx_run``/``to_dataframe``.

    import quantir
    idx = quantir.Index.build("data/scifact", "index/scifact", format="beir")
    hits = idx.search("inflation is down close to 3%", before="2023-08-29", k=10)
    run = idx.run("data/scifact/queries.jsonl", k=1000, remove_query=True)
    quantir.evaluate("data/scifact/qrels/test.tsv", run, ["ndcg_cut.10", "recall.100"])
"""

from ._quantir import ClaimSearch, Hit, Index, OpenSearchIndex, QuantirError, Verifier, __version__, compare, evaluate, fuse, read_qrels, read_run, score
from ._convert import from_dataframe, to_dataframe, to_ranx_qrels, to_ranx_run

__all__ = [
    "ClaimSearch",
    "Hit",
    "Index",
    "OpenSearchIndex",
    "QuantirError",
    "Verifier",
    "__version__",
    "compare",
    "evaluate",
    "from_dataframe",
    "fuse",
    "read_qrels",
    "read_run",
    "score",
    "to_dataframe",
    "to_ranx_qrels",
    "to_ranx_run",
]
