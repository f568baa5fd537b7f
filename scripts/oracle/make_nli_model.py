#!/usr/bin/env python3
"""Builds a small sequence-classification ONNX model for testing `--verifier onnx:DIR`, and the
verdicts Python onnxruntime gives for a set of claims under quantir's documented combination rule.

usage: make_nli_model.py TOKENIZER_JSON OUT_DIR EXAMPLES_JSONL
The model is synthetic (no trained weights exist here): logits = [s, -s, 0] · w + b with
s = mean token id of the (evidence, claim) pair, so verdicts vary with the text. It has the inputs
and output of a real MNLI cross-encoder (input_ids, attention_mask, token_type_ids → logits [n, 3]).
Writes OUT_DIR/{model.onnx, tokenizer.json, quantir-verifier.json, expected.json}: per claim id,
[verdict, confidence, [[supports, refutes, does not bear] per text], and the verdict and
confidence aggregated from those stances with "aggregation": AGGREGATION (bears 0.4, both 0.3)].
"""
import json, shutil, sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper as h
from tokenizers import Tokenizer

tok_path, out, examples_path = sys.argv[1:4]
shutil.copy(tok_path, f"{out}/tokenizer.json")
inputs = [h.make_tensor_value_info(n, TensorProto.INT64, ["n", "s"]) for n in ("input_ids", "attention_mask", "token_type_ids")]
output = h.make_tensor_value_info("logits", TensorProto.FLOAT, ["n", 3])
nodes = [
    h.make_node("Mul", ["input_ids", "attention_mask"], ["masked"]),
    h.make_node("Cast", ["masked"], ["masked_f"], to=TensorProto.FLOAT),
    h.make_node("Cast", ["attention_mask"], ["mask_f"], to=TensorProto.FLOAT),
    h.make_node("ReduceSum", ["masked_f", "axis"], ["total"], keepdims=1),
    h.make_node("ReduceSum", ["mask_f", "axis"], ["count"], keepdims=1),
    h.make_node("Div", ["total", "count"], ["mean"]),
    h.make_node("MatMul", ["mean", "w"], ["scaled"]),
    h.make_node("Add", ["scaled", "b"], ["logits"]),
]
init = [
    h.make_tensor("axis", TensorProto.INT64, [1], [1]),
    h.make_tensor("w", TensorProto.FLOAT, [1, 3], [0.001, -0.001, 0.0]),
    h.make_tensor("b", TensorProto.FLOAT, [3], [-3.0, 3.0, 0.2]),
]
model = h.make_model(h.make_graph(nodes, "nli", inputs, [output], init), opset_imports=[h.make_opsetid("", 17)])
model.ir_version = 8
onnx.save(model, f"{out}/model.onnx")
labels = ["entailment", "contradiction", "neutral"]
mapping = {"entailment": "True", "contradiction": "False", "neutral": "Conflicting"}
json.dump({"model": "model.onnx", "tokenizer": "tokenizer.json", "labels": labels, "map": mapping, "max_length": 128}, open(f"{out}/quantir-verifier.json", "w"))

tok = Tokenizer.from_file(f"{out}/tokenizer.json"); tok.enable_truncation(128); tok.no_padding()
session = ort.InferenceSession(f"{out}/model.onnx")
order = ["True", "False", "Conflicting"]
AGGREGATION = {"bears": 0.4, "both": 0.3}


def aggregated(stances):
    """quantir's documented rule (src/verify/model/stance.rs), with QuanTemp's three labels."""
    s = max(p[0] for p in stances)
    r = max(p[1] for p in stances)
    if s >= AGGREGATION["both"] and r >= AGGREGATION["both"]:
        return ["Conflicting", min(s, r)]
    if max(s, r) >= AGGREGATION["bears"]:
        return ["True", s] if s >= r else ["False", r]
    return ["Not Enough Info", 1 - max(s, r)]


expected = {}
for line in open(examples_path):
    e = json.loads(line)
    evidence = e["evidence"][:3]
    if not evidence:
        expected[e["id"]] = ["Conflicting", 0.0, [], "Conflicting", 0.0]
        continue
    probs = []
    for ev in evidence:
        enc = tok.encode(ev, e["claim"])
        ids = np.array([enc.ids]); mask = np.array([enc.attention_mask]); types = np.array([enc.type_ids])
        logits = session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": types})[0][0].astype(np.float64)
        p = np.exp(logits - logits.max()); p /= p.sum()
        probs.append([p[labels.index(k)] for k in ("entailment", "contradiction", "neutral")])
    mean = np.mean(probs, axis=0)
    best = int(np.argmax(mean))
    stances = [[float(p[0]), float(p[1]), float(1 - p[0] - p[1])] for p in probs]
    expected[e["id"]] = [order[best], float(mean[best]), stances] + aggregated(stances)
json.dump(expected, open(f"{out}/expected.json", "w"))
