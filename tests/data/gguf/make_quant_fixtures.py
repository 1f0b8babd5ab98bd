#!/usr/bin/python3
"""Fixtures for tests/core/gguf's dequantization (Debian's /usr/bin/python3 + python3-numpy):

    /usr/bin/python3 tests/data/gguf/make_quant_fixtures.py

Writes quant_types.gguf, one tensor per type (2 rows of 512 values: random blocks, with finite
random halves where a block keeps its scales), and expected_<TYPE>.npy, the floats the format's
formulas give, computed here in NumPy float32 one operation at a time (each product and difference
rounded to float32, as ggml's reference C does without fused multiply-adds). The layouts and
formulas are written from the format's description, element by element, not from a decoder's
loops. Deterministic: rerunning rewrites the same bytes.
"""
import os

import numpy as np

from gguf_writer import UINT32, STRING, write_gguf

HERE = os.path.dirname(os.path.abspath(__file__))
ROWS, ROW = 2, 512
f32 = np.float32


def halves(rng, count, low, high):
    """Finite binary16 values (as float16) and their bytes."""
    h = rng.uniform(low, high, count).astype(np.float16)
    return h, h.tobytes()


def bits(byte_array, index, shift, width):
    return (int(byte_array[index]) >> shift) & ((1 << width) - 1)


# ---- blocks of 32 ------------------------------------------------------------------------

def q4(rng, with_min):
    d, draw = halves(rng, 1, -0.2, 0.2)
    m, mraw = halves(rng, 1, -1.0, 1.0)
    qs = rng.integers(0, 256, 16, dtype=np.uint8)
    raw = draw + (mraw if with_min else b"") + qs.tobytes()
    out = np.zeros(32, np.float32)
    for i in range(32):
        q = bits(qs, i % 16, 4 * (i // 16), 4)  # value i: nibble (i // 16) of byte i % 16
        out[i] = f32(q) * f32(d[0]) + f32(m[0]) if with_min else f32(q - 8) * f32(d[0])
    return raw, out


def q5(rng, with_min):
    d, draw = halves(rng, 1, -0.2, 0.2)
    m, mraw = halves(rng, 1, -1.0, 1.0)
    qh = rng.integers(0, 256, 4, dtype=np.uint8)
    qs = rng.integers(0, 256, 16, dtype=np.uint8)
    fifth = int.from_bytes(qh.tobytes(), "little")  # bit i: value i's fifth bit
    raw = draw + (mraw if with_min else b"") + qh.tobytes() + qs.tobytes()
    out = np.zeros(32, np.float32)
    for i in range(32):
        q = bits(qs, i % 16, 4 * (i // 16), 4) + 16 * ((fifth >> i) & 1)
        out[i] = f32(q) * f32(d[0]) + f32(m[0]) if with_min else f32(q - 16) * f32(d[0])
    return raw, out


def q8_0(rng):
    d, draw = halves(rng, 1, -0.05, 0.05)
    qs = rng.integers(-128, 128, 32).astype(np.int8)
    out = np.array([f32(int(q)) * f32(d[0]) for q in qs], np.float32)
    return draw + qs.tobytes(), out


# ---- super-blocks of 256 -------------------------------------------------------------------
# The 2-bit quants of Q2_K and Q3_K: value i (0..255) lies in the 32-byte group g = i // 128, at
# byte (i % 32) of that group, bits 2 * ((i % 128) // 32).

def two_bits(qs, i):
    return bits(qs, 32 * (i // 128) + i % 32, 2 * ((i % 128) // 32), 2)


def q2_k(rng):
    scales = rng.integers(0, 256, 16, dtype=np.uint8)
    qs = rng.integers(0, 256, 64, dtype=np.uint8)
    d, draw = halves(rng, 1, 0.0, 0.1)
    dmin, mraw = halves(rng, 1, 0.0, 0.1)
    out = np.zeros(256, np.float32)
    for i in range(256):
        s = scales[i // 16]  # one scale/min byte per 16 values: scale low nibble, min high
        out[i] = (f32(d[0]) * f32(int(s) & 15)) * f32(two_bits(qs, i)) - (f32(dmin[0]) * f32(int(s) >> 4))
    return scales.tobytes() + qs.tobytes() + draw + mraw, out


def q3_k(rng):
    hmask = rng.integers(0, 256, 32, dtype=np.uint8)
    qs = rng.integers(0, 256, 64, dtype=np.uint8)
    packed = rng.integers(0, 256, 12, dtype=np.uint8)
    d, draw = halves(rng, 1, -0.1, 0.1)
    # 16 six-bit scales: low 4 bits of scale s in byte s % 8 (low nibble when s < 8), high 2 bits
    # in byte 8 + s % 4 at bits 2 * (s // 4); stored with an offset of 32.
    scale = [(bits(packed, s % 8, 4 * (s // 8), 4) | (bits(packed, 8 + s % 4, 2 * (s // 4), 2) << 4)) - 32
             for s in range(16)]
    out = np.zeros(256, np.float32)
    for i in range(256):
        high = bits(hmask, i % 32, (i // 32), 1)  # value i's third bit: bit i // 32 of byte i % 32
        q = two_bits(qs, i) - (0 if high else 4)
        out[i] = (f32(d[0]) * f32(scale[i // 16])) * f32(q)
    return hmask.tobytes() + qs.tobytes() + packed.tobytes() + draw, out


def k_scales(packed):
    """Q4_K/Q5_K: 8 six-bit (scale, min) pairs in 12 bytes. Pairs 0-3: low 6 bits of bytes 0-3
    (scales) and 4-7 (mins); pairs 4-7: low 4 bits from byte j + 4 (scale: low nibble, min: high)
    and high 2 bits from the top bits of bytes j - 4 (scale) and j (min)."""
    pairs = []
    for j in range(8):
        if j < 4:
            pairs.append((bits(packed, j, 0, 6), bits(packed, j + 4, 0, 6)))
        else:
            sc = bits(packed, j + 4, 0, 4) | (bits(packed, j - 4, 6, 2) << 4)
            mn = bits(packed, j + 4, 4, 4) | (bits(packed, j, 6, 2) << 4)
            pairs.append((sc, mn))
    return pairs


def q45_k(rng, five):
    d, draw = halves(rng, 1, 0.0, 0.1)
    dmin, mraw = halves(rng, 1, 0.0, 0.1)
    packed = rng.integers(0, 256, 12, dtype=np.uint8)
    qh = rng.integers(0, 256, 32, dtype=np.uint8)
    qs = rng.integers(0, 256, 128, dtype=np.uint8)
    pairs = k_scales(packed)
    out = np.zeros(256, np.float32)
    for i in range(256):
        j = i // 32  # sub-block; its 4-bit quants: byte 32 * (j // 2) + i % 32, nibble j % 2
        q = bits(qs, 32 * (j // 2) + i % 32, 4 * (j % 2), 4)
        if five:
            q += 16 * bits(qh, i % 32, j, 1)
        sc, mn = pairs[j]
        out[i] = (f32(d[0]) * f32(sc)) * f32(q) - (f32(dmin[0]) * f32(mn))
    raw = draw + mraw + packed.tobytes() + (qh.tobytes() if five else b"") + qs.tobytes()
    return raw, out


def q6_k(rng):
    ql = rng.integers(0, 256, 128, dtype=np.uint8)
    qh = rng.integers(0, 256, 64, dtype=np.uint8)
    scales = rng.integers(-128, 128, 16).astype(np.int8)
    d, draw = halves(rng, 1, -0.01, 0.01)
    out = np.zeros(256, np.float32)
    for i in range(256):
        h, r = i // 128, i % 128       # half of the block; place in it
        k, l = r // 32, r % 32         # quarter (0..3) and position
        low = bits(ql, 64 * h + l + 32 * (k % 2), 4 * (k // 2), 4)
        high = bits(qh, 32 * h + l, 2 * k, 2)
        q = (low | (high << 4)) - 32
        out[i] = (f32(d[0]) * f32(int(scales[i // 16]))) * f32(q)
    return ql.tobytes() + qh.tobytes() + scales.tobytes() + draw, out


MAKERS = {
    "Q4_0": lambda rng: q4(rng, False), "Q4_1": lambda rng: q4(rng, True),
    "Q5_0": lambda rng: q5(rng, False), "Q5_1": lambda rng: q5(rng, True),
    "Q8_0": q8_0, "Q2_K": q2_k, "Q3_K": q3_k,
    "Q4_K": lambda rng: q45_k(rng, False), "Q5_K": lambda rng: q45_k(rng, True), "Q6_K": q6_k,
}
BLOCK = {"Q2_K": 256, "Q3_K": 256, "Q4_K": 256, "Q5_K": 256, "Q6_K": 256}


def plain(rng, name):
    values = rng.normal(0, 1, ROWS * ROW).astype(np.float32)
    if name == "F32":
        return values.tobytes(), values
    if name == "F16":
        h = values.astype(np.float16)
        return h.tobytes(), h.astype(np.float32)
    top = (values.view(np.uint32) >> 16).astype(np.uint16)  # BF16: a float32's top half
    return top.tobytes(), (top.astype(np.uint32) << 16).view(np.float32)


def main():
    rng = np.random.default_rng(53)
    tensors = []
    for name in ["F32", "F16", "BF16"]:
        raw, expected = plain(rng, name)
        tensors.append((name, [ROW, ROWS], name, raw))
        np.save(os.path.join(HERE, f"expected_{name}.npy"), expected.reshape(ROWS, ROW))
    for name, make in MAKERS.items():
        per = BLOCK.get(name, 32)
        raws, values = [], []
        for _ in range(ROWS * ROW // per):
            raw, out = make(rng)
            raws.append(raw)
            values.append(out)
        tensors.append((name, [ROW, ROWS], name, b"".join(raws)))
        np.save(os.path.join(HERE, f"expected_{name}.npy"), np.concatenate(values).reshape(ROWS, ROW))
    metadata = [("general.architecture", STRING, "none"), ("general.alignment", UINT32, 64)]
    write_gguf(os.path.join(HERE, "quant_types.gguf"), metadata, tensors, alignment=64)


if __name__ == "__main__":
    main()
