#!/usr/bin/python3
"""A small model for checking the GGUF reader against llama.cpp itself (Debian's /usr/bin/python3
+ python3-numpy):

    /usr/bin/python3 tests/data/gguf/make_llama_cpp_fixture.py
    # then, in a scratch folder outside the repository (never committed):
    npm i -E node-llama-cpp@3.21.1
    node <repo>/tests/data/gguf/llama_cpp_probabilities.mjs <repo>/tests/data/gguf/llama_cpp

llama_cpp/model.gguf: a `llama` model (d_model 256, 4 heads over 2, d_ff 256, 2 blocks, a
byte-level vocabulary of 258) whose matrices hold random blocks of every type this program decodes
(block 0: Q4_K, Q5_K, Q6_K, Q8_0, Q4_0, Q3_K, Q2_K; block 1: Q5_0, F16, BF16, Q5_1, Q4_1, Q4_K,
Q6_K; the token table Q4_1, the readout Q6_K), scales chosen so the activations stay moderate.
Its Q and K are read by llama.cpp in its own interleaved rotary layout, so the comparison also
checks that the reader puts the heads back. llama_cpp_probabilities.mjs writes
llama_cpp/probabilities.json: llama.cpp's next-token probabilities after each prompt of
PROMPTS (tests/core/gguf/gguf_llama_cpp_test.cpp runs the same prompts). llama.cpp multiplies
quantized matrices by 8-bit-quantized activations and keeps its K/V cache in F16, so its numbers
agree with a float32 evaluation to about 1e-2 in probability, not bit for bit.
"""
import os

import numpy as np

from gguf_writer import ARRAY, BOOL, FLOAT32, INT32, STRING, UINT32, write_gguf
from make_quant_fixtures import MAKERS

HERE = os.path.dirname(os.path.abspath(__file__))
D, H, G, L, FF, V = 256, 4, 2, 2, 256, 258
# where each type keeps its halves (d, then m or dmin), in bytes from the block's start
HALVES = {"Q4_0": [0], "Q4_1": [0, 2], "Q5_0": [0], "Q5_1": [0, 2], "Q8_0": [0], "Q2_K": [80, 82],
          "Q3_K": [108], "Q4_K": [0, 2], "Q5_K": [0, 2], "Q6_K": [208]}
BLOCK = {"Q2_K": 256, "Q3_K": 256, "Q4_K": 256, "Q5_K": 256, "Q6_K": 256}


def byte_symbol(b):
    """GPT-2's bytes_to_unicode."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    if b in printable:
        return chr(b)
    return chr(256 + [x for x in range(256) if x not in printable].index(b))


def quantized(rng, kind, rows, row, scale):
    """Random blocks, their halves replaced by `scale` (times 0.5..1, d of either sign where the
    type has no min)."""
    out = bytearray()
    for _ in range(rows * row // BLOCK.get(kind, 32)):
        raw, _ = MAKERS[kind](rng)
        raw = bytearray(raw)
        for k, at in enumerate(HALVES[kind]):
            sign = 1 if (k > 0 or kind.endswith("_K")) else rng.choice([-1, 1])
            raw[at:at + 2] = np.float16(sign * scale * rng.uniform(0.5, 1.0)).tobytes()
        out += raw
    return bytes(out)


def floats(rng, kind, rows, row, scale):
    w = rng.normal(0, scale, (rows, row)).astype(np.float32)
    if kind == "F32":
        return w.tobytes()
    if kind == "F16":
        return w.astype(np.float16).tobytes()
    return (w.view(np.uint32) >> 16).astype(np.uint16).tobytes()  # BF16


def tensor(rng, kind, rows, row, quant_scale, float_scale):
    if kind in MAKERS:
        return quantized(rng, kind, rows, row, quant_scale)
    return floats(rng, kind, rows, row, float_scale)


def main():
    rng = np.random.default_rng(2026)
    tokens = [byte_symbol(b) for b in range(256)] + [byte_symbol(ord(" ")) + "t", "<|begin_of_text|>"]
    metadata = [
        ("general.architecture", STRING, "llama"), ("llama.block_count", UINT32, L),
        ("llama.context_length", UINT32, 128), ("llama.embedding_length", UINT32, D),
        ("llama.feed_forward_length", UINT32, FF), ("llama.attention.head_count", UINT32, H),
        ("llama.attention.head_count_kv", UINT32, G), ("llama.attention.layer_norm_rms_epsilon", FLOAT32, 1e-5),
        ("llama.rope.freq_base", FLOAT32, 10000.0), ("llama.rope.dimension_count", UINT32, D // H),
        ("tokenizer.ggml.model", STRING, "gpt2"), ("tokenizer.ggml.pre", STRING, "llama-bpe"),
        ("tokenizer.ggml.tokens", ARRAY, (STRING, tokens)),
        ("tokenizer.ggml.token_type", ARRAY, (INT32, [1] * 257 + [3])),
        ("tokenizer.ggml.merges", ARRAY, (STRING, [byte_symbol(ord(" ")) + " t"])),
        ("tokenizer.ggml.bos_token_id", UINT32, 257), ("tokenizer.ggml.eos_token_id", UINT32, 257),
        ("tokenizer.ggml.add_bos_token", BOOL, False)]
    norm = lambda: (1 + rng.normal(0, 0.1, D)).astype(np.float32).tobytes()  # noqa: E731
    tensors = [("token_embd.weight", [D, V], "Q4_1", quantized(rng, "Q4_1", V, D, 0.05)),
               ("output_norm.weight", [D], "F32", norm()),
               ("output.weight", [D, V], "Q6_K", quantized(rng, "Q6_K", V, D, 0.0004))]
    kinds = [("Q4_K", "Q5_K", "Q6_K", "Q8_0", "Q4_0", "Q3_K", "Q2_K"),
             ("Q5_0", "F16", "BF16", "Q5_1", "Q4_1", "Q4_K", "Q6_K")]
    for b, (q, k, v, o, gate, up, down) in enumerate(kinds):
        tensors += [
            (f"blk.{b}.attn_norm.weight", [D], "F32", norm()),
            (f"blk.{b}.ffn_norm.weight", [D], "F32", norm()),
            (f"blk.{b}.attn_q.weight", [D, H * 64], q, tensor(rng, q, H * 64, D, 0.01, 0.06)),
            (f"blk.{b}.attn_k.weight", [D, G * 64], k, tensor(rng, k, G * 64, D, 0.01, 0.06)),
            (f"blk.{b}.attn_v.weight", [D, G * 64], v, tensor(rng, v, G * 64, D, 0.002, 0.03)),
            (f"blk.{b}.attn_output.weight", [D, D], o, tensor(rng, o, D, D, 0.002, 0.03)),
            (f"blk.{b}.ffn_gate.weight", [D, FF], gate, tensor(rng, gate, FF, D, 0.005, 0.06)),
            (f"blk.{b}.ffn_up.weight", [D, FF], up, tensor(rng, up, FF, D, 0.005, 0.06)),
            (f"blk.{b}.ffn_down.weight", [FF, D], down, tensor(rng, down, D, FF, 0.002, 0.03))]
    os.makedirs(os.path.join(HERE, "llama_cpp"), exist_ok=True)
    write_gguf(os.path.join(HERE, "llama_cpp", "model.gguf"), metadata, tensors)


if __name__ == "__main__":
    main()
