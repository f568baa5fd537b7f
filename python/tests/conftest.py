"""Shared fixtures: the repository's bundled data, the quantir CLI (the oracle for "Python results
equal the CLI's") and indexes built once per session, by the CLI and by Python."""

import os
import subprocess
from pathlib import Path

import pytest

import quantir

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"


def cli_binary() -> Path:
    """The CLI built from this checkout: $QUANTIR_BIN (scripts/test.sh sets it), else target/."""
    named = os.environ.get("QUANTIR_BIN")
    candidates = [Path(named)] if named else [ROOT / "target/release/quantir", ROOT / "target/debug/quantir"]
    for path in candidates:
        if path.is_file():
            return path
    raise RuntimeError(f"no quantir binary at {', '.join(map(str, candidates))}: build it with `cargo build --release --bin quantir` or set QUANTIR_BIN")


@pytest.fixture(scope="session")
def cli():
    binary = cli_binary()

    def run(*args: str) -> subprocess.CompletedProcess:
        done = subprocess.run([str(binary), *map(str, args)], capture_output=True, text=True)
        assert done.returncode == 0, f"quantir {' '.join(map(str, args))} failed:\n{done.stderr}"
        return done

    return run


@pytest.fixture(scope="session")
def scifact():
    return DATA / "scifact"


@pytest.fixture(scope="session")
def scifact_index(tmp_path_factory, scifact) -> quantir.Index:
    """SciFact indexed from Python (BM25 k1=0.9, b=0.4)."""
    return quantir.Index.build(scifact, tmp_path_factory.mktemp("py") / "scifact", format="beir")


@pytest.fixture(scope="session")
def scifact_cli_index(tmp_path_factory, scifact, cli) -> Path:
    """SciFact indexed by the CLI."""
    path = tmp_path_factory.mktemp("cli") / "scifact"
    cli("index", "--corpus", scifact, "--index", path)
    return path


@pytest.fixture(scope="session")
def quantemp_index(tmp_path_factory) -> quantir.Index:
    """The 732 dated QuanTemp snippets of data/quantemp-sample."""
    return quantir.Index.build(DATA / "quantemp-sample/corpus.json", tmp_path_factory.mktemp("py") / "quantemp")


def read_trec(path: Path):
    """A TREC run as {qid: [(docid, score), ...]} in file order."""
    run = {}
    for line in open(path):
        qid, _, docid, _, score, _ = line.split()
        run.setdefault(qid, []).append((docid, float(score)))
    return run
