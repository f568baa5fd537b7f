#!/usr/bin/env bash
# Passage encoding throughput on the CPU, quantir beside its peers in one run: the first N
# passages of the QuanTemp++ replica's corpus (written by ../shared/bench/make_quantemp_replica.py,
# the real snippet lengths), int8 all-MiniLM-L6-v2, 128 tokens, mean pooling, THREADS threads each:
#   quantir      examples/encode.rs: Encoder::encode, what `quantir index --dense` runs (its
#                defaults: THREADS single-threaded sessions, length-sorted batches of 4)
#   onnxruntime  the onnxruntime Python API on the same model file (scripts/bench/encode_peers.py)
#   fastembed    fastembed's TextEmbedding on the same model folder
# and the cosine of each peer's vectors to quantir's (the same model, so ≥ 0.999). With a GPU and
# scripts/setup_gpu.sh's runtime, quantir --device cuda is timed too (batch 256, one session).
# Results: bench/runs/<date>-<host>/encode.txt.
#
# usage: scripts/bench_encode.sh [N] [THREADS]     (default 4096 passages, 2 threads)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-4096}
threads=${2:-2}
scripts/setup_models.sh >/dev/null
work=bench/tmp/encode
out=bench/runs/$(date +%Y-%m-%d)-$(hostname)
mkdir -p "$work" "$out"
venv=$work/venv
if ! "$venv/bin/python" -c "import fastembed, onnxruntime, tokenizers" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "fastembed==0.9.1" "onnxruntime==1.32.0" "tokenizers<0.24" "numpy<3"
fi
corpus=bench/tmp/opensearch/qt/corpus.json
if [ ! -f "$corpus" ]; then
    corpus=bench/tmp/replica/corpus.json
    [ -f "$corpus" ] || python3 ../shared/bench/make_quantemp_replica.py bench/tmp/replica
fi
cargo build --release --locked --quiet --example encode
model=models/all-minilm-l6-v2
lib=models/onnxruntime/libonnxruntime.so
ours=$(target/release/examples/encode "$corpus" "$n" "$model" "$lib" "$threads" 4 cpu "$work/texts.jsonl" "$work/quantir.f32")
peers=$("$venv/bin/python" scripts/bench/encode_peers.py "$work/texts.jsonl" "$model" "$threads" "$work/quantir.f32")
gpu=""
if command -v nvidia-smi >/dev/null 2>&1 && [ -f models/onnxruntime-gpu/libonnxruntime.so ]; then
    gpu=$(target/release/examples/encode "$corpus" "$n" "$model" models/onnxruntime-gpu/libonnxruntime.so 1 256 cuda "$work/texts.jsonl" "$work/quantir-gpu.f32")
fi
"$venv/bin/python" - "$ours" "$peers" "$gpu" "$n" "$threads" "$(nproc)" "$work" <<'PY' | tee "$out/encode.txt"
import json, sys, datetime
sys.path.insert(0, "scripts/bench")
from qtrvec import read
ours = json.loads(sys.argv[1])
peers = [json.loads(line) for line in sys.argv[2].splitlines() if line.strip()]
gpu = json.loads(sys.argv[3]) if sys.argv[3] else None
n, threads, cores, work = sys.argv[4:8]
print(f"# passage encoding, {datetime.datetime.utcnow():%Y-%m-%dT%H:%MZ}, {cores} cores, {threads} threads each")
print(f"# {n} QuanTemp++ replica passages, int8 all-MiniLM-L6-v2 (model.int8.onnx), 128 tokens, mean pooling, L2-normalised")
print(f"{'system':<34}{'passages/s':>12}{'quantir ×':>11}{'cosine to quantir (mean / min)':>34}")
print(f"{f'quantir ({threads} sessions, batch 4)':<34}{ours['passages_per_s']:>12.1f}{'1.00':>11}{'—':>34}")
for p in peers:
    name = f"{p['peer']} {p['version']} (batch {p['batch']})"
    print(f"{name:<34}{p['passages_per_s']:>12.1f}{ours['passages_per_s'] / p['passages_per_s']:>11.2f}{p['mean_cosine']:>22.6f} / {p['min_cosine']:.6f}")
if gpu:
    a, b = read(f"{work}/quantir.f32"), read(f"{work}/quantir-gpu.f32")
    cosines = (a * b).sum(1)
    print(f"{'quantir --device cuda (batch 256)':<34}{gpu['passages_per_s']:>12.1f}{gpu['passages_per_s'] / ours['passages_per_s']:>11.2f}{cosines.mean():>22.6f} / {cosines.min():.6f}")
else:
    print("GPU: none here (nvidia-smi and scripts/setup_gpu.sh's runtime are needed)")
PY
