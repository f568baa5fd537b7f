"""Index.add / Index.delete / Index.compact (issue 39): the same generations as `quantir add` /
`delete` / `compact`, every run equal to a fresh build of the final collection, and bad input
refused before anything changes."""

import json

import pytest

import quantir
from conftest import DATA


def sample_documents():
    """The QuanTemp sample's 732 dated snippets as quantir JSONL dicts, in corpus order."""
    records = json.loads((DATA / "quantemp-sample/corpus.json").read_text())
    return [{"id": i, "title": r.get("title", ""), "text": r["snippet"], "date": r.get("date"), "url": r.get("link")} for i, r in records.items()]


def write_jsonl(path, docs):
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    return path


CLAIMS = DATA / "quantemp-sample/claims.jsonl"


def test_updates_from_python_equal_the_cli_and_a_rebuild(tmp_path, cli):
    docs = sample_documents()
    base, new = docs[:600], docs[600:]
    replaced = [dict(d, text=d["text"] + " revised 12%") for d in base[10:20]]
    gone = [d["id"] for d in base[100:130]] + ["no-such-id"]
    final = [d for d in base if d["id"] not in set(gone)]
    final = [next((r for r in replaced if r["id"] == d["id"]), d) for d in final] + new

    # Python: documents as dicts, then a path; deletes as a list.
    index = quantir.Index.build(write_jsonl(tmp_path / "base.jsonl", base), tmp_path / "py")
    first = index.add(new[:50])
    assert (first["added"], first["replaced"], first["unchanged"], first["committed"]) == (50, 0, 0, True)
    assert index.generation == first["generation"] == 2 and len(index) == 650
    second = index.add(write_jsonl(tmp_path / "more.jsonl", new[50:] + replaced + base[:5]))
    assert (second["added"], second["replaced"], second["unchanged"]) == (len(new) - 50, 10, 5)
    third = index.delete(gone)
    assert (third["deleted"], third["not_found"], third["documents"]) == (30, 1, len(final))
    # Nothing to change: no generation.
    again = index.add(new[:3])
    assert (again["unchanged"], again["committed"], again["generation"]) == (3, False, third["generation"])

    # The CLI, the same steps; and a fresh build of the final collection.
    cli("index", "--corpus", write_jsonl(tmp_path / "base.jsonl", base), "--index", tmp_path / "cli")
    cli("add", "--index", tmp_path / "cli", "--corpus", write_jsonl(tmp_path / "a.jsonl", new[:50]))
    cli("add", "--index", tmp_path / "cli", "--corpus", tmp_path / "more.jsonl")
    cli("delete", "--index", tmp_path / "cli", *[a for i in gone for a in ("--id", i)])
    rebuilt = quantir.Index.build(write_jsonl(tmp_path / "final.jsonl", final), tmp_path / "fresh")

    ours = index.run(CLAIMS, k=20)
    assert ours == rebuilt.run(CLAIMS, k=20)
    assert ours == quantir.Index(tmp_path / "cli").run(CLAIMS, k=20)
    assert index.run(CLAIMS, k=20, temporal_filter="off") == rebuilt.run(CLAIMS, k=20, temporal_filter="off")
    assert [h.id for h in index.search("unemployment rate 3%", k=10)] == [h.id for h in rebuilt.search("unemployment rate 3%", k=10)]

    compacted = index.compact()
    assert compacted["committed"] and compacted["segments"] >= 1
    assert index.run(CLAIMS, k=20) == ours


def test_bad_updates_are_refused_and_change_nothing(tmp_path):
    docs = sample_documents()[:40]
    index = quantir.Index.build(write_jsonl(tmp_path / "base.jsonl", docs), tmp_path / "idx")
    generation = index.generation
    with pytest.raises(ValueError, match=r'docs\[1\]\["date"\]'):
        index.add([{"id": "a", "text": "x 3%"}, {"id": "b", "text": "y", "date": "not a date"}])
    with pytest.raises(ValueError, match=r'docs\[1\]\["id"\].*also docs\[0\]'):
        index.add([{"id": "a", "text": "x"}, {"id": "a", "text": "y"}])
    with pytest.raises(ValueError, match=r'docs\[0\]: missing "text"'):
        index.add([{"id": "a"}])
    with pytest.raises(TypeError, match="a list of ids"):
        index.delete("a")
    with pytest.raises(ValueError, match="merge_factor"):
        index.add([{"id": "a", "text": "x"}], merge_factor=1)
    with pytest.raises(quantir.QuantirError, match="without documents"):
        index.delete([d["id"] for d in docs])
    assert index.generation == generation and len(index) == 40
