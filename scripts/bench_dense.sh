#!/usr/bin/env bash
# Dense retrieval side by side with its peers, on SciFact:
# 1. encoding throughput at 128 tokens, int8 all-MiniLM-L6-v2: `quantir index --dense` against the
#    Python onnxruntime package running the same model on the same 2,048 passages;
# 2. query throughput of exact and HNSW search (k=100, one query at a time for HNSW) and HNSW's
#    recall@100 against exact, against faiss (faiss-cpu: IndexFlatIP, IndexHNSWFlat) on the same
#    vectors, one thread each side.
# Results: bench/runs/<date>-<host>/dense-summary.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup_python.sh >/dev/null
scripts/setup_models.sh >/dev/null
.venv/bin/python -c "import faiss, onnxruntime" 2>/dev/null || .venv/bin/python -m pip install --quiet "faiss-cpu==1.15.1" "onnxruntime==1.32.0" "tokenizers"
cargo build --release --locked --quiet --bins --example dense_search
q=target/release/quantir
py=.venv/bin/python
model=models/all-minilm-l6-v2
lib=models/onnxruntime/libonnxruntime.so
work=bench/tmp/dense
out=bench/runs/$(date +%Y-%m-%d)-$(hostname)
mkdir -p "$work" "$out"
head -2048 data/scifact/corpus.jsonl > "$work/passages.jsonl"
start=$(date +%s.%N)
rm -rf "$work/enc.idx"
$q index --corpus "$work/passages.jsonl" --index "$work/enc.idx" --dense $model --ort-lib $lib 2>/dev/null
quantir_pps=$($py -c "import time; print(f'{2048 / (time.time() - $start):.1f}')")
python_pps=$($py - "$work/passages.jsonl" <<'PY'
import json, sys, time, numpy as np, onnxruntime as ort
from tokenizers import Tokenizer
texts = [(d["title"] + " " + d["text"]) for d in map(json.loads, open(sys.argv[1]))]
tok = Tokenizer.from_file("models/all-minilm-l6-v2/tokenizer.json"); tok.enable_truncation(128); tok.no_padding()
so = ort.SessionOptions(); so.intra_op_num_threads = 2
s = ort.InferenceSession("models/all-minilm-l6-v2/model.int8.onnx", so)
best = 0.0
for bs in (4, 32):  # the peer's best batch size is reported
    t = time.perf_counter()
    for i in range(0, len(texts), bs):
        enc = tok.encode_batch(texts[i:i + bs]); w = max(len(e.ids) for e in enc)
        ids = np.zeros((len(enc), w), dtype=np.int64); m = np.zeros_like(ids)
        for j, e in enumerate(enc): ids[j, :len(e.ids)] = e.ids; m[j, :len(e.ids)] = 1
        h = s.run(None, {"input_ids": ids, "attention_mask": m, "token_type_ids": np.zeros_like(ids)})[0]
        p = (h * m[..., None]).sum(1) / m.sum(1, keepdims=True); p /= np.linalg.norm(p, axis=1, keepdims=True)
    best = max(best, len(texts) / (time.perf_counter() - t))
print(f"{best:.1f}")
PY
)
rm -rf "$work/scifact.idx"
$q index --corpus data/scifact --index "$work/scifact.idx" --dense $model --ort-lib $lib --hnsw 2>/dev/null
$py scripts/bench/to_anserini.py data/scifact data/scifact "$work/q" --qrels data/scifact/qrels/test.tsv
ours=$(target/release/examples/dense_search "$work/scifact.idx" $model $lib "$work/q/claims-undated.jsonl" "$work/queries.f32" 100 256)
theirs=$($py scripts/bench/faiss_search.py "$work/scifact.idx/dense/vectors.f32" "$work/queries.f32" 100 256)
{
    echo "# dense retrieval vs peers, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores"
    echo "encoding, 2,048 SciFact passages, 128 tokens, int8 all-MiniLM-L6-v2:"
    echo "  quantir index --dense (whole command): $quantir_pps passages/s"
    echo "  python onnxruntime 1.32 (one session, 2 threads, best of batch 4 and 32): $python_pps passages/s"
    $py -c "print(f'  ratio: {float(\"$quantir_pps\") / float(\"$python_pps\"):.2f}x')"
    echo "search, 5,183 SciFact vectors, 300 test claims, k=100, ef=256, one thread:"
    echo "  quantir: $ours"
    echo "  faiss:   $theirs"
    $py -c "import json; a=json.loads('$ours'); b=json.loads('$theirs'); print(f\"  ratios quantir/faiss: exact {a['exact_qps']/b['exact_qps']:.2f}x, hnsw {a['hnsw_qps']/b['hnsw_qps']:.2f}x; HNSW recall@100 quantir {a['hnsw_recall']} faiss {b['hnsw_recall']}\")"
} | tee "$out/dense-summary.txt"
