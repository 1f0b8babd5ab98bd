#!/usr/bin/python3
"""Golden fixtures for tests/core/io (run with Debian's /usr/bin/python3 + python3-numpy).

    /usr/bin/python3 tests/data/io/make_fixtures.py

Deterministic: rerunning rewrites the same bytes. The .npy files come from numpy.save /
numpy.lib.format (the reference writer); the safetensors files are written here from the format
description (8-byte little-endian header length, JSON header, raw little-endian data), with
Python's json module (spaced separators, unlike our writer) so the reader is tested on a
header it did not write. F16 values and their decoding come from NumPy's float16; BF16 is the
top half of a float32 by definition.
"""
import json
import os
import struct

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def path(name):
    return os.path.join(HERE, name)


def save_safetensors(name, tensors, metadata=None):
    """tensors: list of (name, dtype string, shape, raw little-endian bytes), kept in order."""
    header = {}
    data = b""
    for tname, dtype, shape, raw in tensors:
        header[tname] = {"dtype": dtype, "shape": list(shape),
                         "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    if metadata:
        header["__metadata__"] = metadata
    text = json.dumps(header).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path(name), "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        f.write(data)


def main():
    # --- .npy -----------------------------------------------------------------------------
    a = (np.arange(6, dtype="<f4").reshape(2, 3) * 0.5 - 1.0).astype("<f4")
    np.save(path("f32_2x3.npy"), a)                        # [[-1, -0.5, 0], [0.5, 1, 1.5]]
    np.save(path("f64_2x2.npy"), np.array([[0.1, -2.5], [1e10, 7.0]], dtype="<f8"))
    np.save(path("f64_vec5.npy"), np.array([0.1, -2.5, 1e10, 0.0, 7.0], dtype="<f8"))
    np.save(path("f32_fortran.npy"), np.asfortranarray(a))
    np.save(path("f32_bigendian.npy"), a.astype(">f4"))
    bad = a.copy()
    bad[1, 2] = np.nan
    np.save(path("f32_nan.npy"), bad)
    for version in [(2, 0), (3, 0)]:
        with open(path("f32_v%d.npy" % version[0]), "wb") as f:
            np.lib.format.write_array(f, a, version=version)
    np.save(path("i64_2x2.npy"), np.array([[1, 2], [3, 4]], dtype="<i8"))

    # --- safetensors: our layout, d_model = 4, with biases ---------------------------------
    rng = np.random.default_rng(20240517)
    d = 4
    ours = {n: rng.standard_normal((d, d)).astype("<f4") for n in ["W_Q", "W_K", "W_V", "W_O"]}
    ours.update({n: rng.standard_normal(d).astype("<f4") for n in ["b_Q", "b_K", "b_V", "b_O"]})
    save_safetensors("weights_ours.safetensors",
                     [(n, "F32", v.shape, v.tobytes()) for n, v in ours.items()],
                     metadata={"made_by": "make_fixtures.py"})
    # Golden: the same numbers as one (8 x 4) float32 .npy, rows W_Q, W_K, ... then biases:
    # rows 0-3 W_Q, 4-7 W_K, 8-11 W_V, 12-15 W_O, 16 b_Q, 17 b_K, 18 b_V, 19 b_O.
    np.save(path("weights_ours_golden.npy"),
            np.vstack([ours[n] for n in ["W_Q", "W_K", "W_V", "W_O"]] +
                      [ours[n][None, :] for n in ["b_Q", "b_K", "b_V", "b_O"]]))

    # --- safetensors: PyTorch nn.MultiheadAttention state dict under a prefix --------------
    # F64 on purpose (the loader narrows to float). Golden projections computed as
    # torch.nn.functional.linear does: y = x @ W.T + b.
    prefix = "encoder.layers.0.self_attn."
    in_w = rng.standard_normal((3 * d, d))
    in_b = rng.standard_normal(3 * d)
    out_w = rng.standard_normal((d, d))
    out_b = rng.standard_normal(d)
    mha = [(prefix + "in_proj_weight", in_w), (prefix + "in_proj_bias", in_b),
           (prefix + "out_proj.weight", out_w), (prefix + "out_proj.bias", out_b),
           ("encoder.layers.0.linear1.weight", rng.standard_normal((2, d)))]
    save_safetensors("mha_pytorch.safetensors",
                     [(n, "F64", v.shape, v.astype("<f8").tobytes()) for n, v in mha])
    x = rng.standard_normal((3, d)).astype("<f4")
    np.save(path("mha_input.npy"), x)
    xd = x.astype(np.float64)
    q = xd @ in_w[0:d].T + in_b[0:d]
    k = xd @ in_w[d:2 * d].T + in_b[d:2 * d]
    v = xd @ in_w[2 * d:3 * d].T + in_b[2 * d:3 * d]
    o = xd @ out_w.T + out_b
    np.save(path("mha_golden.npy"), np.vstack([q, k, v, o]))  # (12 x 4): Q, K, V, X W_O + b_O

    # --- safetensors: F16 and BF16 decoding -------------------------------------------------
    f16 = np.array([1.0, -2.0, 2.0 ** -24, 2.0 ** -14, 65504.0, 1.0 / 3.0, -0.0, 0.099975586],
                   dtype="<f2")
    f32 = np.array([1.0, -2.0, 3.14159265, 1e-40, -3.0e38, 1.0 / 3.0], dtype="<f4")
    bf16_bits = (f32.view("<u4") >> 16).astype("<u2")            # truncation
    bf16_values = (bf16_bits.astype("<u4") << 16).view("<f4")
    save_safetensors("half_types.safetensors",
                     [("bf16", "BF16", bf16_bits.shape, bf16_bits.tobytes()),
                      ("f16", "F16", f16.shape, f16.tobytes())])
    np.save(path("half_types_golden.npy"),
            np.concatenate([bf16_values.astype("<f8"), f16.astype("<f8")]))


if __name__ == "__main__":
    main()
