"""Planners written in Python (`Index.run(claims, plan=callable)`): the callable's sub-queries go
through the library's retrieval and fusion exactly as a `--plan` spec's do, its `search` sees only
what the claim may see, and its errors name the claim."""

import json
from decimal import Decimal

import pytest

import quantir
from conftest import DATA


def cli_plans(cli, tmp_path, claims, spec):
    out = tmp_path / "plans.jsonl"
    cli("plan", "--claims", claims, "--plan", spec, "--output", out)
    return {p["id"]: p["queries"] for p in map(json.loads, open(out))}


def as_trec(run, tag):
    """The run as the CLI writes it: a score as Python's repr (the shortest digits that read back to
    it) in positional notation, an integral one without ".0"."""
    text = lambda score: format(Decimal(repr(score)), "f").removesuffix(".0")
    return "".join(f"{qid} Q0 {doc} {rank} {text(score)} {tag}\n" for qid, docs in run.items() for rank, (doc, score) in enumerate(docs.items(), 1))


@pytest.mark.parametrize("collection", ["quantemp", "scifact"])
def test_a_python_planner_with_the_numeric_queries_gives_the_numeric_run(tmp_path, cli, collection, quantemp_index, scifact_index, scifact_cli_index):
    if collection == "quantemp":
        claims, index_path, index = DATA / "quantemp-sample/claims.jsonl", tmp_path / "idx", quantemp_index
        cli("index", "--corpus", DATA / "quantemp-sample/corpus.json", "--index", index_path)
        flags = {"k": 100}
    else:
        claims, index_path, index = DATA / "scifact/queries.jsonl", scifact_cli_index, scifact_index
        flags = {"k": 100, "remove_query": True}
    plans = cli_plans(cli, tmp_path, claims, "numeric")
    assert sum(len(q) > 1 for q in plans.values()) > 5, "the numeric planner must decompose some claims"
    seen = []

    def planner(claim, search):
        seen.append(claim["id"])
        return plans[claim["id"]]

    out = tmp_path / "cli.trec"
    extra = ["--remove-query"] if flags.get("remove_query") else []
    cli("run", "--index", index_path, "--claims", claims, "--plan", "numeric", "-k", "100", *extra, "--output", out)
    expected = out.read_text()
    got = index.run(claims, plan=planner, **flags)
    assert seen == list(plans), "called once per claim, in claim order"
    assert as_trec(got, expected.split()[5]) == expected
    # Rounds (lists of sub-queries) are taken in order: the same plan split in two rounds.
    rounds = index.run(claims, plan=lambda c, s: [plans[c["id"]][:1], plans[c["id"]][1:]], **flags)
    assert rounds == got


def test_the_search_a_planner_gets_is_cut_off_at_the_claims_date(quantemp_index):
    claims = [json.loads(line) for line in open(DATA / "quantemp-sample/claims.jsonl")]
    checked = 0

    def planner(claim, search):
        nonlocal checked
        assert search.before == claim["date"]
        hits = search(claim["text"], k=50)
        unlimited = quantemp_index.search(claim["text"], k=50)
        assert [h.id for h in hits] == [h.id for h in quantemp_index.search(claim["text"], before=claim["date"], k=50)]
        assert all(h.date is not None and h.date < claim["date"] for h in hits)
        checked += len(unlimited) > len([h for h in unlimited if h.date and h.date < claim["date"]])
        return [claim["text"]] + [h.title for h in hits[:2] if h.title]

    quantemp_index.run(claims, plan=planner, k=10)
    assert checked > 0, "some claim must have later evidence the cutoff hid"


def test_errors_inside_the_planner_name_the_claim(quantemp_index):
    claims = [json.loads(line) for line in open(DATA / "quantemp-sample/claims.jsonl")]
    bad = claims[3]["id"]

    def planner(claim, search):
        if claim["id"] == bad:
            raise KeyError("no decomposition")
        return [claim["text"]]

    with pytest.raises(RuntimeError, match=f'claim "{bad}"') as caught:
        quantemp_index.run(claims, plan=planner)
    assert isinstance(caught.value.__cause__, KeyError)
    with pytest.raises(TypeError, match=f'returned int for claim "{claims[0]["id"]}"'):
        quantemp_index.run(claims, plan=lambda c, s: 3)
    with pytest.raises(TypeError, match="expected a list of str"):
        quantemp_index.run(claims, plan=lambda c, s: [c["text"], [1]])
    with pytest.raises(TypeError, match="a planner name .* or a callable"):
        quantemp_index.run(claims, plan=3)
    with pytest.raises(ValueError, match='plan="numerik"'):
        quantemp_index.run(claims, plan="numerik")


def test_an_empty_plan_falls_back_to_the_claim(quantemp_index):
    claims = DATA / "quantemp-sample/claims.jsonl"
    assert quantemp_index.run(claims, plan=lambda c, s: []) == quantemp_index.run(claims)
