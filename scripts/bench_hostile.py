#!/usr/bin/env python3
"""Hostile input, re-run (issue 12): the release binary against the classes of bad input the issue
reported, counted.

usage: scripts/bench_hostile.py [QUANTIR] [OUT]   (default target/release/quantir, bench/runs/DATE-vm/hostile.txt)

Each case runs one command in a fresh folder with a 60 s limit and is classed by what happened:
- ok: exit 0, 1 or 2 and, for 1 and 2, stderr names the file or the flag at fault;
- unnamed: exit 1 or 2 but stderr names neither;
- panic (exit 101), abort (killed by a signal), hang (past 60 s);
- data loss: any input file or folder it was given changed or vanished (hashed before and after).
Classes: data-loss targets (index, run, plan, fuse, verify outputs onto inputs or indexes), count
flags (0, 1, huge, 2^32, 2^64-1, -1, text), number parameters (NaN, ±inf, out of range), malformed
files for every loader (truncated, non-UTF-8, BOM, NUL, wrong types, duplicate ids, bad dates, ids
with spaces, empty, a folder, missing), and verify-eval's coverage cases.
"""
import hashlib, json, os, shutil, subprocess, sys, tempfile, time
from collections import Counter, defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUANTIR = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(ROOT, "target/release/quantir")
OUT = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "bench/runs", time.strftime("%Y-%m-%d") + "-vm", "hostile.txt")
FIX = os.path.join(ROOT, "tests/fixtures")
HUGE = ["0", "1", "4294967296", "18446744073709551615", "18446744073709551616", "-1", "ten"]
NUMBERS = ["NaN", "inf", "-inf", "-1", "1e309", ""]


def digest(path):
    if not os.path.exists(path):
        return None
    if os.path.isfile(path):
        return hashlib.sha256(open(path, "rb").read()).hexdigest()
    h = hashlib.sha256()
    for base, dirs, files in sorted(os.walk(path)):
        dirs.sort()
        for f in sorted(files):
            p = os.path.join(base, f)
            h.update(os.path.relpath(p, path).encode())
            h.update(open(p, "rb").read())
    return h.hexdigest()


def setup(work):
    """The inputs every case may use: a corpus, claims, an index, a run, qrels, predictions."""
    shutil.copy(os.path.join(FIX, "jsonl/corpus.jsonl"), os.path.join(work, "corpus.jsonl"))
    shutil.copy(os.path.join(FIX, "jsonl/claims.jsonl"), os.path.join(work, "claims.jsonl"))
    subprocess.run([QUANTIR, "index", "--corpus", "corpus.jsonl", "--index", "idx"], cwd=work, capture_output=True, check=True)
    subprocess.run([QUANTIR, "run", "--index", "idx", "--claims", "claims.jsonl", "--output", "run.trec"], cwd=work, capture_output=True, check=True)
    with open(os.path.join(work, "qrels.trec"), "w") as f:
        f.write("".join(f"{line.split()[0]} 0 {line.split()[2]} 1\n" for line in open(os.path.join(work, "run.trec"))))
    with open(os.path.join(work, "gold.jsonl"), "w") as f:
        f.write('{"id": "a", "label": "True"}\n{"id": "b", "label": "False"}\n{"id": "c", "label": "False"}\n')
    os.mkdir(os.path.join(work, "thesis"))
    open(os.path.join(work, "thesis/thesis.tex"), "w").write("x")


def cases():
    """(class, args, inputs it must not change, names stderr should mention, files to write first)."""
    out = []
    add = lambda cls, args, keep, names, files=None: out.append((cls, args, keep, names, files or {}))
    inputs = ["corpus.jsonl", "claims.jsonl", "idx", "run.trec", "qrels.trec", "thesis"]
    # Data loss.
    for target in ["thesis", "corpus.jsonl", "claims.jsonl", "."]:
        add("data loss", ["index", "--corpus", "corpus.jsonl", "--index", target], inputs, [target, "--index"])
    for output in ["claims.jsonl", "./claims.jsonl", "idx/manifest.json", "idx/ids.json", "corpus.jsonl"]:
        # What the command reads must survive; another file it is told to write is its output.
        add("data loss", ["run", "--index", "idx", "--claims", "claims.jsonl", "--output", output], ["claims.jsonl", "idx"], [output.split("/")[-1], "--output", "idx"])
        add("data loss", ["plan", "--plan", "numeric", "--claims", "claims.jsonl", "--output", output], ["claims.jsonl"], [output.split("/")[-1], "--output"])
    add("data loss", ["fuse", "--method", "rrf", "run.trec", "run.trec", "--output", "run.trec"], inputs, ["run.trec"])
    add("data loss", ["verify", "--verifier", "trained:idx", "--claims", "claims.jsonl", "--output", "claims.jsonl"], inputs, ["claims.jsonl", "verifier", "idx"])
    # Count flags.
    flags = [
        (["run", "--index", "idx", "--claims", "claims.jsonl", "--output", "o"], ["-k", "--depth", "--threads", "--ef", "--llm-retries", "--llm-timeout", "--llm-concurrency"]),
        (["search", "--index", "idx", "inflation"], ["-k"]),
        (["fuse", "--method", "rrf", "run.trec", "run.trec", "--output", "o"], ["-k"]),
        (["index", "--corpus", "corpus.jsonl", "--index", "o", "--dense", "models/x", "--hnsw"], ["--hnsw-m", "--hnsw-ef-construction", "--encoder-workers", "--batch-size", "--max-length", "--threads"]),
        (["train-verifier", "--claims", "claims.jsonl", "--output", "o"], ["--folds", "--top", "--epochs", "--inner-folds"]),
        (["verify-eval", "--gold", "gold.jsonl", "--pred", "gold.jsonl", "--pred-b", "gold.jsonl"], ["--folds"]),
        (["compare", "--qrels", "qrels.trec", "run.trec", "run.trec", "--test", "permutation"], ["--permutations"]),
        (["eval", "--qrels", "qrels.trec", "--run", "run.trec"], ["-M", "-l"]),
        # A missing index: the flags are read (exit 2 when out of range) before the server would start.
        (["serve", "--index", "missing", "--addr", "127.0.0.1:0"], ["--threads", "--max-in-flight", "--verify-top"]),
    ]
    for base, names in flags:
        for flag in names:
            for v in HUGE:
                add("count flags", base + [flag, v], inputs, [flag.lstrip("-") if flag.startswith("--") else flag, "o", "models/x", "idx", "missing", "trained"])
    # Number parameters.
    numbers = [
        (["run", "--index", "idx", "--claims", "claims.jsonl", "--output", "o"], ["--k1", "--b", "--rrf-k"]),
        (["plan", "--plan", "numeric", "--mmr", "--claims", "claims.jsonl", "--output", "o"], ["--mmr-beta", "--mmr-threshold"]),
        (["fuse", "--method", "wsum", "run.trec", "run.trec", "--output", "o"], ["--weights"]),
        (["compare", "--qrels", "qrels.trec", "run.trec", "run.trec"], ["--alpha"]),
    ]
    for base, names in numbers:
        for flag in names:
            for v in NUMBERS:
                value = f"{v},1" if flag == "--weights" else v
                add("numbers", base + [flag, value], inputs, [flag.lstrip("-")])
    # Malformed files, for each loader.
    bad = {
        "truncated": b'{"id": "a", "text": "inflation',
        "non-utf8": b'{"id": "a", "text": "caf\xe9"}\n',
        "bom": b'\xef\xbb\xbf{"id": "a", "text": "x"}\n\xef\xbb\xbf{"id": "b", "text": "y"}\n',
        "nul": b'{"id": "a\x00", "text": "x"}\n',
        "wrong type": b'{"id": 5, "text": ["x"]}\n',
        "duplicate ids": b'{"id": "a", "text": "x"}\n{"id": "a", "text": "y"}\n',
        "bad date": b'{"id": "a", "text": "x", "date": "2021-13-45"}\n',
        "id with space": b'{"id": "a b", "text": "x"}\n',
        "empty": b"",
        "huge line": b'{"id": "a", "text": "' + b"9" * 3_000_000 + b'"}\n',
        "array": b"[1, 2, 3]\n",
        "nan score": b"q1 Q0 d1 1 NaN x\n",
        "short line": b"q1 Q0 d1\n",
    }
    for kind, content in bad.items():
        for name, cmd in [
            ("c.jsonl", ["index", "--corpus", "c.jsonl", "--index", "o"]),
            ("c.json", ["index", "--corpus", "c.json", "--index", "o"]),
            ("c.jsonl", ["plan", "--plan", "numeric", "--claims", "c.jsonl", "--output", "o"]),
            ("c.json", ["run", "--index", "idx", "--claims", "c.json", "--output", "o"]),
            ("c.trec", ["eval", "--qrels", "qrels.trec", "--run", "c.trec"]),
            ("c.qrels", ["eval", "--qrels", "c.qrels", "--run", "run.trec"]),
            ("c.json", ["eval", "--qrels", "c.json", "--run", "run.trec"]),
            ("c.trec", ["fuse", "--method", "rrf", "c.trec", "run.trec", "--output", "o"]),
            ("p.jsonl", ["run", "--index", "idx", "--claims", "claims.jsonl", "--plan", "file:p.jsonl", "--output", "o"]),
            ("p.csv", ["run", "--index", "idx", "--claims", "claims.jsonl", "--plan", "file:p.csv", "--output", "o"]),
            ("g.jsonl", ["verify-eval", "--gold", "gold.jsonl", "--pred", "g.jsonl"]),
        ]:
            add(f"files: {kind}", cmd, inputs + [name], [name], {name: content})
    for cmd in [["index", "--corpus", "missing.jsonl", "--index", "o"], ["eval", "--qrels", "idx", "--run", "run.trec"], ["run", "--index", "thesis", "--claims", "claims.jsonl", "--output", "o"]]:
        add("files: missing or a folder", cmd, inputs, ["missing.jsonl", "idx", "thesis"])
    # verify-eval coverage.
    for name, content in [("one", b'{"id": "a", "label": "True"}\n'), ("twice", b'{"id": "a", "label": "True"}\n{"id": "a", "label": "False"}\n'), ("none", b"")]:
        add("verify-eval coverage", ["verify-eval", "--gold", "gold.jsonl", "--pred", f"{name}.jsonl"], inputs, [f"{name}.jsonl", "gold", "prediction", "predicted"], {f"{name}.jsonl": content})
    return out


def main():
    tally = Counter()
    by_class = defaultdict(Counter)
    bad = []
    started = time.time()
    all_cases = cases()
    for i, (cls, args, keep, names, files) in enumerate(all_cases):
        work = tempfile.mkdtemp(prefix="quantir-hostile-")
        try:
            setup(work)
            for name, content in files.items():
                open(os.path.join(work, name), "wb").write(content)
            before = {k: digest(os.path.join(work, k)) for k in keep}
            try:
                p = subprocess.run([QUANTIR] + args, cwd=work, capture_output=True, timeout=60)
                rc, err = p.returncode, p.stderr.decode("utf-8", "replace")
            except subprocess.TimeoutExpired:
                rc, err = None, ""
            after = {k: digest(os.path.join(work, k)) for k in keep}
            # Only the inputs count: an output written where it was asked for is no loss.
            lost = [k for k in keep if before[k] != after[k]]
            if rc is None:
                outcome = "hang"
            elif rc == 101:
                outcome = "panic"
            elif rc < 0 or rc > 2:
                outcome = "abort"
            elif lost:
                outcome = "data loss"
            elif rc == 0:
                outcome = "ok (exit 0)"
            elif any(n and n in err for n in names):
                outcome = "ok (error names it)"
            else:
                outcome = "unnamed"
            tally[outcome] += 1
            by_class[cls][outcome] += 1
            if outcome in ("hang", "panic", "abort", "data loss", "unnamed"):
                bad.append((outcome, cls, " ".join(args), rc, err.strip().splitlines()[-1:] if err.strip() else [], lost))
        finally:
            shutil.rmtree(work, ignore_errors=True)
    lines = [f"quantir hostile re-run: {len(all_cases)} cases in {time.time() - started:.0f} s ({QUANTIR})", ""]
    for k in ["ok (exit 0)", "ok (error names it)", "unnamed", "data loss", "panic", "abort", "hang"]:
        lines.append(f"{k:<22}{tally[k]:>5}")
    lines += ["", "by class:"]
    for cls, c in by_class.items():
        lines.append(f"  {cls:<30} " + ", ".join(f"{k} {v}" for k, v in sorted(c.items())))
    if bad:
        lines += ["", "cases that are not ok:"]
        for outcome, cls, cmd, rc, last, lost in bad:
            lines.append(f"  [{outcome}] {cls}: quantir {cmd[:150]} (exit {rc}) {last} {lost or ''}")
    text = "\n".join(lines) + "\n"
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    open(OUT, "w").write(text)
    print(text, end="")
    sys.exit(1 if any(tally[k] for k in ["data loss", "panic", "abort", "hang"]) else 0)


if __name__ == "__main__":
    main()
