"""Dense and hybrid retrieval from Python equal the CLI's on the same index; progress=True draws
tqdm bars on stderr."""

import json

import pytest

import quantir
from conftest import DATA, ROOT, read_trec

MODEL = ROOT / "models/all-minilm-l6-v2"


@pytest.fixture(scope="module")
def dense_index(tmp_path_factory):
    """The QuanTemp sample with vectors, built from Python (the model found as the CLI finds it
    when only its folder is named)."""
    return quantir.Index.build(DATA / "quantemp-sample/corpus.json", tmp_path_factory.mktemp("dense") / "idx", dense=MODEL)


@pytest.mark.parametrize("retriever", ["dense", "hybrid"])
def test_dense_and_hybrid_runs_equal_the_cli(tmp_path, cli, dense_index, retriever):
    assert dense_index.has_vectors
    claims = DATA / "quantemp-sample/claims.jsonl"
    out = tmp_path / "cli.trec"
    cli("run", "--index", dense_index.path, "--claims", claims, "--retriever", retriever, "-k", "50", "--output", out)
    got = dense_index.run([json.loads(line) for line in open(claims)], retriever=retriever, k=50)
    expected = read_trec(out)
    assert {q: list(docs) for q, docs in got.items()} == {q: [d for d, _ in v] for q, v in expected.items()}
    for qid, docs in expected.items():
        for docid, score in docs:
            assert got[qid][docid] == pytest.approx(score, rel=1e-6), (qid, docid)


@pytest.mark.parametrize("retriever", ["dense", "hybrid"])
def test_dense_and_hybrid_search_equal_the_cli(cli, dense_index, retriever):
    query = "Two men were sentenced to eight months in prison for throwing bacon at a mosque."
    done = cli("search", "--index", dense_index.path, "-k", "5", "--before", "2016-11-02", "--retriever", retriever, "--json", query)
    expected = [(h["id"], h["score"], h["date"]) for h in json.loads(done.stdout)["hits"]]
    hits = dense_index.search(query, before="2016-11-02", k=5, retriever=retriever)
    assert len(hits) == 5 and all(h.date < "2016-11-02" for h in hits)
    assert [(h.id, h.score, h.date) for h in hits] == expected
    # BM25's scores for the same query are others: the retriever was used.
    assert [h.score for h in dense_index.search(query, before="2016-11-02", k=5)] != [h.score for h in hits]
    with pytest.raises(ValueError, match="expected the query's text"):
        dense_index.search("  ", retriever=retriever)


def test_dense_needs_vectors(quantemp_index):
    with pytest.raises(ValueError, match="has no dense vectors|--dense"):
        quantemp_index.run(["a claim"], retriever="dense")
    with pytest.raises(ValueError, match="has no dense vectors|--dense"):
        quantemp_index.search("a claim", retriever="dense")


def test_progress_true_draws_tqdm_bars(capsys, quantemp_index):
    quantemp_index.run([json.loads(line) for line in open(DATA / "quantemp-sample/claims.jsonl")], progress=True)
    err = capsys.readouterr().err
    assert "claims" in err and "12/12" in err


def test_device_cuda_without_a_gpu_runtime_is_a_clear_error_and_auto_falls_back(tmp_path, dense_index):
    """This machine's ONNX Runtime is the CPU build: device="cuda" names it and the fix, and
    builds nothing; device="auto" encodes on the CPU, the same vectors as device="cpu"."""
    corpus = DATA / "quantemp-sample/corpus.json"
    with pytest.raises(quantir.QuantirError, match=r"cannot encode on the GPU[\s\S]*CPU build[\s\S]*scripts/setup_gpu.sh"):
        quantir.Index.build(corpus, tmp_path / "cuda", dense=MODEL, device="cuda")
    assert not (tmp_path / "cuda").exists()
    with pytest.raises(ValueError, match='device="gpu": expected one of "cpu", "cuda", "auto"'):
        quantir.Index.build(corpus, tmp_path / "gpu", dense=MODEL, device="gpu")
    auto = quantir.Index.build(corpus, tmp_path / "auto", dense=MODEL, device="auto")
    claims = [json.loads(line) for line in open(DATA / "quantemp-sample/claims.jsonl")]
    assert auto.run(claims, retriever="dense", k=20) == dense_index.run(claims, retriever="dense", k=20)


@pytest.mark.parametrize("retriever", ["dense", "hybrid"])
def test_a_python_planner_searches_by_the_dense_retriever_under_the_claims_cutoff(dense_index, retriever):
    """In a BM25 run, a planner's search(retriever=…) answers as Index.search does with the claim's
    date as `before` (and sees nothing dated on or after it)."""
    claims = [json.loads(line) for line in open(DATA / "quantemp-sample/claims.jsonl")]
    hidden = 0

    def planner(claim, search):
        nonlocal hidden
        hits = search(claim["text"], k=5, retriever=retriever)
        expected = dense_index.search(claim["text"], before=claim["date"], k=5, retriever=retriever)
        assert [(h.id, h.score) for h in hits] == [(h.id, h.score) for h in expected]
        assert all(h.date is not None and h.date < claim["date"] for h in hits)
        uncut = dense_index.search(claim["text"], k=5, retriever=retriever)
        hidden += [h.id for h in uncut] != [h.id for h in hits]
        assert [h.id for h in search(claim["text"], k=5)] == [h.id for h in dense_index.search(claim["text"], before=claim["date"], k=5)], "BM25 by default"
        return [claim["text"]] + [h.text.split(". ")[0] for h in hits[:1]]

    run = dense_index.run(claims, plan=planner, k=10)
    assert len(run) == len(claims)
    assert hidden > 0, "some claim must have later evidence the cutoff hid"


def test_a_python_planners_dense_search_needs_vectors(quantemp_index):
    with pytest.raises(RuntimeError, match="plan callable raised on claim") as caught:
        quantemp_index.run(["a claim"], plan=lambda claim, search: search(claim["text"], retriever="dense"))
    assert isinstance(caught.value.__cause__, ValueError) and "no dense vectors" in str(caught.value.__cause__)
    with pytest.raises(RuntimeError) as caught:
        quantemp_index.run(["a claim"], plan=lambda claim, search: search(claim["text"], retriever="splade"))
    assert 'retriever="splade"' in str(caught.value.__cause__)
