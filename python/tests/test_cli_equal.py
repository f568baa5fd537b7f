"""The Python API gives the CLI's results for the same inputs: identical ids, order and scores."""

import json

import pytest

import quantir
from conftest import DATA, read_trec


def as_lists(run):
    return {qid: list(docs.items()) for qid, docs in run.items()}


def test_scifact_run_equals_the_cli(tmp_path, cli, scifact, scifact_index, scifact_cli_index):
    out = tmp_path / "cli.trec"
    cli("run", "--index", scifact_cli_index, "--claims", scifact, "-k", "1000", "--remove-query", "--output", out)
    expected = read_trec(out)
    got = scifact_index.run(scifact / "queries.jsonl", k=1000, remove_query=True)
    assert len(got) == 1109
    # Scores are written as the shortest text that reads back to the same float, so equality is exact.
    assert as_lists(got) == expected


def test_planned_fused_run_equals_the_cli(tmp_path, cli, scifact, scifact_index, scifact_cli_index):
    out = tmp_path / "cli.trec"
    cli("run", "--index", scifact_cli_index, "--claims", scifact, "--plan", "numeric", "--fusion", "rrf", "--depth", "50", "-k", "100", "--k1", "1.2", "--b", "0.75", "--output", out)
    got = scifact_index.run(scifact / "queries.jsonl", plan="numeric", fusion="rrf", depth=50, k=100, k1=1.2, b=0.75)
    assert as_lists(got) == read_trec(out)


def test_dated_claims_equal_the_cli(tmp_path, cli, quantemp_index):
    claims = DATA / "quantemp-sample/claims.jsonl"
    index = tmp_path / "idx"
    # The CLI's index keeps the corpus's order, the Python one is in date order (the default):
    # every claim's cutoff must give the same run over both layouts.
    cli("index", "--corpus", DATA / "quantemp-sample/corpus.json", "--index", index, "--doc-order", "corpus")
    assert quantir.Index(index).manifest["doc_order"] == "corpus"
    out = tmp_path / "cli.trec"
    cli("run", "--index", index, "--claims", claims, "--plan", "numeric", "-k", "100", "--output", out)
    records = [json.loads(line) for line in open(claims)]
    got = quantemp_index.run(records, plan="numeric", k=100)
    assert as_lists(got) == read_trec(out)


def test_search_equals_the_cli(cli, quantemp_index, tmp_path):
    index = tmp_path / "idx"
    cli("index", "--corpus", DATA / "quantemp-sample/corpus.json", "--index", index)
    query = "Two men were sentenced to eight months in prison for throwing bacon at a mosque."
    done = cli("search", "--index", index, "-k", "5", "--before", "2016-11-02", "--json", query)
    expected = [(h["id"], h["score"], h["date"], h["text"]) for h in json.loads(done.stdout)["hits"]]
    hits = quantemp_index.search(query, before="2016-11-02", k=5)
    assert len(hits) == 5
    assert [(h.id, h.score, h.date, h.text) for h in hits] == expected


def test_compare_equals_the_cli(tmp_path, cli, scifact, scifact_index):
    qrels = scifact / "qrels/test.tsv"
    a = scifact_index.run(scifact / "queries.jsonl", k=100, remove_query=True)
    b = scifact_index.run(scifact / "queries.jsonl", k=100, remove_query=True, k1=1.2, b=0.75)
    paths = []
    for name, run in (("a.trec", a), ("b.trec", b)):
        path = tmp_path / name
        with open(path, "w") as f:
            for qid, docs in run.items():
                for rank, (docid, score) in enumerate(docs.items(), 1):
                    f.write(f"{qid} Q0 {docid} {rank} {score!r} py\n")
        paths.append(path)
    expected = json.loads(cli("compare", "--qrels", qrels, *paths, "--json").stdout)
    got = quantir.compare(qrels, {"a.trec": a, "b.trec": b})
    assert got == expected


def test_run_scores_are_written_as_python_writes_them(tmp_path, cli, scifact, scifact_cli_index):
    # Python's repr is the oracle for the score text: the shortest digits that read back to the
    # same float, a tie going to the even digit (Rust's Display rounds it up instead).
    out = tmp_path / "cli.trec"
    cli("run", "--index", scifact_cli_index, "--claims", scifact, "-k", "1000", "--remove-query", "--output", out)
    texts = [line.split()[4] for line in open(out)]
    assert len(texts) > 100_000
    checked = 0
    for text in texts:
        expected = repr(float(text))
        if "e" not in expected:  # quantir never writes an exponent; BM25 scores never need one
            assert text == expected.removesuffix(".0"), text
            checked += 1
    assert checked == len(texts)


def test_feedback_runs_equal_the_cli(tmp_path, cli, scifact, scifact_index, scifact_cli_index):
    for flags, kwargs in (
        (["--rm3"], {"feedback": "rm3"}),
        (["--rocchio", "--fb-docs", "5", "--fb-terms", "20", "--rocchio-beta", "0.5"], {"feedback": "rocchio", "fb_docs": 5, "fb_terms": 20, "rocchio_beta": 0.5}),
    ):
        out = tmp_path / "cli.trec"
        cli("run", "--index", scifact_cli_index, "--claims", scifact, "-k", "100", "--remove-query", *flags, "--output", out)
        got = scifact_index.run(scifact / "queries.jsonl", k=100, remove_query=True, **kwargs)
        assert as_lists(got) == read_trec(out), flags
        assert got != scifact_index.run(scifact / "queries.jsonl", k=100, remove_query=True), "feedback changes the run"
    with pytest.raises(ValueError, match='feedback="prf"'):
        scifact_index.run(["x"], feedback="prf")
