"""Reads quantir's vector files (`dense/vectors.f32`: magic, version, dim, count, dtype, then
little-endian f32 or f16 rows) into a float32 NumPy matrix, for the faiss benchmarks."""
import struct

import numpy as np


def read(path):
    raw = open(path, "rb").read()
    assert raw[:8] == b"QTRVEC\0\0"
    dim, count, dtype = struct.unpack("<I", raw[12:16])[0], struct.unpack("<Q", raw[16:24])[0], struct.unpack("<I", raw[24:28])[0]
    return np.frombuffer(raw[32:], dtype="<f4" if dtype == 0 else "<f2").astype("float32").reshape(count, dim)
