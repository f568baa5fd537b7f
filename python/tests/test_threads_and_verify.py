"""Threads share one index and get one thread's answers; the verifier equals the CLI's."""

import json
from concurrent.futures import ThreadPoolExecutor

import pytest
from sklearn.metrics import accuracy_score, f1_score

import quantir
from conftest import DATA


def test_threads_searching_one_index_agree_with_one_thread(scifact, scifact_index):
    queries = [json.loads(line)["text"] for line in open(scifact / "queries.jsonl")][:200]
    alone = [[(h.id, h.score) for h in scifact_index.search(q, k=20)] for q in queries]
    with ThreadPoolExecutor(max_workers=8) as pool:
        together = list(pool.map(lambda q: [(h.id, h.score) for h in scifact_index.search(q, k=20)], queries))
    assert together == alone
    expected = scifact_index.run(scifact / "queries.jsonl", k=100, threads=1)
    with ThreadPoolExecutor(max_workers=4) as pool:
        runs = list(pool.map(lambda _: scifact_index.run(scifact / "queries.jsonl", k=100), range(4)))
    assert all(r == expected for r in runs)


@pytest.fixture(scope="module")
def verifier_data(tmp_path_factory):
    """300 labelled QuanTemp validation claims with their evidence to train on, 60 to predict."""
    items = json.load(open(DATA / "quantemp-val/val_claimonly_evidence_question_mapping.json"))
    folder = tmp_path_factory.mktemp("verify")
    records = []
    for i, item in enumerate(items[:360]):
        evidence = [d for ev in item["evidences"] for d in ev["top_k_doc"]]
        records.append({"id": f"val-{i}", "claim": item["claim"].replace("/n", " "), "evidence": evidence, "label": item["label"]})
    train, test = records[:300], records[300:]
    with open(folder / "train.jsonl", "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in train)
    with open(folder / "test.jsonl", "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in test)
    return folder, test


def test_verifier_equals_the_cli(cli, verifier_data):
    folder, test = verifier_data
    cli("train-verifier", "--claims", folder / "train.jsonl", "--folds", "0", "--epochs", "50", "--output", folder / "verifier")
    cli("verify", "--claims", folder / "test.jsonl", "--verifier", f"trained:{folder / 'verifier'}", "--output", folder / "pred.jsonl")
    expected = [json.loads(line) for line in open(folder / "pred.jsonl")]
    verifier = quantir.Verifier.load(str(folder / "verifier"))
    claims = [{"id": r["id"], "text": r["claim"]} for r in test]
    evidence = {r["id"]: r["evidence"] for r in test}
    got = verifier.predict(claims, evidence)
    assert got == expected
    # The same from the file, and from claims carrying their own evidence.
    assert verifier.predict(str(folder / "test.jsonl")) == expected
    assert verifier.predict([dict(c, evidence=evidence[c["id"]]) for c in claims]) == expected
    binary = verifier.predict(claims, evidence, labels="true,false")
    assert {p["label"] for p in binary} <= {"True", "False"}
    # Abstaining through the same pipeline as `quantir verify --abstain`: the verifier's own rule,
    # or the rule named by its folder.
    cli("verify", "--claims", folder / "test.jsonl", "--verifier", f"trained:{folder / 'verifier'}", "--abstain", "--output", folder / "abstain.jsonl")
    abstaining = [json.loads(line) for line in open(folder / "abstain.jsonl")]
    assert verifier.predict(claims, evidence, abstain=True) == abstaining
    assert verifier.predict(claims, evidence, abstention_rule=folder / "verifier") == abstaining
    assert all("relevance" in p and p["verdict"] in ("True", "False", "Conflicting") for p in abstaining)
    assert all((p["label"] == "Not Enough Info") == ("abstained" in p) for p in abstaining)
    with pytest.raises(ValueError, match="leave out"):
        verifier.predict(claims, evidence, labels="true,false", abstain=True)

    gold = {r["id"]: r["label"] for r in test}
    scores = quantir.score(gold, got)
    names = {"True": "True", "False": "False", "Conflicting": "Conflicting", "Half True/False": "Conflicting"}
    y_true = [names.get(gold[p["id"]], gold[p["id"]]) for p in got]
    y_pred = [p["label"] for p in got]
    assert scores["accuracy"] == pytest.approx(accuracy_score(y_true, y_pred), abs=1e-12)
    assert scores["macro_f1"] == pytest.approx(f1_score(y_true, y_pred, average="macro"), abs=1e-12)
    assert scores["weighted_f1"] == pytest.approx(f1_score(y_true, y_pred, average="weighted"), abs=1e-12)
    with pytest.raises(ValueError, match=r"predictions: 1 of \d+ gold claims have no prediction \(e.g. \"extra\"\)"):
        quantir.score(dict(gold, extra="True"), got)
    with pytest.raises(ValueError, match=r'evidence: no evidence for claim "val-300"'):
        verifier.predict(claims, {})


def test_stance_verifier_equals_the_cli(cli, tmp_path):
    """A stance model (trained on 150 CLIMATE-FEVER claims) gives Python the same verdicts and
    per-text stances as `quantir verify`, each text's stance in `"stances"`."""
    lines = open(DATA / "climate-fever/claims.jsonl").readlines()
    (tmp_path / "train.jsonl").write_text("".join(lines[:150]))
    cli("train-stance", "--claims", tmp_path / "train.jsonl", "--folds", "0", "--output", tmp_path / "stance")
    held = [json.loads(line) for line in lines[700:720]]
    records = [{"id": c["claim_id"], "claim": c["claim"], "evidence": [e["evidence"] for e in c["evidences"]][:3]} for c in held]
    (tmp_path / "held.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    cli("verify", "--claims", tmp_path / "held.jsonl", "--verifier", f"stance:{tmp_path / 'stance'}", "--output", tmp_path / "pred.jsonl")
    expected = [json.loads(line) for line in open(tmp_path / "pred.jsonl")]
    verifier = quantir.Verifier.load(str(tmp_path / "stance"))
    assert repr(verifier) == f'Verifier("{tmp_path / "stance"}")'
    got = verifier.predict([{"id": r["id"], "text": r["claim"]} for r in records], {r["id"]: r["evidence"] for r in records})
    assert got == expected
    assert all(len(p["stances"]) == len(p["evidence"]) == 3 for p in got)
    assert {s["stance"] for p in got for s in p["stances"]} <= {"supports", "refutes", "does_not_bear"}
