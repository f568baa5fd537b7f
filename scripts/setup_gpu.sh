#!/usr/bin/env bash
# Installs the GPU build of ONNX Runtime and the NVIDIA runtime libraries it needs, from PyPI
# wheels alone, for `--device cuda|auto` (quantir's encoder through ONNX Runtime's CUDA provider):
#   ${QUANTIR_MODELS:-${XDG_DATA_HOME:-~/.local/share}/quantir/models}/onnxruntime-gpu/
#     libonnxruntime.so, libonnxruntime_providers_{shared,cuda}.so   onnxruntime-gpu (MIT)
#     cuda/*.so*   CUDA 13 runtime, cuBLAS, cuRAND, cuFFT, NVRTC and cuDNN 9 (NVIDIA's wheels
#                  nvidia-cuda-runtime, nvidia-cublas, nvidia-curand, nvidia-cufft,
#                  nvidia-cuda-nvrtc, nvidia-cudnn-cu13; NVIDIA's licences, kept beside them)
# and links models/onnxruntime-gpu to it. quantir loads every library in cuda/ before it
# registers the CUDA provider, so no LD_LIBRARY_PATH is needed; the GPU driver (libcuda.so.1)
# is the machine's own. About 1.5 GB. Idempotent: a complete install is left as it is.
#
# Then: quantir index --dense models/all-minilm-l6-v2 --device cuda \
#           --ort-lib models/onnxruntime-gpu/libonnxruntime.so --batch-size 256 --encoder-workers 1 …
set -euo pipefail
cd "$(dirname "$0")/.."
ORT_GPU_VERSION=1.31.1
dest=${QUANTIR_MODELS:-${XDG_DATA_HOME:-$HOME/.local/share}/quantir/models}/onnxruntime-gpu
if [ -f "$dest/COMPLETE" ] && [ "$(cat "$dest/COMPLETE")" = "$ORT_GPU_VERSION" ]; then
    ln -sfn "$dest" models/onnxruntime-gpu
    echo "$dest/libonnxruntime.so"
    exit 0
fi
python=python3; [ -x .venv/bin/python ] && python="$PWD/.venv/bin/python"
stage="$dest.staging-$$"
rm -rf "$stage"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/cuda"
# pip checks every wheel against PyPI's hash; --target keeps them out of any environment.
$python -m pip install --quiet --disable-pip-version-check --no-compile --only-binary :all: --target "$stage/site" \
    "onnxruntime-gpu[cuda,cudnn]==$ORT_GPU_VERSION" "nvidia-cublas~=13.0"
capi=$stage/site/onnxruntime/capi
cp "$capi/libonnxruntime.so.$ORT_GPU_VERSION" "$stage/libonnxruntime.so"
cp "$capi/libonnxruntime_providers_shared.so" "$capi/libonnxruntime_providers_cuda.so" "$stage/"
find "$stage/site/nvidia" -path '*/lib/*' -name '*.so*' -exec cp -t "$stage/cuda" {} +
find "$stage/site" -path '*/nvidia_*.dist-info/*' -type f -iname 'LICENSE*' | while read -r licence; do
    package=${licence#"$stage/site/"}; package=${package%%.dist-info/*}
    cp "$licence" "$stage/cuda/LICENSE.$package"
done
cp "$stage/site/onnxruntime_gpu-$ORT_GPU_VERSION.dist-info/"LICENSE* "$stage/" 2>/dev/null || true
rm -rf "$stage/site"
echo "$ORT_GPU_VERSION" > "$stage/COMPLETE"
rm -rf "$dest"
mv "$stage" "$dest"
ln -sfn "$dest" models/onnxruntime-gpu
echo "installed onnxruntime-gpu $ORT_GPU_VERSION and NVIDIA's CUDA 13 libraries into $dest (linked from models/onnxruntime-gpu)" >&2
echo "$dest/libonnxruntime.so"
