"""quantir.evaluate against pytrec_eval, quantir.fuse against ranx, the cutoff as a property."""

import random

import pytest
import pytrec_eval
import ranx

import quantir
from conftest import DATA

MEASURES = ["ndcg_cut.10", "ndcg_cut.100", "recall.10", "recall.100", "P.10", "map", "recip_rank", "Rprec", "success.1"]
PYTREC_NAMES = {"ndcg_cut", "recall", "P", "map", "recip_rank", "Rprec", "success"}


@pytest.fixture(scope="module")
def scifact_runs(scifact, scifact_index):
    queries = scifact / "queries.jsonl"
    return (
        scifact_index.run(queries, k=100, remove_query=True),
        scifact_index.run(queries, k=100, remove_query=True, k1=1.5, b=0.9),
        scifact_index.run(queries, k=100, remove_query=True, plan="numeric", fusion="combsum"),
    )


def read_qrels(path):
    qrels = {}
    for line in list(open(path))[1:]:
        q, d, r = line.split()
        qrels.setdefault(q, {})[d] = int(r)
    return qrels


def test_evaluate_equals_pytrec_eval_per_query(scifact, scifact_runs):
    qrels = read_qrels(scifact / "qrels/test.tsv")
    run = scifact_runs[0]
    oracle = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10,100", "recall.10,100", "P.10", "map", "recip_rank", "Rprec", "success.1"}).evaluate(run)
    ours = quantir.evaluate(qrels, run, MEASURES, per_query=True)
    assert set(ours) == set(oracle) and len(ours) == 300
    for qid, values in oracle.items():
        for key in ours[qid]:
            assert ours[qid][key] == pytest.approx(values[key], abs=1e-9), (qid, key)
    means = quantir.evaluate(scifact / "qrels/test.tsv", run, MEASURES)
    for key, mean in means.items():
        assert mean == pytest.approx(sum(v[key] for v in oracle.values()) / len(oracle), abs=1e-9)
    # The README's SciFact figure.
    assert round(means["ndcg_cut_10"], 4) == 0.6821


def untied(run):
    """The run with ties between scores of one query broken by a tiny, distinct offset: fusion
    over tied inputs may order equal fused scores differently, and the comparison is of values."""
    out = {}
    for qid, docs in run.items():
        out[qid] = {d: s + 1e-7 * i for i, (d, s) in enumerate(sorted(docs.items(), key=lambda x: (-x[1], x[0])))}
    return out


@pytest.mark.parametrize(
    "method,norm,ranx_method,ranx_norm,params",
    [
        ("combsum", "min-max", "sum", "min-max", {}),
        ("combsum", "zmuv", "sum", "zmuv", {}),
        ("combmax", "max", "max", "max", {}),
        ("combmnz", "sum", "mnz", "sum", {}),
        ("combmax-norm", None, "max", "min-max", {}),
        ("rrf", None, "rrf", None, {}),
        ("wsum", "min-max", "wsum", "min-max", {"weights": [0.5, 0.3, 0.2]}),
    ],
)
def test_fuse_equals_ranx(scifact_runs, method, norm, ranx_method, ranx_norm, params):
    runs = [untied(r) for r in scifact_runs]
    # k covers every fused document (3 lists of 100), so ties at a cut cannot differ.
    ours = quantir.fuse(runs, method, norm=norm, weights=params.get("weights"), k=300)
    theirs = ranx.fuse(runs=[ranx.Run(r) for r in runs], norm=ranx_norm, method=ranx_method, params=params).to_dict()
    assert set(ours) == set(theirs)
    for qid, docs in theirs.items():
        assert set(ours[qid]) == set(docs), qid
        for docid, score in docs.items():
            assert ours[qid][docid] == pytest.approx(score, abs=1e-9), (qid, docid)
        # quantir's order: score descending, then docid descending (trec_eval's).
        assert list(ours[qid]) == sorted(sorted(ours[qid], reverse=True), key=lambda d: -ours[qid][d])


def test_ranx_and_dataframes_in_and_out(scifact, scifact_runs):
    run = scifact_runs[0]
    qrels = ranx.Qrels(read_qrels(scifact / "qrels/test.tsv"))
    from_dicts = quantir.evaluate(read_qrels(scifact / "qrels/test.tsv"), run, ["ndcg_cut.10"])
    assert quantir.evaluate(qrels, quantir.to_ranx_run(run), ["ndcg_cut.10"]) == pytest.approx(from_dicts, abs=1e-12)
    frame = quantir.to_dataframe(run)
    assert list(frame.columns) == ["qid", "docid", "score", "rank"]
    assert quantir.evaluate(qrels, frame, ["ndcg_cut.10"]) == from_dicts
    assert quantir.from_dataframe(frame) == run
    assert ranx.evaluate(qrels, quantir.to_ranx_run(run), "ndcg@10", make_comparable=True) == pytest.approx(from_dicts["ndcg_cut_10"], abs=1e-9)


def test_cutoff_is_exact_from_python(quantemp_index):
    """Every hit is dated strictly before the cutoff, and the hits are the top k of the eligible
    documents: the no-cutoff ranking filtered by date, never a filtered top k."""
    rng = random.Random(7)
    claims = [line for line in open(DATA / "quantemp-sample/claims.jsonl")]
    import json

    texts = [json.loads(c)["text"] for c in claims]
    everything = len(quantemp_index)
    for _ in range(40):
        query = rng.choice(texts)
        before = f"{rng.randint(2008, 2023)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        k = rng.choice([1, 3, 10, 50])
        hits = quantemp_index.search(query, before=before, k=k)
        assert all(h.date is not None and h.date < before for h in hits)
        full = quantemp_index.search(query, k=everything)
        eligible = [(h.id, h.score) for h in full if h.date is not None and h.date < before][:k]
        assert [(h.id, h.score) for h in hits] == eligible, (query, before, k)
