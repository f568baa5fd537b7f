#!/usr/bin/env python3
"""The peers' side of bench_encode.sh: the same passages (one JSON string a line, as quantir
encodes them), the same ONNX model file, the same truncation (the model folder's
quantir-encoder.json max_length), mean pooling and L2 normalisation, THREADS threads:

  onnxruntime  the onnxruntime Python API, one session with THREADS intra-op threads, texts sorted
               by length and batched (quantir's own trick, given to the peer), best of batch 4 and 32
  fastembed    fastembed's TextEmbedding over the same folder (a custom model, read from disk,
               threads=THREADS), best of batch 4, 32 and 256

Each peer's vectors are compared with quantir's (VECTORS, quantir's vector file): the cosine of
every passage's two vectors, mean and minimum. Prints one JSON line a peer.

usage: encode_peers.py TEXTS MODEL_DIR THREADS VECTORS
"""
import json, os, shutil, sys, tempfile, time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qtrvec import read  # noqa: E402

texts_path, model_dir, threads, vectors_path = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
texts = [json.loads(line) for line in open(texts_path)]
ours = read(vectors_path)
settings = json.load(open(os.path.join(model_dir, "quantir-encoder.json")))
max_length = settings["max_length"]
assert settings["pooling"] == "mean" and settings["normalize"], settings


def agreement(vectors):
    vectors = np.asarray(vectors, dtype=np.float32)
    cosines = (vectors * ours).sum(1) / np.linalg.norm(vectors, axis=1) / np.linalg.norm(ours, axis=1)
    return float(cosines.mean()), float(cosines.min())


def report(peer, version, batch, seconds, vectors):
    mean, low = agreement(vectors)
    print(json.dumps({"peer": peer, "version": version, "batch": batch, "passages": len(texts), "seconds": seconds,
                      "passages_per_s": len(texts) / seconds, "mean_cosine": mean, "min_cosine": low}), flush=True)


def onnxruntime_peer():
    import onnxruntime as ort
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(os.path.join(model_dir, settings["tokenizer"]))
    tokenizer.enable_truncation(max_length)
    tokenizer.no_padding()
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(os.path.join(model_dir, settings["model"]), options, providers=["CPUExecutionProvider"])
    inputs = {i.name for i in session.get_inputs()}

    def encode(batch_size):
        encodings = tokenizer.encode_batch(texts)
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        out = np.zeros((len(texts), ours.shape[1]), dtype=np.float32)
        for start in range(0, len(order), batch_size):
            rows = order[start:start + batch_size]
            width = max(len(encodings[i].ids) for i in rows)
            ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros_like(ids)
            for j, i in enumerate(rows):
                ids[j, :len(encodings[i].ids)] = encodings[i].ids
                mask[j, :len(encodings[i].ids)] = 1
            feed = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in inputs:
                feed["token_type_ids"] = np.zeros_like(ids)
            hidden = session.run(None, feed)[0]
            pooled = (hidden * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
            out[rows] = pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
        return out

    encode(4)  # warm-up
    best = None
    for batch in (4, 32):
        start = time.perf_counter()
        vectors = encode(batch)
        seconds = time.perf_counter() - start
        if best is None or seconds < best[1]:
            best = (batch, seconds, vectors)
    report("onnxruntime", ort.__version__, best[0], best[1], best[2])


def fastembed_peer():
    import fastembed
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    # The same files; tokenizer_config.json says the truncation, as fastembed reads it.
    folder = tempfile.mkdtemp(prefix="fastembed-")
    for name in os.listdir(model_dir):
        if name != "tokenizer_config.json":
            os.symlink(os.path.abspath(os.path.join(model_dir, name)), os.path.join(folder, name))
    config = json.load(open(os.path.join(model_dir, "tokenizer_config.json")))
    config["model_max_length"] = max_length
    json.dump(config, open(os.path.join(folder, "tokenizer_config.json"), "w"))
    TextEmbedding.add_custom_model(model="quantir/bench-encoder", pooling=PoolingType.MEAN, normalization=True,
                                   sources=ModelSource(hf="quantir/bench-encoder"), dim=int(ours.shape[1]), model_file=settings["model"])
    model = TextEmbedding(model_name="quantir/bench-encoder", specific_model_path=folder, threads=threads, cuda=False)
    list(model.embed(texts[:64], batch_size=4))  # warm-up
    best = None
    for batch in (4, 32, 256):
        start = time.perf_counter()
        vectors = np.stack(list(model.embed(texts, batch_size=batch)))
        seconds = time.perf_counter() - start
        if best is None or seconds < best[1]:
            best = (batch, seconds, vectors)
    shutil.rmtree(folder)
    report("fastembed", fastembed.__version__, best[0], best[1], best[2])


onnxruntime_peer()
fastembed_peer()
