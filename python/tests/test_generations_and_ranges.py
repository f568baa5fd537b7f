"""Issue 37: a Python `Index` follows its folder's rebuilds (class 3), and the Python keyword
arguments are checked against the same ranges as the CLI's flags (class 6)."""

import json
import threading

import pytest

import quantir
from conftest import DATA


def part_of_sample(path, n):
    corpus = json.load(open(DATA / "quantemp-sample/corpus.json"))
    path.write_text(json.dumps(dict(list(corpus.items())[:n])))
    return path


def test_a_rebuild_is_picked_up_by_an_open_index(tmp_path, cli):
    folder = tmp_path / "idx"
    idx = quantir.Index.build(DATA / "quantemp-sample/corpus.json", folder)
    assert (idx.generation, idx.num_docs) == (1, 732)
    before = idx.search("military percent Florida economy", k=3)
    # Rebuilt by the CLI while the Index is open: the next call answers from the new generation.
    cli("index", "--corpus", part_of_sample(tmp_path / "half.json", 300), "--index", folder)
    assert (idx.generation, idx.num_docs) == (2, 300)
    assert idx.manifest["generation"] == 2 and idx.manifest["documents"] == 300
    after = idx.search("military percent Florida economy", k=3)
    assert {h.id for h in after} <= set(json.load(open(tmp_path / "half.json")))
    assert before and after
    # Rebuilt from Python, while other threads search: every answer comes from a generation, none
    # fails.
    errors, generations = [], []

    def search():
        for _ in range(30):
            try:
                idx.search("percent", k=2)
                generations.append(idx.generation)
            except Exception as e:  # noqa: BLE001 - any failure is the test's finding
                errors.append(e)

    threads = [threading.Thread(target=search) for _ in range(3)]
    for t in threads:
        t.start()
    quantir.Index.build(DATA / "quantemp-sample/corpus.json", folder)
    for t in threads:
        t.join()
    assert errors == []
    assert idx.reload() == 3 and idx.num_docs == 732
    assert len(idx.fingerprint) == 32
    # A damaged new generation is not served: reload() says why, calls go on with the old one.
    cli("index", "--corpus", tmp_path / "half.json", "--index", folder)
    ids = folder / "gen-000004" / "ids.json"
    ids.write_bytes(ids.read_bytes().replace(b'"', b"'", 1))
    with pytest.raises(quantir.QuantirError, match=r"ids\.json: damaged index file"):
        idx.reload()
    assert (idx.generation, idx.num_docs) == (3, 732)


def test_keyword_arguments_have_the_clis_ranges(quantemp_index):
    claims = [{"id": "a", "text": "inflation was 3 percent", "date": "2020-01-01"}]
    # threads=10**6 used to spawn threads until the process was killed.
    with pytest.raises(ValueError, match="threads: expected 0 to 1024, found 1000000"):
        quantemp_index.run(claims, threads=10**6)
    with pytest.raises(ValueError, match="k: expected at least 1, found 0"):
        quantemp_index.run(claims, k=0)
    with pytest.raises(ValueError, match="depth: expected at least 1, found 0"):
        quantemp_index.run(claims, depth=0)
    with pytest.raises(ValueError, match="k: expected at least 1, found 0"):
        quantemp_index.search("inflation", k=0)
    with pytest.raises(ValueError, match="mmr_beta: expected 0 to 1, found 2"):
        quantemp_index.run(claims, plan="numeric", mmr=True, mmr_beta=2.0)
    with pytest.raises(ValueError, match="threads: expected 0 to 1024, found 5000"):
        quantir.Index.build(DATA / "quantemp-sample/corpus.json", "/tmp/quantir-never-built", threads=5000)


def test_a_verifier_reads_at_least_one_evidence_text(tmp_path, cli):
    # top=0 gave a verdict from no evidence.
    items = json.load(open(DATA / "quantemp-val/val_claimonly_evidence_question_mapping.json"))[:60]
    records = [{"id": str(i), "claim": it["claim"], "evidence": [d for ev in it["evidences"] for d in ev["top_k_doc"]], "label": it["label"]} for i, it in enumerate(items)]
    (tmp_path / "train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    cli("train-verifier", "--claims", tmp_path / "train.jsonl", "--folds", "0", "--epochs", "5", "--no-abstain", "--no-calibrate", "--output", tmp_path / "v")
    verifier = quantir.Verifier.load(str(tmp_path / "v"))
    claims = [{"id": r["id"], "text": r["claim"]} for r in records[:3]]
    evidence = {r["id"]: r["evidence"] for r in records[:3]}
    with pytest.raises(ValueError, match="top: expected 1 to 100, found 0"):
        verifier.predict(claims, evidence, top=0)
    assert len(verifier.predict(claims, evidence, top=1)) == 3
