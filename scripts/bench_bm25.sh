#!/usr/bin/env bash
# quantir vs Anserini, side by side in one run, on the same corpora and claims:
#   SciFact (5,183 docs, 300 test claims), the scale corpus that make_scale_corpus.py 165700
#   writes (165.7k docs, 2,495 long claims) and the QuanTemp++ replica that
#   make_quantemp_replica.py writes (165.7k dated snippets; its 2,495 test claims, read by quantir
#   from the folder as a user has it).
# Prints indexing docs/s (both on 2 threads), claims/s on one thread at k = 1000 (SciFact) and at
# k = 10, 100 and 1000 (scale, replica), peak memory, top-k quality (SciFact nDCG@10 / R@100 by
# pytrec_eval; scale: top-k overlap) and the ratios. Anserini has no date cutoff: its runs search
# the whole collection, and quantir's are given both ways (no cutoff, and each claim's own date).
# On SciFact and an NFCorpus-sized collection (make_scale_corpus.py 3633 … --claims 323) it also
# runs bm25s (PyPI, numba and numpy backends) on the same claims at k = 10 and 1000, one thread
# (bench_bm25s below), and prints claims/s and the ratios.
# Anserini comes from PyPI alone (scripts/setup_anserini.sh). Results: bench/runs/<date>-<host>/.
#
# Each system builds each index INDEX_REPEATS times (default 3), the two alternating, and the
# summary takes each one's fastest build: a build is a few seconds, and on a shared machine one
# build's time varies by up to 40%. raw.csv keeps every build.
#
# usage: scripts/bench_bm25.sh [SCALE_GENERATOR [REPLICA_GENERATOR]]
#   (default: ../shared/bench/make_scale_corpus.py and make_quantemp_replica.py)
set -euo pipefail
index_repeats=${INDEX_REPEATS:-3}
# How many times over the claims are listed for the bm25s comparison (a run long enough to time).
bm25s_repeat=20
generator=$(realpath -m "${1:-$(dirname "$0")/../../shared/bench/make_scale_corpus.py}")
replica_generator=$(realpath -m "${2:-$(dirname "$generator")/make_quantemp_replica.py}")
source "$(dirname "$0")/bench/setup.sh"
cargo build --release --locked --quiet --example bm25_search
$py -m pip install --quiet --disable-pip-version-check -r scripts/bench/bm25s-requirements.txt
work=bench/tmp
out=bench/runs/$(date +%Y-%m-%d)-$(hostname)
# Only what this script writes goes: other benchmarks keep their work in bench/tmp too (the
# replica's vectors that bench_dense_batch.sh encodes take 25 minutes).
mkdir -p "$work" "$out"
rm -rf "$work"/{scifact,nfcorpus-sized,nfcorpus-sized-src,scale,scale-src,replica,replica-src} "$work"/*.log "$work/time.txt"
raw="$out/raw.csv"
echo "corpus,system,step,seconds,peak_rss_mb,items" > "$raw"

# timed NAME SYSTEM STEP ITEMS -- command...: wall seconds and peak RSS of one command.
timed() {
    local corpus=$1 system=$2 step=$3 items=$4; shift 5
    /usr/bin/time -f "%e %M" -o "$work/time.txt" "$@" > "$work/$system.$step.log" 2>&1
    read -r secs kb < "$work/time.txt"
    echo "$corpus,$system,$step,$secs,$((kb / 1024)),$items" >> "$raw"
}

# bench_corpus NAME CORPUS CLAIMS "KS" EXTRA_RUN [QRELS]: both systems index CORPUS, then search
# CLAIMS at each k in KS (steps search@K); claims with dates are also run by quantir with each
# claim's own cutoff (search-cutoff@K), over its default date-ordered index and over one in the
# corpus's order (search-cutoff-corpus-order@K), so both layouts are measured.
bench_corpus() {
    local name=$1 corpus=$2 claims=$3 ks=$4 extra_run=$5 qrels=${6:-}
    local dir=$work/$name
    mkdir -p "$dir"
    $py scripts/bench/to_anserini.py "$corpus" "$claims" "$dir" ${qrels:+--qrels "$qrels"}
    local docs n k
    docs=$(wc -l < "$dir/collection/docs.jsonl"); n=$(wc -l < "$dir/topics.tsv")
    local rep
    for rep in $(seq "$index_repeats"); do
        rm -rf "$dir/quantir.idx" "$dir/quantir-corpus-order.idx" "$dir/anserini.idx"
        timed "$name" quantir index "$docs" -- $q index --corpus "$corpus" --index "$dir/quantir.idx" --threads 2
        [ -n "$qrels" ] || timed "$name" quantir index-corpus-order "$docs" -- $q index --corpus "$corpus" --index "$dir/quantir-corpus-order.idx" --threads 2 --doc-order corpus
        timed "$name" anserini index "$docs" -- "$java" -cp "$jar" io.anserini.index.IndexCollection \
            -collection JsonCollection -input "$dir/collection" -index "$dir/anserini.idx" \
            -generator DefaultLuceneDocumentGenerator -threads 2 -storeRaw
    done
    for k in $ks; do
        # Same claims, no date cutoff (Anserini has none), one thread.
        timed "$name" quantir "search@$k" "$n" -- $q run --index "$dir/quantir.idx" --claims "$dir/claims-undated.jsonl" \
            -k "$k" --threads 1 $extra_run --output "$dir/quantir.$k.run"
        timed "$name" anserini "search@$k" "$n" -- "$java" -cp "$jar" io.anserini.search.SearchCollection \
            -index "$dir/anserini.idx" -topics "$dir/topics.tsv" -topicReader TsvString -output "$dir/anserini.$k.run" \
            -bm25 -bm25.k1 0.9 -bm25.b 0.4 -hits "$k" -threads 1 ${extra_run:+-removeQuery}
        if [ -z "$qrels" ]; then
            # The claims carry dates: quantir's run with every claim's own cutoff.
            timed "$name" quantir "search-cutoff@$k" "$n" -- $q run --index "$dir/quantir.idx" --claims "$claims" \
                -k "$k" --threads 1 --output "$dir/quantir.cutoff.$k.run"
            timed "$name" quantir "search-cutoff-corpus-order@$k" "$n" -- $q run --index "$dir/quantir-corpus-order.idx" --claims "$claims" \
                -k "$k" --threads 1 --output "$dir/quantir.cutoff-corpus-order.$k.run"
            cmp -s "$dir/quantir.cutoff.$k.run" "$dir/quantir.cutoff-corpus-order.$k.run" || { echo "$name k = $k: the two layouts' runs differ" >&2; exit 1; }
            # The pruned strategy (term bounds, src/retrieve/bm25.rs) beside the default one.
            timed "$name" quantir "search-cutoff-pruned@$k" "$n" -- $q run --index "$dir/quantir.idx" --claims "$claims" \
                -k "$k" --threads 1 --bm25-strategy pruned --output "$dir/quantir.cutoff-pruned.$k.run"
            cmp -s "$dir/quantir.cutoff.$k.run" "$dir/quantir.cutoff-pruned.$k.run" || { echo "$name k = $k: the pruned strategy's run differs" >&2; exit 1; }
        fi
    done
}

# bench_bm25s NAME CORPUS REPEAT "KS": quantir's CLI and bm25s (numba and numpy backends) on the
# same claims of bench/tmp/NAME, listed REPEAT times over (ids made unique for quantir), one
# thread, for each k (step search-repeated@K, the fastest of 3 runs each): bm25s as its own
# benchmark times it (scripts/bench/bm25s_peer.py), quantir from the claims file to the run file,
# process start and index opening included, and quantir timed as bm25s is (examples/bm25_search.rs,
# system quantir-in-process: the claims analysed and their top k retrieved into arrays of hits,
# the index open and the claims read before the clock starts). quantir searches the index a build with default
# flags makes (one segment for a collection this small, src/index/build.rs), as bm25s searches
# its default one; bench_corpus's index is built on 2 threads for the indexing race.
bench_bm25s() {
    local name=$1 corpus=$2 repeat=$3 ks=$4 dir=$work/$1 k rep n
    rm -rf "$dir/quantir-default.idx"
    $q index --corpus "$corpus" --index "$dir/quantir-default.idx" > /dev/null 2>&1
    $py - "$dir/claims-undated.jsonl" "$repeat" > "$dir/claims-repeated.jsonl" <<'PY'
import json, sys
claims = [json.loads(line) for line in open(sys.argv[1])]
for r in range(int(sys.argv[2])):
    for c in claims:
        print(json.dumps({"id": f"{c['id']}~{r}", "text": c["text"]}))
PY
    n=$(wc -l < "$dir/claims-repeated.jsonl")
    for k in $ks; do
        for rep in 1 2 3; do
            timed "$name" quantir "search-repeated@$k" "$n" -- $q run --index "$dir/quantir-default.idx" --claims "$dir/claims-repeated.jsonl" \
                -k "$k" --threads 1 --output "$dir/quantir.repeated.$k.run"
        done
    done
    # shellcheck disable=SC2086
    target/release/examples/bm25_search "$dir/quantir-default.idx" "$dir/claims-repeated.jsonl" $ks | sed "s/^-,/$name,/" >> "$raw"
    # shellcheck disable=SC2086
    $py scripts/bench/bm25s_peer.py "$dir/collection/docs.jsonl" "$dir/topics.tsv" "$repeat" $ks | sed "s/^-,/$name,/" >> "$raw"
}

bench_corpus scifact data/scifact data/scifact 1000 --remove-query data/scifact/qrels/test.tsv
bench_bm25s scifact data/scifact "$bm25s_repeat" "10 1000"
if [ -f "$generator" ]; then
    # NFCorpus's size (3,633 documents, 323 claims), written by the scale generator.
    python3 "$generator" 3633 "$work/nfcorpus-sized-src" --claims 323 > /dev/null
    bench_corpus nfcorpus-sized "$work/nfcorpus-sized-src/corpus.jsonl" "$work/nfcorpus-sized-src/claims.jsonl" "10 1000" ""
    bench_bm25s nfcorpus-sized "$work/nfcorpus-sized-src/corpus.jsonl" "$bm25s_repeat" "10 1000"
fi
if [ -f "$generator" ]; then
    python3 "$generator" 165700 "$work/scale-src" > /dev/null
    bench_corpus scale "$work/scale-src/corpus.jsonl" "$work/scale-src/claims.jsonl" "10 100 1000" ""
else
    echo "no scale generator at $generator: scale corpus skipped" >&2
fi
if [ -f "$replica_generator" ]; then
    python3 "$replica_generator" "$work/replica-src" > /dev/null
    bench_corpus replica "$work/replica-src/corpus.json" "$work/replica-src/test.json" "10 100 1000" ""
else
    echo "no replica generator at $replica_generator: QuanTemp++ replica skipped" >&2
fi

{
    echo "# quantir vs Anserini $(basename "$jar" -fatjar.jar), $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(free -g | awk '/Mem/{print $2}') GiB"
    echo "# wall-clock per command (Anserini's includes JVM start); index: 2 threads, fastest of $index_repeats builds each; search: 1 thread"
    echo "# vs bm25s: the claims listed $bm25s_repeat times over, fastest of 3 runs; quantir from the claims file to the TREC run file (process start,"
    echo "# index opening and writing every hit's line included; the index of a default build), bm25s tokenizing and retrieving into arrays (its"
    echo "# index build and numba's compilation not); 'in-process' is quantir timed as bm25s is (examples/bm25_search.rs: analysing the claims"
    echo "# and retrieving into arrays of hits, with the index open and the claims read before the clock starts)"
    $py - "$raw" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
# The fastest of a step's runs (index builds run INDEX_REPEATS times each).
get = lambda c, s, st: min((r for r in rows if r["corpus"] == c and r["system"] == s and r["step"] == st), key=lambda r: float(r["seconds"]), default=None)
rate = lambda r: float(r["items"]) / float(r["seconds"])
for corpus in dict.fromkeys(r["corpus"] for r in rows):
    print(f"\n## {corpus}")
    steps = [("index", "docs/s")] + [(r["step"], "claims/s") for r in rows if r["corpus"] == corpus and r["system"] == "anserini" and r["step"].startswith("search@")]
    for step, unit in steps:
        a, b = get(corpus, "quantir", step), get(corpus, "anserini", step)
        print(f"{step:12} quantir {rate(a):10.1f} {unit} ({a['seconds']} s, peak {a['peak_rss_mb']} MB) | "
              f"anserini {rate(b):8.1f} {unit} ({b['seconds']} s, peak {b['peak_rss_mb']} MB) | ratio {rate(a) / rate(b):.1f}x")
        c = step.startswith("search@") and get(corpus, "quantir", step.replace("search@", "search-cutoff@"))
        if c:
            print(f"{'':12} quantir with each claim's date cutoff {rate(c):10.1f} claims/s ({c['seconds']} s, peak {c['peak_rss_mb']} MB) | ratio {rate(c) / rate(b):.1f}x")
        o = step.startswith("search@") and get(corpus, "quantir", step.replace("search@", "search-cutoff-corpus-order@"))
        if o:
            print(f"{'':12} the same over an index in corpus order {rate(o):10.1f} claims/s ({o['seconds']} s, peak {o['peak_rss_mb']} MB) | ratio {rate(o) / rate(b):.1f}x")
        p = step.startswith("search@") and get(corpus, "quantir", step.replace("search@", "search-cutoff-pruned@"))
        if p:
            print(f"{'':12} the same with --bm25-strategy pruned {rate(p):10.1f} claims/s ({p['seconds']} s, peak {p['peak_rss_mb']} MB) | ratio {rate(p) / rate(b):.1f}x")
        i = step == "index" and get(corpus, "quantir", "index-corpus-order")
        if i:
            print(f"{'':12} quantir in corpus order {rate(i):10.1f} docs/s ({i['seconds']} s, peak {i['peak_rss_mb']} MB) | ratio {rate(i) / rate(b):.1f}x")
    # Against bm25s: the same claims listed over and over (bench_bm25s), fastest of 3 runs each.
    for step in dict.fromkeys(r["step"] for r in rows if r["corpus"] == corpus and r["step"].startswith("search-repeated@")):
        for system, label in (("quantir", step.replace("search-repeated", "vs bm25s")), ("quantir-in-process", "  in-process")):
            a = get(corpus, system, step)
            if not a:
                continue
            line = f"{label:12} quantir {rate(a):10.1f} claims/s ({a['seconds']} s for {a['items']}, peak {a['peak_rss_mb']} MB)"
            for peer in ("bm25s-numba", "bm25s-numpy"):
                p = get(corpus, peer, step)
                if p:
                    line += f" | {peer} {rate(p):8.1f} claims/s ({p['seconds']} s) ratio {rate(a) / rate(p):.1f}x"
            print(line)
PY
    echo
    echo "## top-k quality"
    echo "scifact quantir:  $($py scripts/oracle/trec_eval.py data/scifact/qrels/test.tsv $work/scifact/quantir.1000.run --complete | $py -c 'import json,sys; a=json.load(sys.stdin)["all"]; print("nDCG@10 %.4f R@100 %.4f" % (a["ndcg_cut_10"], a["recall_100"]))')"
    echo "scifact anserini: $($py scripts/oracle/trec_eval.py data/scifact/qrels/test.tsv $work/scifact/anserini.1000.run --complete | $py -c 'import json,sys; a=json.load(sys.stdin)["all"]; print("nDCG@10 %.4f R@100 %.4f" % (a["ndcg_cut_10"], a["recall_100"]))')"
    for corpus in scale replica; do
        if [ -f "$work/$corpus/quantir.1000.run" ]; then
            echo "$corpus quantir vs anserini top-k overlap, no cutoff (different analyzers, so not 1.0):"
            $py scripts/bench/compare_runs.py "$work/$corpus/quantir.1000.run" "$work/$corpus/anserini.1000.run" 10 100 1000 | sed 's/^/  /'
        fi
    done
} | tee "$out/summary.txt"
