"""The README's Python section and examples/python_scifact.py run as written, from a folder laid
out like a checkout (data/ beside them), and print the README's SciFact figure."""

import contextlib
import io
import json
import os
import re
import runpy

import pytest

from conftest import DATA, ROOT


@pytest.fixture
def checkout(tmp_path, cli):
    (tmp_path / "data").symlink_to(DATA)
    (tmp_path / "index").mkdir()
    # The verifier the README's last lines load (scripts/demo.sh trains it on all of val).
    items = json.load(open(DATA / "quantemp-val/val_claimonly_evidence_question_mapping.json"))[:300]
    with open(tmp_path / "train.jsonl", "w") as f:
        for i, item in enumerate(items):
            evidence = [d for ev in item["evidences"] for d in ev["top_k_doc"]]
            f.write(json.dumps({"id": f"val-{i}", "claim": item["claim"], "evidence": evidence, "label": item["label"]}) + "\n")
    cli("train-verifier", "--claims", tmp_path / "train.jsonl", "--folds", "0", "--epochs", "30", "--output", tmp_path / "verifiers/quantemp-demo")
    old = os.getcwd()
    os.chdir(tmp_path)
    yield tmp_path
    os.chdir(old)


def run_code(code: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {"__name__": "__readme__"})
    return out.getvalue()


def test_readme_python_section_runs(checkout):
    text = (ROOT / "README.md").read_text()
    block = text.split("<!-- docs-test: python -->", 1)[1].split("<!-- docs-test: end -->", 1)[0]
    code = re.search(r"```python\n(.*?)```", block, re.S).group(1)
    printed = run_code(code)
    assert "'ndcg_cut_10': 0.6821" in printed
    assert "'recall_100': 0.922" in printed
    assert "2016-" in printed  # dated evidence cards
    assert "'label':" in printed


def test_readme_quick_start_runs(checkout):
    text = (ROOT / "README.md").read_text()
    block = text.split("<!-- docs-test: python-quickstart -->", 1)[1].split("<!-- docs-test: end -->", 1)[0]
    code = re.search(r"```python\n(.*?)```", block, re.S).group(1)
    printed = run_code(code).splitlines()
    # The CLI quick start's hits, in its order, with its scores.
    cli = text.split("<!-- docs-test: quickstart -->", 1)[1].split("<!-- docs-test: end -->", 1)[0]
    expected = [(m.group(3), m.group(1), m.group(2)) for m in re.finditer(r"^\s+\d+\. (\S+)\s+([\d.]+)\s+(\S+)$", cli, re.M)]
    assert len(expected) == 2
    assert printed == [f"{date} {id} {score}" for date, id, score in expected]


def test_example_reproduces_scifact(checkout):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        runpy.run_path(str(ROOT / "examples/python_scifact.py"), run_name="__main__")
    printed = out.getvalue()
    assert "ndcg_cut.10  0.6821" in printed
    assert "recall.100   0.9220" in printed
