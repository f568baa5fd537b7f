"""quantir.OpenSearchIndex against the real three-node cluster that scripts/test_opensearch.sh
starts (it runs these tests while the cluster is up and sets QUANTIR_TEST_OPENSEARCH_URL): the
same runs as the embedded index and as the CLI's OpenSearch backend, and one clear exception per
bad configuration. Without a cluster these tests fail; none is skipped."""

import json
import os
import socket

import pytest

import quantir
from conftest import DATA, ROOT, read_trec


@pytest.fixture(scope="module")
def urls():
    value = os.environ.get("QUANTIR_TEST_OPENSEARCH_URL")
    assert value, "QUANTIR_TEST_OPENSEARCH_URL is not set\n\nhint: run scripts/test_opensearch.sh scripts/test_python.sh (scripts/test.sh does), which starts the cluster"
    return value


@pytest.fixture(scope="module")
def remote(urls, scifact):
    phases = []
    idx = quantir.OpenSearchIndex.build(scifact, urls.split(","), "py-scifact", format="beir", progress=lambda phase, done, total: phases.append(phase))
    assert idx.num_docs == 5183 and len(idx) == 5183
    assert idx.name == "py-scifact" and idx.version.startswith("2.")
    return idx


def assert_same_run(ours, theirs):
    assert ours.keys() == theirs.keys()
    swapped = 0
    for qid, docs in ours.items():
        a, b = list(docs.items()), list(theirs[qid].items())
        assert len(a) == len(b), qid
        for i, ((da, sa), (db, sb)) in enumerate(zip(a, b)):
            assert abs(sa - sb) <= 1e-4 * max(abs(sa), abs(sb)), (qid, i, sa, sb)
            if da != db:
                assert any(abs(a[j][1] - sa) <= 1e-4 * abs(sa) for j in (i - 1, i + 1) if 0 <= j < len(a)), (qid, i, da, db)
                swapped += 1
    return swapped


def test_runs_equal_the_embedded_index(remote, scifact_index, scifact):
    claims = scifact / "queries.jsonl"
    embedded = scifact_index.run(claims, k=100, remove_query=True)
    cluster = remote.run(claims, k=100, remove_query=True)
    assert len(cluster) > 1000
    assert_same_run(embedded, cluster)
    # A planned run with fusion, and a cutoff for every claim.
    embedded = scifact_index.run(claims, plan="numeric", fusion="rrf", k=50, before="2000-01-01", undated="include")
    assert_same_run(embedded, remote.run(claims, plan="numeric", fusion="rrf", k=50, before="2000-01-01", undated="include"))


def test_search_returns_stored_fields(remote, scifact_index):
    hits = remote.search("vitamin D deficiency 50%", k=3)
    want = scifact_index.search("vitamin D deficiency 50%", k=3)
    assert [h.id for h in hits] == [h.id for h in want]
    assert [h.title for h in hits] == [h.title for h in want] and hits[0].text == want[0].text
    assert abs(hits[0].score - want[0].score) <= 1e-4 * want[0].score
    assert remote.search("vitamin", before="2020-01-01", k=3) == [], "SciFact is undated: nothing predates a cutoff"


def test_equals_the_cli_backend(remote, scifact, cli, tmp_path, urls):
    out = tmp_path / "run"
    cli("run", "--backend", "opensearch", "--opensearch-url", urls, "--opensearch-index", "py-scifact", "--claims", scifact, "-k", "20", "--output", out)

    theirs = {q: dict(docs) for q, docs in read_trec(out).items()}
    ours = remote.run(scifact / "queries.jsonl", k=20)
    assert {q: list(d) for q, d in ours.items() if d} == {q: list(d) for q, d in theirs.items()}
    for qid, docs in theirs.items():
        for doc, score in docs.items():
            assert abs(ours[qid][doc] - score) <= 1e-4 * abs(score)


def test_bad_configuration(urls):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        free = s.getsockname()[1]
    with pytest.raises(ConnectionError, match=f"cannot reach OpenSearch at http://127.0.0.1:{free}"):
        quantir.OpenSearchIndex(f"http://127.0.0.1:{free}", "x")
    with pytest.raises(quantir.QuantirError, match='has no quantir index "py-missing"'):
        quantir.OpenSearchIndex(urls, "py-missing")
    with pytest.raises(ValueError, match="opensearch_url: expected an http or https URL"):
        quantir.OpenSearchIndex("ftp://x", "x")
    with pytest.raises(TypeError):
        quantir.OpenSearchIndex(3, "x")


def test_bm25_parameters_are_the_index_settings(remote):
    with pytest.raises(ValueError, match="BM25's parameters are index settings"):
        remote.search("vitamin", k1=1.2)
    with pytest.raises(ValueError, match="dense encoder"):
        remote.run(["vitamin D"], mmr=True, mmr_similarity="dense")


def test_hybrid_runs_with_vectors_equal_the_cli_and_the_embedded_index(tmp_path_factory, urls, cli, tmp_path):
    """The QuanTemp sample loaded with the vectors of an embedded index built from Python: a hybrid
    run with the numeric planner and each claim's cutoff equals the CLI's over the same cluster
    index (the same ids in order, the same scores) and the embedded index's (scores within 1e-4);
    an index loaded without vectors refuses a dense run."""
    corpus, claims = DATA / "quantemp-sample/corpus.json", DATA / "quantemp-sample/claims.jsonl"
    embedded = quantir.Index.build(corpus, tmp_path_factory.mktemp("osdense") / "idx", dense=ROOT / "models/all-minilm-l6-v2")
    remote = quantir.OpenSearchIndex.build(corpus, urls.split(","), "py-quantemp-dense", vectors_from=embedded.path)
    got = remote.run(claims, plan="numeric", retriever="hybrid", k=50)
    out = tmp_path / "cli.trec"
    cli("run", "--backend", "opensearch", "--opensearch-url", urls, "--opensearch-index", "py-quantemp-dense", "--claims", claims,
        "--plan", "numeric", "--retriever", "hybrid", "-k", "50", "--output", out)
    theirs = read_trec(out)
    assert len(theirs) == 12
    assert {q: list(d) for q, d in got.items() if d} == {q: [d for d, _ in v] for q, v in theirs.items()}
    for qid, docs in theirs.items():
        for doc, score in docs:
            assert got[qid][doc] == pytest.approx(score, rel=1e-6, abs=1e-9), (qid, doc)
    want = embedded.run(claims, plan="numeric", retriever="hybrid", k=50)
    assert want.keys() == got.keys()
    for qid, docs in want.items():
        assert list(docs) == list(got[qid]), qid
        assert all(abs(docs[d] - got[qid][d]) <= 1e-4 for d in docs), qid
    # HNSW on the cluster (the sample is small enough for it to find the exact top 50).
    hnsw = remote.run(claims, retriever="dense", ann="hnsw", k=50)
    exact = remote.run(claims, retriever="dense", k=50)
    assert {q: set(d) for q, d in hnsw.items()} == {q: set(d) for q, d in exact.items()}
    # One query's search: the CLI's over the same cluster index.
    query = "Two men were sentenced to eight months in prison for throwing bacon at a mosque."
    done = cli("search", "--backend", "opensearch", "--opensearch-url", urls, "--opensearch-index", "py-quantemp-dense",
               "-k", "5", "--before", "2016-11-02", "--retriever", "hybrid", "--json", query)
    hits = remote.search(query, before="2016-11-02", k=5, retriever="hybrid")
    assert len(hits) == 5
    assert [(h.id, h.score) for h in hits] == [(h["id"], h["score"]) for h in json.loads(done.stdout)["hits"]]
    bm25_only = quantir.OpenSearchIndex.build(corpus, urls.split(","), "py-quantemp-bm25")
    with pytest.raises(ValueError, match="load the index with vectors"):
        bm25_only.run(claims, retriever="dense")
    with pytest.raises(ValueError, match="load the index with vectors"):
        bm25_only.search("vitamin D", retriever="dense")
