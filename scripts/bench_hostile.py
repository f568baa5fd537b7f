#!/usr/bin/env python3
"""Hostile input, re-run (issues 12 and 37): the release binary against the classes of bad input
the issues reported, counted.

usage: scripts/bench_hostile.py [QUANTIR] [OUT] [--only 37]
       (default target/release/quantir, bench/runs/DATE-vm/hostile.txt)

Each case runs one command in a fresh folder with a 60 s limit and is classed by what happened:
- ok: exit 0, 1 or 2 and, for 1 and 2, stderr names the file or the flag at fault;
- unnamed: exit 1 or 2 but stderr names neither;
- panic (exit 101), abort (killed by a signal), hang (past 60 s);
- data loss: any input file or folder it was given changed or vanished (hashed before and after).
Classes: data-loss targets (index, run, plan, fuse, verify outputs onto inputs or indexes), count
flags (0, 1, huge, 2^32, 2^64-1, -1, text), number parameters (NaN, ±inf, out of range), malformed
files for every loader (truncated, non-UTF-8, BOM, NUL, wrong types, duplicate ids, bad dates, ids
with spaces, empty, a folder, missing), and verify-eval's coverage cases.

Issue 37's classes (the second part) are judged by what the command answers, against an oracle:
- right: the answer is the right one (the same as an intact index's, a fresh experiment's, …);
- refused: the command said no, naming what it concerns and how to fix it;
- silently wrong: exit 0 (or a 200) with an answer that is not the right one — the worst kind;
- wrong: a non-zero exit or a non-200 where the right answer existed;
- unnamed, panic, abort, hang: as above.
Classes: experiment reuse (changed dates, half the corpus, other -k/--depth/--fusion, a planted
run), damaged index files (single-byte corruptions of every file), a rebuild under a running
server, missing and empty data, ambiguous database folders, Python's ranges and a silent or
malformed LLM endpoint, unbounded input (/dev/zero, with the peak memory), and HTTP edges (no
Host, a half-closed client, a malformed chunked body, batch error ids). Every child runs under a
4 GiB address-space limit, so a runaway is an abort, not the machine's memory.
"""
import hashlib, json, os, random, resource, shutil, socket, subprocess, sys, tempfile, threading, time
import urllib.request
from collections import Counter, defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ARGS = [a for a in sys.argv[1:] if not a.startswith("--") and a != "37"]
ONLY_37 = "--only" in sys.argv
QUANTIR = os.path.abspath(ARGS[0]) if len(ARGS) > 0 else os.path.join(ROOT, "target/release/quantir")
OUT = ARGS[1] if len(ARGS) > 1 else os.path.join(ROOT, "bench/runs", time.strftime("%Y-%m-%d") + "-vm", "hostile.txt")
DATA = os.path.join(ROOT, "data")
LIMIT_BYTES = 4 << 30


def limited():
    """Every child: at most 4 GiB of address space."""
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT_BYTES, LIMIT_BYTES))
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
    all_cases = [] if ONLY_37 else cases()
    for i, (cls, args, keep, names, files) in enumerate(all_cases):
        work = tempfile.mkdtemp(prefix="quantir-hostile-")
        try:
            setup(work)
            for name, content in files.items():
                open(os.path.join(work, name), "wb").write(content)
            before = {k: digest(os.path.join(work, k)) for k in keep}
            try:
                p = subprocess.run([QUANTIR] + args, cwd=work, capture_output=True, timeout=60, preexec_fn=limited)
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
    issue37, failed37 = run_issue_37()
    text = "\n".join(lines) + "\n\n" + issue37
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    open(OUT, "w").write(text)
    print(text, end="")
    sys.exit(1 if failed37 or any(tally[k] for k in ["data loss", "panic", "abort", "hang"]) else 0)


# ---------------------------------------------------------------------------------------------
# Issue 37: results judged against an oracle.

class Ran:
    """What one command did: exit code (None on timeout), output, seconds and peak memory."""

    def __init__(self, rc, out, err, seconds, peak_mb):
        self.rc, self.out, self.err, self.seconds, self.peak_mb = rc, out, err, seconds, peak_mb

    def text(self):
        return self.out.decode("utf-8", "replace")

    def error(self):
        return self.err.decode("utf-8", "replace")


def q(args, cwd, timeout=120, program=None):
    """Runs quantir (or `program`) with `args` in `cwd` under the memory limit, measuring the
    child's own peak resident memory (wait4)."""
    started = time.time()
    command = (program or [QUANTIR]) + [str(a) for a in args]
    proc = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=limited)
    out, err = [], []
    readers = [threading.Thread(target=lambda: out.append(proc.stdout.read())), threading.Thread(target=lambda: err.append(proc.stderr.read()))]
    for r in readers:
        r.start()
    timed_out = False
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.time() - started > timeout:
            proc.kill()
            pid, status, usage = os.wait4(proc.pid, 0)
            timed_out = True
            break
        time.sleep(0.01)
    proc.returncode = os.waitstatus_to_exitcode(status)
    for r in readers:
        r.join()
    return Ran(None if timed_out else proc.returncode, out[0] if out else b"", err[0] if err else b"", time.time() - started, usage.ru_maxrss / 1024)


def judged(ran, right, names=(), refusal_is_right=False):
    """The outcome of `ran`: `right()` judges an answer given with exit 0; an error is a refusal
    when it names one of `names` and gives a hint (a refusal is "right" where refusing is the
    right answer, "wrong" where an answer existed)."""
    if ran.rc is None:
        return "hang"
    if ran.rc == 101:
        return "panic"
    if ran.rc < 0 or ran.rc > 2:
        return "abort"
    if ran.rc == 0:
        return "right" if right() else "silently wrong"
    named = any(n in ran.error() for n in names)
    if not named:
        return "unnamed"
    return "refused" if refusal_is_right else "wrong"


def quantemp_folder(folder):
    """A QuanTemp++ folder from the bundled sample: 732 dated snippets, its 12 claims as test.json
    (ids = positions), their qrels, and a QGen file."""
    os.makedirs(folder, exist_ok=True)
    shutil.copy(os.path.join(DATA, "quantemp-sample/corpus.json"), os.path.join(folder, "corpus.json"))
    claims = [json.loads(l) for l in open(os.path.join(DATA, "quantemp-sample/claims.jsonl"))]
    position = {c["id"]: i for i, c in enumerate(claims)}
    json.dump([{"claim": c["text"], "published": c["date"], "label": c["label"]} for c in claims], open(os.path.join(folder, "test.json"), "w"))
    qrels = {}
    for line in open(os.path.join(DATA, "quantemp-sample/qrels.tsv")):
        f = line.split()
        qrels.setdefault(str(position[f[0]]), {})[f[2]] = 1
    json.dump(qrels, open(os.path.join(folder, "test_qrels.json"), "w"))
    with open(os.path.join(folder, "qgen_out.csv"), "w") as out:
        out.write("claim,gpt_out\n")
        for c in claims:
            words = c["text"].replace('"', "").split()
            out.write(f"\"{c['text'].replace(chr(34), chr(34) * 2)}\",\"{' '.join(words[:4])} [SEP] {' '.join(words[-4:])}\"\n")
    return folder


def experiment(data, out, extra=()):
    return q(["experiment", "quantemp", "--no-verification", "--planners", "claim-only,qgen", "--data", data, "--output", out, *extra], cwd=os.path.dirname(out))


def table_rows(ran):
    return [l for l in ran.text().splitlines() if l.startswith("| ")]


def class_experiment(work, record):
    """Class 1: a rerun must give what a fresh experiment on the same data and settings gives."""
    cases = [
        ("claims' dates changed", lambda d: json.dump([dict(c, published=str(int(c["published"][:4]) - 1) + c["published"][4:]) for c in json.load(open(os.path.join(d, "test.json")))], open(os.path.join(d, "test.json"), "w")), (), ()),
        ("corpus.json halved", lambda d: json.dump(dict(list(json.load(open(os.path.join(d, "corpus.json"))).items())[:366]), open(os.path.join(d, "corpus.json"), "w")), (), ()),
        ("-k 50", None, (), ("-k", "50")),
        ("--depth 10", None, (), ("--depth", "10")),
        ("--fusion rrf", None, (), ("--fusion", "rrf")),
    ]
    for name, change, first, again in cases:
        case = os.path.join(work, "exp-" + str(abs(hash(name))))
        data = quantemp_folder(os.path.join(case, "qt"))
        out = os.path.join(case, "out")
        experiment(data, out, first)
        if change:
            change(data)
        rerun = experiment(data, out, again)
        fresh = experiment(data, os.path.join(case, "fresh"), again)
        record("1 experiment reuse", name, judged(rerun, lambda: table_rows(rerun) == table_rows(fresh) and fresh.rc == 0, ("tables",)))
    # A hand-made run with the baseline's name, and an index of another corpus in the output.
    case = os.path.join(work, "exp-planted")
    data = quantemp_folder(os.path.join(case, "qt"))
    out = os.path.join(case, "out")
    first = experiment(data, out)
    runs = os.path.join(out, "runs")
    baseline = [f for f in os.listdir(runs) if f.startswith("claim-only.filter.bm25") and f.endswith(".trec")][0]
    with open(os.path.join(runs, baseline), "w") as f:
        f.writelines(f"{i} Q0 planted 1 99.0 hand\n" for i in range(12))
    planted = experiment(data, out)
    record("1 experiment reuse", "a planted run file", judged(planted, lambda: table_rows(planted) == table_rows(first)))
    half = os.path.join(case, "half.json")
    json.dump(dict(list(json.load(open(os.path.join(data, "corpus.json"))).items())[:300]), open(half, "w"))
    shutil.rmtree(os.path.join(out, "index"))
    q(["index", "--corpus", half, "--index", os.path.join(out, "index")], cwd=case)
    other = experiment(data, out)
    record("1 experiment reuse", "the index of another corpus in the output", judged(other, lambda: table_rows(other) == table_rows(first)))
    record("1 experiment reuse", "the tables say what made them", "right" if ("fingerprint" in first.text() and "corpus.json" in first.text()) else "silently wrong")


def index_files(index):
    """Every data file of an index folder (any layout), lock files left out."""
    found = []
    for base, dirs, files in os.walk(index):
        for f in files:
            path = os.path.join(base, f)
            if f.endswith(".lock") or os.path.getsize(path) == 0:
                continue
            found.append(path)
    return sorted(found)


def class_damage(work, record):
    """Class 2: a damaged index answers as the intact one, or is refused naming the file."""
    case = os.path.join(work, "damage")
    os.makedirs(case)
    index = os.path.join(case, "idx")
    q(["index", "--corpus", os.path.join(DATA, "quantemp-sample/corpus.json"), "--index", index], cwd=case)
    claims = os.path.join(DATA, "quantemp-sample/claims.jsonl")
    bacon = "Two men were sentenced to eight months in prison for throwing bacon at a mosque"

    def answers(idx):
        search = q(["search", "--before", "2016-11-02", "-k", "5", "--index", idx, bacon], cwd=case)
        out = os.path.join(case, "run.trec")
        run = q(["run", "-k", "20", "--index", idx, "--claims", claims, "--output", out], cwd=case)
        text = open(out).read() if run.rc == 0 and os.path.exists(out) else None
        if os.path.exists(out):
            os.remove(out)
        return search, run, text

    intact_search, intact_run, intact_text = answers(index)
    rng = random.Random(37)
    for path in index_files(index):
        size = os.path.getsize(path)
        for offset in sorted({0, size - 1, *(rng.randrange(size) for _ in range(6))}):
            damaged = os.path.join(case, "damaged")
            shutil.rmtree(damaged, ignore_errors=True)
            shutil.copytree(index, damaged)
            target = os.path.join(damaged, os.path.relpath(path, index))
            data = bytearray(open(target, "rb").read())
            data[offset] ^= rng.randrange(1, 256)
            open(target, "wb").write(data)
            search, run, text = answers(damaged)
            outcomes = [judged(search, lambda: search.out == intact_search.out, ("damaged", "incompatible", "not a quantir index"), refusal_is_right=True),
                        judged(run, lambda: text == intact_text, ("damaged", "incompatible", "not a quantir index"), refusal_is_right=True)]
            worst = next((o for o in ["silently wrong", "panic", "abort", "hang", "unnamed", "wrong"] if o in outcomes), outcomes[0])
            record("2 damaged index", f"{os.path.relpath(path, index)} byte {offset}", worst)


def post(url, body, timeout=30):
    request = urllib.request.Request(url, data=body.encode(), headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as e:
        return e.code, {}
    except Exception:  # noqa: BLE001 - a refused or cut connection
        return None, {}


class Serve:
    """`quantir serve` on a free port."""

    def __init__(self, index, cwd):
        self.proc = subprocess.Popen([QUANTIR, "serve", "--addr", "127.0.0.1:0", "--index", index], cwd=cwd, stderr=subprocess.PIPE, preexec_fn=limited)
        line = self.proc.stderr.readline().decode()
        self.url = line.split("on ")[-1].strip().rstrip("/")
        self.host, self.port = self.url.replace("http://", "").split(":")

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def class_live(work, record):
    """Class 3: a rebuild under a running server is served at the next request."""
    case = os.path.join(work, "live")
    os.makedirs(case)
    index = os.path.join(case, "idx")
    q(["index", "--corpus", os.path.join(DATA, "quantemp-sample/corpus.json"), "--index", index], cwd=case)
    half = os.path.join(case, "half.json")
    corpus = json.load(open(os.path.join(DATA, "quantemp-sample/corpus.json")))
    json.dump(dict(list(corpus.items())[:300]), open(half, "w"))
    server = Serve(index, case)
    try:
        q(["index", "--corpus", half, "--index", index], cwd=case)
        status, answer = post(server.url + "/api/search", json.dumps({"claim": "military percent Florida economy", "k": 5}))
        inside = all(h["id"] in dict(list(corpus.items())[:300]) for h in answer.get("hits", []))
        record("3 rebuild under a server", "the first search after a rebuild", "right" if status == 200 and inside else ("silently wrong" if status == 200 else "wrong"))
        health = json.loads(urllib.request.urlopen(server.url + "/api/health", timeout=30).read())
        record("3 rebuild under a server", "/api/health after a rebuild", "right" if health.get("documents") == 300 else "silently wrong")
        statuses = []
        stop = threading.Event()

        def client():
            while not stop.is_set():
                statuses.append(post(server.url + "/api/search", json.dumps({"claim": "inflation percent", "k": 3}))[0])

        clients = [threading.Thread(target=client) for _ in range(3)]
        for c in clients:
            c.start()
        for corpus_path in [os.path.join(DATA, "quantemp-sample/corpus.json"), half, os.path.join(DATA, "quantemp-sample/corpus.json")]:
            q(["index", "--corpus", corpus_path, "--index", index], cwd=case)
            time.sleep(0.2)
        stop.set()
        for c in clients:
            c.join()
        record("3 rebuild under a server", f"{len(statuses)} searches across 3 rebuilds", "right" if statuses and all(s == 200 for s in statuses) else "wrong")
    finally:
        server.stop()


def keep_lines(path, n):
    lines = open(path).readlines()[:n]
    open(path, "w").writelines(lines)


def class_missing(work, record):
    """Class 4: missing and empty data are errors or counted out loud."""
    for name, change, right in [
        ("an undated claim", lambda d: json.dump([dict(c, published=None) if i == 3 else c for i, c in enumerate(json.load(open(os.path.join(d, "test.json"))))], open(os.path.join(d, "test.json"), "w")), "undated"),
        ("an empty corpus.json", lambda d: open(os.path.join(d, "corpus.json"), "w").write("{}"), None),
        ("an empty test.json", lambda d: open(os.path.join(d, "test.json"), "w").write("[]"), None),
        ("empty qrels", lambda d: open(os.path.join(d, "test_qrels.json"), "w").write("{}"), None),
        ("a QGen file of 3 claims", lambda d: keep_lines(os.path.join(d, "qgen_out.csv"), 4), "qgen"),
    ]:
        case = os.path.join(work, "missing-" + str(abs(hash(name))))
        data = quantemp_folder(os.path.join(case, "qt"))
        change(data)
        out = os.path.join(case, "out")
        ran = experiment(data, out)
        if right == "undated":
            def ok():
                runs = os.path.join(out, "runs")
                in_filter_runs = any(line.startswith("3 ") for f in os.listdir(runs) if ".filter." in f and f.endswith(".trec") for line in open(os.path.join(runs, f)))
                return not in_filter_runs and "without a date" in ran.text()
            record("4 missing data", name, judged(ran, ok, ("test.json",), refusal_is_right=True))
        elif right == "qgen":
            record("4 missing data", name, judged(ran, lambda: "QGen (3 of" in ran.text(), ("qgen",)))
        else:
            record("4 missing data", name, judged(ran, lambda: False, ("corpus.json", "test.json", "test_qrels.json"), refusal_is_right=True))
    case = os.path.join(work, "missing-eval")
    os.makedirs(case)
    open(os.path.join(case, "empty.trec"), "w").close()
    open(os.path.join(case, "qrels.trec"), "w").write("q1 0 d1 1\n")
    ran = q(["eval", "--qrels", "qrels.trec", "--run", "empty.trec"], cwd=case)
    record("4 missing data", "eval of an empty run", judged(ran, lambda: False, ("empty.trec",), refusal_is_right=True))


def class_ambiguous(work, record):
    """Class 5: a folder of databases by db_id with a stray .csv is refused with both readings."""
    import sqlite3
    case = os.path.join(work, "ambiguous")
    os.makedirs(os.path.join(case, "dbs/crime"))
    conn = sqlite3.connect(os.path.join(case, "dbs/crime/crime.sqlite"))
    conn.execute("CREATE TABLE t (v INTEGER)")
    conn.execute("INSERT INTO t VALUES (41)")
    conn.commit()
    conn.close()
    open(os.path.join(case, "dbs/stray.csv"), "w").write("a,b\n1,2\n")
    open(os.path.join(case, "claims.jsonl"), "w").write(json.dumps({"id": "a", "claim": "41 homicides", "db_id": "crime"}) + "\n")
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()
    ran = q(["verify", "--verifier", "llm:m", "--llm-retries", "0", "--llm-url", f"http://127.0.0.1:{port}/v1", "--claims", "claims.jsonl", "--database", "dbs", "--llm-cache", "cache", "--output", "p.jsonl"], cwd=case)
    both = "db_id" in ran.error() and ".csv" in ran.error()
    record("5 ambiguous input", "--database with databases by db_id and a stray .csv", "refused" if ran.rc not in (0, None) and both else judged(ran, lambda: False, ()))


def python_ok():
    python = os.path.join(ROOT, ".venv/bin/python")
    return QUANTIR == os.path.join(ROOT, "target/release/quantir") and os.path.exists(python) and subprocess.run([python, "-c", "import quantir"], capture_output=True).returncode == 0


def class_ranges_and_llm(work, record):
    """Class 6: Python takes the CLI's ranges; a silent or malformed LLM endpoint is reported
    as such, fast."""
    case = os.path.join(work, "ranges")
    os.makedirs(case)
    index = os.path.join(case, "idx")
    q(["index", "--corpus", os.path.join(DATA, "quantemp-sample/corpus.json"), "--index", index], cwd=case)
    if python_ok():
        python = [os.path.join(ROOT, ".venv/bin/python"), "-c"]
        ran = q([f"import quantir; quantir.Index({index!r}).run([{{'id': 'a', 'text': 'inflation'}}], threads=10**6)"], cwd=case, timeout=60, program=python)
        record("6 ranges and LLM", "Python run(threads=10**6)", "refused" if ran.rc == 1 and "ValueError: threads" in ran.error() else judged(ran, lambda: False, ()))
        items = json.load(open(os.path.join(DATA, "quantemp-val/val_claimonly_evidence_question_mapping.json")))[:40]
        with open(os.path.join(case, "train.jsonl"), "w") as f:
            for i, it in enumerate(items):
                f.write(json.dumps({"id": str(i), "claim": it["claim"], "evidence": [d for ev in it["evidences"] for d in ev["top_k_doc"]], "label": it["label"]}) + "\n")
        q(["train-verifier", "--claims", "train.jsonl", "--folds", "0", "--epochs", "5", "--no-abstain", "--output", "v"], cwd=case)
        ran = q(["import quantir; v = quantir.Verifier.load('v'); print(v.predict([{'id': 'a', 'text': 'x'}], {'a': ['inflation 3 percent']}, top=0))"], cwd=case, timeout=60, program=python)
        record("6 ranges and LLM", "Python Verifier.predict(top=0)", "refused" if ran.rc == 1 and "ValueError: top" in ran.error() else judged(ran, lambda: False, ()))
    else:
        record("6 ranges and LLM", "Python cases (the package is this checkout's; skipped for another binary)", "skipped")
    open(os.path.join(case, "claims.jsonl"), "w").write('{"id": "a", "text": "inflation rose 3%"}\n')
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(16)
    port = silent.getsockname()[1]
    held = []
    stop = threading.Event()

    def accept():
        silent.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(silent.accept()[0])
            except OSError:
                pass

    acceptor = threading.Thread(target=accept)
    acceptor.start()
    try:
        ran = q(["plan", "--plan", "llm:fcdecomp", "--llm-model", "m", "--llm-timeout", "5", "--llm-url", f"http://127.0.0.1:{port}/v1", "--claims", "claims.jsonl", "--llm-cache", "cache", "--output", "o.jsonl"], cwd=case, timeout=90)
        if ran.rc not in (None, 0) and "timed out" in ran.error() and ran.seconds < 15:
            outcome = "refused"
        elif ran.rc not in (None, 0) and ran.seconds >= 15:
            outcome = "wrong"
        else:
            outcome = judged(ran, lambda: False, ("timed out",), refusal_is_right=True)
        record("6 ranges and LLM", f"an LLM endpoint that never answers, --llm-timeout 5 ({ran.seconds:.0f} s)", outcome)
    finally:
        stop.set()
        acceptor.join()
        silent.close()
    ran = q(["plan", "--plan", "llm:fcdecomp", "--llm-model", "m", "--llm-url", "ht!tp://x", "--claims", "claims.jsonl", "--llm-cache", "cache", "--output", "o.jsonl"], cwd=case, timeout=90)
    good = ran.rc in (1, 2) and "--llm-url" in ran.error() and "not a chat API URL" in ran.error() and ran.seconds < 5
    record("6 ranges and LLM", f"a malformed --llm-url ({ran.seconds:.1f} s)", "refused" if good else judged(ran, lambda: False, ()))


def class_unbounded(work, record):
    """Class 7: input that never ends a record stops at the maximum."""
    case = os.path.join(work, "unbounded")
    os.makedirs(case)
    q(["index", "--corpus", os.path.join(DATA, "quantemp-sample/corpus.json"), "--index", os.path.join(case, "idx")], cwd=case)
    for name, args in [("index --corpus /dev/zero --format jsonl", ["index", "--corpus", "/dev/zero", "--format", "jsonl", "--index", "o"]),
                       ("index --corpus /dev/zero --format quantemp", ["index", "--corpus", "/dev/zero", "--format", "quantemp", "--index", "o"]),
                       ("run --claims /dev/zero --format jsonl", ["run", "--index", "idx", "--claims", "/dev/zero", "--format", "jsonl", "--output", "r"])]:
        ran = q(args, cwd=case, timeout=60)
        outcome = judged(ran, lambda: False, ("/dev/zero",), refusal_is_right=True)
        record("7 unbounded input", f"{name} (peak {ran.peak_mb:.0f} MB, {ran.seconds:.1f} s)", outcome if ran.peak_mb < 1024 or outcome != "refused" else "wrong")


def raw(host, port, request, half_close=False):
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(request.encode())
        if half_close:
            s.shutdown(socket.SHUT_WR)
        chunks = []
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
        except socket.timeout:
            pass
    answer = b"".join(chunks).decode("utf-8", "replace")
    return answer.split(" ")[1] if answer.startswith("HTTP/") else "none"


def class_http(work, record):
    """The probe's HTTP cases."""
    case = os.path.join(work, "http")
    os.makedirs(case)
    index = os.path.join(case, "idx")
    q(["index", "--corpus", os.path.join(DATA, "quantemp-sample/corpus.json"), "--index", index], cwd=case)
    server = Serve(index, case)
    try:
        status = raw(server.host, server.port, "GET /api/health HTTP/1.1\r\nConnection: close\r\n\r\n")
        record("7 HTTP", f"an HTTP/1.1 request without Host ({status})", "right" if status == "400" else "wrong")
        body = '{"claim": "inflation 3%"}'
        status = raw(server.host, server.port, f"POST /api/search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n{body}", half_close=True)
        record("7 HTTP", f"a client that half-closes after sending ({status})", "right" if status == "200" else "wrong")
        status = raw(server.host, server.port, "POST /api/search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n")
        record("7 HTTP", f"a malformed chunked body ({status})", "right" if status == "400" else "wrong")
        request = urllib.request.Request(server.url + "/api/batch", data=b'{"id": "x1", "claim": ""}\n', headers={"content-type": "application/x-ndjson"})
        line = json.loads(urllib.request.urlopen(request, timeout=30).read().splitlines()[0])
        record("7 HTTP", "a /api/batch error line carries the id", "right" if line.get("id") == "x1" and "error" in line else "wrong")
        ran = q(["serve", "--addr", f"{server.host}:{server.port}", "--index", index], cwd=case, timeout=60)
        record("7 HTTP", "serve on a port in use", "refused" if ran.rc == 1 and f"{server.host}:{server.port}" in ran.error() else judged(ran, lambda: False, ()))
    finally:
        server.stop()


def run_issue_37():
    """Every issue-37 class; the report's second part, and whether anything failed."""
    tally = Counter()
    by_class = defaultdict(Counter)
    listed = []
    started = time.time()

    def record(cls, name, outcome):
        tally[outcome] += 1
        by_class[cls][outcome] += 1
        listed.append((cls, name, outcome))

    work = tempfile.mkdtemp(prefix="quantir-hostile37-")
    try:
        for run_class in [class_experiment, class_damage, class_live, class_missing, class_ambiguous, class_ranges_and_llm, class_unbounded, class_http]:
            run_class(work, record)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    lines = [f"issue 37 classes: {sum(tally.values())} cases in {time.time() - started:.0f} s ({QUANTIR})", ""]
    for k in ["right", "refused", "silently wrong", "wrong", "unnamed", "panic", "abort", "hang", "skipped"]:
        lines.append(f"{k:<22}{tally[k]:>5}")
    lines += ["", "by class:"]
    for cls in sorted(by_class):
        lines.append(f"  {cls:<30} " + ", ".join(f"{k} {v}" for k, v in sorted(by_class[cls].items())))
    lines += ["", "cases (the damaged-index class: those not refused or right only):"]
    for cls, name, outcome in listed:
        if cls != "2 damaged index" or outcome not in ("refused", "right"):
            lines.append(f"  [{outcome}] {cls}: {name}")
    failed = any(tally[k] for k in ["silently wrong", "wrong", "unnamed", "panic", "abort", "hang"])
    return "\n".join(lines) + "\n", failed


if __name__ == "__main__":
    main()
