"""Bad input raises a clear exception naming what is wrong; nothing crashes the interpreter."""

import datetime
import json

import pytest

import quantir
from conftest import DATA


def test_missing_index(tmp_path):
    with pytest.raises(quantir.QuantirError, match="not a quantir index"):
        quantir.Index(tmp_path)
    with pytest.raises(quantir.QuantirError, match="not a quantir index"):
        quantir.Index(tmp_path / "nowhere")


def test_build_refuses_a_folder_with_other_files(tmp_path):
    (tmp_path / "thesis.tex").write_text("x")
    with pytest.raises(quantir.QuantirError, match="replaces only a folder that holds a quantir index"):
        quantir.Index.build(DATA / "quantemp-sample/corpus.json", tmp_path)
    assert (tmp_path / "thesis.tex").read_text() == "x"


def test_an_unknown_doc_order_is_refused_before_any_work(tmp_path):
    with pytest.raises(ValueError, match=r'doc_order="sideways": expected one of "date", "corpus"'):
        quantir.Index.build(DATA / "quantemp-sample/corpus.json", tmp_path / "idx", doc_order="sideways")
    assert not (tmp_path / "idx").exists()


def test_malformed_corpus_names_file_line_and_column(tmp_path):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"id": "a", "text": "one"}\n{"id": "b", "text": 5}\n')
    with pytest.raises(quantir.QuantirError, match=r'c\.jsonl:2:\d+: field "text": expected'):
        quantir.Index.build(corpus, tmp_path / "idx")
    with pytest.raises(FileNotFoundError, match="nowhere.jsonl"):
        quantir.Index.build(tmp_path / "nowhere.jsonl", tmp_path / "idx")


def test_claims(quantemp_index):
    idx = quantemp_index
    with pytest.raises(ValueError, match=r'claims\[1\]\["date"\]: expected a date like 2021-03-21 \(see the date forms in the README\), found "yesterday"'):
        idx.run([{"id": "a", "text": "x"}, {"id": "b", "text": "y", "date": "yesterday"}])
    with pytest.raises(ValueError, match=r'claims\[1\]\["id"\]: expected an id not given before'):
        idx.run([{"id": "a", "text": "x"}, {"id": "a", "text": "y"}])
    with pytest.raises(ValueError, match=r'claims\[0\]\["id"\]: expected an id without spaces'):
        idx.run([{"id": "a b", "text": "x"}])
    with pytest.raises(ValueError, match=r'claims\[0\]: missing "text"'):
        idx.run([{"id": "a"}])
    with pytest.raises(ValueError, match=r'claims\[0\]\["text"\]: expected the claim\'s text'):
        idx.run([{"id": "a", "text": "  "}])
    with pytest.raises(TypeError, match=r'claims\[0\]\["text"\]: expected str, found int'):
        idx.run([{"id": "a", "text": 3}])
    with pytest.raises(TypeError, match=r'claims\[0\]: expected a dict'):
        idx.run([3])
    with pytest.raises(TypeError, match="claims: expected a path, a list of dicts or a DataFrame"):
        idx.run(3)
    with pytest.raises(TypeError, match=r'claims\[0\]\["date"\]: expected a date as str'):
        idx.run([{"id": "a", "text": "x", "date": 2020}])


def test_claims_file_errors(tmp_path, quantemp_index):
    path = tmp_path / "claims.jsonl"
    path.write_text('{"id": "a", "text": "x"}\n{"id": "a", "text": "y"}\n')
    with pytest.raises(quantir.QuantirError, match=r'claims\.jsonl:2: duplicate id "a" \(first at line 1\)'):
        quantemp_index.run(path)


def test_arguments(quantemp_index):
    idx = quantemp_index
    with pytest.raises(ValueError, match=r'fusion="combmax_norm": expected one of "combsum", "combmax", "combmnz", "combmax-norm", "rrf", "wsum"'):
        idx.run(["x"], fusion="combmax_norm")
    with pytest.raises(ValueError, match="k: expected at least 1, found 0"):
        idx.search("x", k=0)
    with pytest.raises(ValueError, match="k: expected at least 1, found -1"):
        idx.search("x", k=-1)
    with pytest.raises(TypeError, match='k="5": expected a whole number'):
        idx.run(["x"], k="5")
    with pytest.raises(TypeError, match="fusoin=.*expected a setting named one of plan, k, depth"):
        idx.run(["x"], fusoin="combsum")
    with pytest.raises(TypeError, match="depth is a setting of run, not of search; search takes before, k"):
        idx.search("x", depth=5)
    with pytest.raises(ValueError, match="k1"):
        idx.search("x", k1=float("nan"))
    with pytest.raises(ValueError, match="before=.2023-13-01."):
        idx.search("x", before="2023-13-01")
    with pytest.raises(TypeError, match="before: expected a date"):
        idx.search("x", before=20230101)
    with pytest.raises(ValueError, match='undated="maybe": expected one of "exclude", "include"'):
        idx.search("x", undated="maybe")
    with pytest.raises(ValueError, match="mmr_beta: expected 0 to 1, found NaN"):
        idx.run(["x"], mmr=True, mmr_beta=float("nan"))
    with pytest.raises(ValueError, match='plan="bogus"'):
        idx.run(["x"], plan="bogus")
    with pytest.raises(TypeError, match="progress: expected None, True or a callable"):
        idx.run(["x"], progress=3)
    # A huge k is clamped to what the index holds, never an allocation of k slots.
    assert len(idx.search("x", k=2**62)) <= len(idx)


def test_dates_as_datetime(quantemp_index):
    query = "Two men were sentenced to eight months in prison for throwing bacon at a mosque."
    as_text = quantemp_index.search(query, before="2016-11-02", k=5)
    ids = [h.id for h in as_text]
    assert [h.id for h in quantemp_index.search(query, before=datetime.date(2016, 11, 2), k=5)] == ids
    assert [h.id for h in quantemp_index.search(query, before=datetime.datetime(2016, 11, 2, 23, 59), k=5)] == ids
    run = quantemp_index.run([{"id": "c", "text": query, "date": datetime.date(2016, 11, 2)}], k=5)
    assert list(run["c"]) == ids


def test_runs_and_qrels():
    with pytest.raises(ValueError, match=r'run\["q"\]\["d"\]: expected a finite score, found NaN'):
        quantir.evaluate({"q": {"d": 1}}, {"q": {"d": float("nan")}})
    with pytest.raises(ValueError, match=r'runs\[1\]\["q"\]\["d"\]: expected a finite score, found inf'):
        quantir.fuse([{"q": {"d": 1.0}}, {"q": {"d": float("inf")}}], "combsum")
    with pytest.raises(TypeError, match=r'run\["q"\]\["d"\]: expected a number, found str'):
        quantir.evaluate({"q": {"d": 1}}, {"q": {"d": "high"}})
    with pytest.raises(TypeError, match=r'qrels\["q"\]\["d"\]: expected an integer grade'):
        quantir.evaluate({"q": {"d": "yes"}}, {"q": {"d": 1.0}})
    with pytest.raises(ValueError, match="measures: "):
        quantir.evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, ["ndcg@10"])
    with pytest.raises(ValueError, match="weights"):
        quantir.fuse([{"q": {"d": 1.0}}, {"q": {"d": 2.0}}], "wsum", weights=[float("nan"), 1.0])
    with pytest.raises(ValueError, match="at least two runs"):
        quantir.compare({"q": {"d": 1}}, {"a": {"q": {"d": 1.0}}})


def test_progress_callback_errors_are_raised(quantemp_index, tmp_path):
    calls = []

    def progress(phase, done, total):
        calls.append((phase, done, total))
        raise RuntimeError("stop drawing")

    with pytest.raises(RuntimeError, match="stop drawing"):
        quantir.Index.build(DATA / "quantemp-sample/corpus.json", tmp_path / "idx", progress=progress)
    assert calls
    seen = []
    quantir.Index.build(DATA / "quantemp-sample/corpus.json", tmp_path / "idx2", progress=lambda p, d, t: seen.append((p, d, t)))
    assert any(t is not None and d == t for _, d, t in seen), seen


def test_verifier_errors(tmp_path):
    with pytest.raises(ValueError, match="unknown verifier"):
        quantir.Verifier.load(str(tmp_path))
    with pytest.raises(FileNotFoundError):
        quantir.Verifier.load(f"trained:{tmp_path / 'none'}")
