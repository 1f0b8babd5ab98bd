#!/usr/bin/python3
"""GGUF files of the synthetic checkpoints of tests/data/pretrained, for tests/core/gguf
(Debian's /usr/bin/python3 + python3-numpy):

    /usr/bin/python3 tests/data/gguf/make_model_fixtures.py

Each model is written as llama.cpp's converter (convert_hf_to_gguf.py) would write it, from the
format's description (gguf_writer.py) and llama.cpp's names, not by llama.cpp itself:
  - tensor names blk.N.attn_q.weight, ... (token_embd, output_norm, output);
  - `llama` models (LLaMA, Mistral): the rows of each head of Q and K interleaved for llama.cpp's
    rotary layout: reshape (heads, 2, d/2, in), swap the middle axes, reshape back;
  - Gemma: each RMSNorm's weight w stored as 1 + w;
  - Llama 3's rope_scaling as llama.cpp stores it: a rope_freqs tensor, one factor per frequency
    (1 below the high-frequency wavelength, `factor` above the low one, 1 / ((1 - s) / factor + s)
    between, s = (L / wavelength - low) / (high - low)), and no scaling keys;
  - metadata under general.architecture: sizes, norms' epsilon, rope base, rotated width, linear
    rope scaling, sliding window and pattern, soft caps; and a SentencePiece-style vocabulary.
The fixtures' Gemma models have a query_pre_attn_scalar (24) that is neither of the two llama.cpp
derives for Gemma; they carry it as `<arch>.attention.scale` (llama.cpp's key for a score scale).

models/<name>/model.gguf, where <name> is the family (every tensor F32: the reference is the
family's folder of tests/data/pretrained), or llama_f16 / llama_q8_0 (matrices stored as F16, or
as Q8_0 where a row is whole blocks of 32 and F16 elsewhere, norms F32), whose folder also holds
model.safetensors and config.json with exactly the values the GGUF's blocks decode to, in the
Hugging Face layout: the reference a GGUF model is compared with.
Deterministic: rerunning rewrites the same bytes.
"""
import json
import os
import shutil
import struct

import numpy as np

from gguf_writer import ARRAY, BOOL, FLOAT32, INT32, STRING, UINT32, write_gguf

HERE = os.path.dirname(os.path.abspath(__file__))
PRETRAINED = os.path.join(HERE, "..", "pretrained")
FAMILIES = {"llama": "llama", "llama3": "llama", "mistral": "llama", "qwen2": "qwen2", "qwen3": "qwen3",
            "gemma2": "gemma2", "gemma3": "gemma3", "phi3": "phi3"}

BLOCK_NAMES = {
    "input_layernorm": "attn_norm", "self_attn.q_proj": "attn_q", "self_attn.k_proj": "attn_k",
    "self_attn.v_proj": "attn_v", "self_attn.o_proj": "attn_output", "self_attn.qkv_proj": "attn_qkv",
    "self_attn.q_norm": "attn_q_norm", "self_attn.k_norm": "attn_k_norm", "mlp.gate_proj": "ffn_gate",
    "mlp.up_proj": "ffn_up", "mlp.gate_up_proj": "ffn_up", "mlp.down_proj": "ffn_down",
    "pre_feedforward_layernorm": "ffn_norm", "post_feedforward_layernorm": "post_ffw_norm",
}


def read_safetensors(path):
    with open(path, "rb") as f:
        raw = f.read()
    (length,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + length])
    data = raw[8 + length:]
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        assert entry["dtype"] == "F32", (path, name, entry["dtype"])
        begin, end = entry["data_offsets"]
        tensors[name] = np.frombuffer(data[begin:end], np.float32).reshape(entry["shape"]).copy()
    return tensors


def write_safetensors(path, tensors):
    header, offset, chunks = {}, 0, []
    for name in sorted(tensors):
        raw = np.ascontiguousarray(tensors[name], np.float32).tobytes()
        header[name] = {"dtype": "F32", "shape": list(tensors[name].shape), "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode()
    text += b" " * ((-len(text)) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(chunks))


def gguf_name(name, gemma):
    if name == "model.embed_tokens.weight":
        return "token_embd.weight"
    if name == "model.norm.weight":
        return "output_norm.weight"
    if name == "lm_head.weight":
        return "output.weight"
    parts = name.split(".")
    assert parts[:2] == ["model", "layers"], name
    block, module, suffix = parts[2], ".".join(parts[3:-1]), parts[-1]
    if module == "post_attention_layernorm":
        short = "post_attention_norm" if gemma else "ffn_norm"
    else:
        short = BLOCK_NAMES[module]
    return f"blk.{block}.{short}.{suffix}"


def interleave_heads(w, heads):
    """llama.cpp's permute: each head's rows (2, d/2) -> (d/2, 2)."""
    return w.reshape(heads, 2, w.shape[0] // heads // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def q8_0(w):
    """Blocks of 32 along each row: d = max|x| / 127 as binary16, q = round(x / d). Returns the
    bytes and the values they decode to (q * d in float32)."""
    blocks = w.reshape(-1, 32).astype(np.float32)
    d = (np.abs(blocks).max(axis=1) / 127.0).astype(np.float16)
    d32 = d.astype(np.float32)
    safe = np.where(d32 == 0, 1.0, d32)
    q = np.clip(np.round(blocks / safe[:, None]), -127, 127).astype(np.int8)
    raw = b"".join(d[i].tobytes() + q[i].tobytes() for i in range(len(blocks)))
    values = (q.astype(np.float32) * d32[:, None]).astype(np.float32)
    return raw, values.reshape(w.shape)


def stored(w, kind):
    """(type name, bytes, decoded float32 values) of w as `kind` stores a matrix."""
    if w.ndim == 1 or kind == "F32":
        return "F32", w.astype(np.float32).tobytes(), w
    if kind == "Q8_0" and w.shape[-1] % 32 == 0:
        raw, values = q8_0(w)
        return "Q8_0", raw, values
    h = w.astype(np.float16)
    return "F16", h.tobytes(), h.astype(np.float32)


def rope_factors(config):
    scaling = config["rope_scaling"]
    head_dim = config.get("head_dim") or config["hidden_size"] // config["num_attention_heads"]
    freqs = 1.0 / (np.float32(config["rope_theta"]) ** (np.arange(0, head_dim, 2, dtype=np.float32) / head_dim))
    factor, low, high = scaling["factor"], scaling["low_freq_factor"], scaling["high_freq_factor"]
    old = scaling["original_max_position_embeddings"]
    factors = []
    for freq in freqs:
        wavelength = 2 * np.pi / float(freq)
        if wavelength < old / high:
            factors.append(1.0)
        elif wavelength > old / low:
            factors.append(factor)
        else:
            s = (old / wavelength - low) / (high - low)
            factors.append(1.0 / ((1 - s) / factor + s))
    return np.array(factors, np.float32)


def metadata(config, arch):
    h = config["num_attention_heads"]
    head_dim = config.get("head_dim") or config["hidden_size"] // h
    out = [("general.architecture", STRING, arch), ("general.alignment", UINT32, 32),
           (f"{arch}.block_count", UINT32, config["num_hidden_layers"]),
           (f"{arch}.context_length", UINT32, config["max_position_embeddings"]),
           (f"{arch}.embedding_length", UINT32, config["hidden_size"]),
           (f"{arch}.feed_forward_length", UINT32, config["intermediate_size"]),
           (f"{arch}.attention.head_count", UINT32, h),
           (f"{arch}.attention.head_count_kv", UINT32, config.get("num_key_value_heads", h)),
           (f"{arch}.attention.key_length", UINT32, head_dim),
           (f"{arch}.attention.value_length", UINT32, head_dim),
           (f"{arch}.attention.layer_norm_rms_epsilon", FLOAT32, config["rms_norm_eps"]),
           (f"{arch}.rope.freq_base", FLOAT32, config["rope_theta"]),
           (f"{arch}.rope.dimension_count", UINT32, int(head_dim * config.get("partial_rotary_factor", 1.0)))]
    scaling = config.get("rope_scaling")
    if scaling and scaling.get("rope_type") == "linear":
        out += [(f"{arch}.rope.scaling.type", STRING, "linear"), (f"{arch}.rope.scaling.factor", FLOAT32, scaling["factor"])]
    window = config.get("sliding_window")
    if window and (arch != "qwen2" or config.get("use_sliding_window")):
        out.append((f"{arch}.attention.sliding_window", UINT32, window))
    for key in ("attn_logit_softcapping", "final_logit_softcapping"):
        if config.get(key):
            out.append((f"{arch}.{key}", FLOAT32, config[key]))
    if config.get("sliding_window_pattern"):
        out.append((f"{arch}.attention.sliding_window_pattern", UINT32, config["sliding_window_pattern"]))
    if config.get("query_pre_attn_scalar"):
        out.append((f"{arch}.attention.scale", FLOAT32, config["query_pre_attn_scalar"] ** -0.5))
    vocab = config["vocab_size"]
    tokens = ["<unk>", "<s>", "</s>"] + [f"\u2581t{i}" for i in range(3, vocab)]
    out += [("tokenizer.ggml.model", STRING, "llama"), ("tokenizer.ggml.tokens", ARRAY, (STRING, tokens)),
            ("tokenizer.ggml.scores", ARRAY, (FLOAT32, [0.0, 0.0, 0.0] + [-float(i) for i in range(3, vocab)])),
            ("tokenizer.ggml.token_type", ARRAY, (INT32, [2, 3, 3] + [1] * (vocab - 3))),
            ("tokenizer.ggml.bos_token_id", UINT32, 1), ("tokenizer.ggml.eos_token_id", UINT32, 2),
            ("tokenizer.ggml.add_bos_token", BOOL, True)]
    return out


def convert(family, arch, kind, name):
    source = os.path.join(PRETRAINED, family)
    with open(os.path.join(source, "config.json")) as f:
        config = json.load(f)
    weights = read_safetensors(os.path.join(source, "model.safetensors"))
    gemma = arch.startswith("gemma")
    h = config["num_attention_heads"]
    g = config.get("num_key_value_heads", h)
    tensors, decoded = [], {}
    for hf_name in sorted(weights):
        w = weights[hf_name]
        type_name, raw, values = stored(w, kind)
        decoded[hf_name] = values
        if arch == "llama" and hf_name.endswith(("q_proj.weight", "k_proj.weight")):
            # rows move whole, so the blocks of a row travel with it
            heads = h if "q_proj" in hf_name else g
            type_name, raw, _ = stored(interleave_heads(w, heads), kind)
        if gemma and hf_name.endswith("norm.weight"):
            raw = (w + np.float32(1.0)).astype(np.float32).tobytes()
            decoded[hf_name] = (w + np.float32(1.0)) - np.float32(1.0)
        # GGUF dims run from a row's values outwards
        tensors.append((gguf_name(hf_name, gemma), list(reversed(w.shape)), type_name, raw))
    scaling = config.get("rope_scaling")
    if scaling and scaling.get("rope_type") == "llama3":
        tensors.append(("rope_freqs.weight", [len(rope_factors(config))], "F32", rope_factors(config).tobytes()))
    folder = os.path.join(HERE, "models", name)
    os.makedirs(folder, exist_ok=True)
    write_gguf(os.path.join(folder, "model.gguf"), metadata(config, arch), tensors)
    if kind != "F32":
        write_safetensors(os.path.join(folder, "model.safetensors"), decoded)
        shutil.copy(os.path.join(source, "config.json"), os.path.join(folder, "config.json"))


def main():
    for family, arch in FAMILIES.items():
        convert(family, arch, "F32", family)
    convert("llama", "llama", "F16", "llama_f16")
    convert("llama", "llama", "Q8_0", "llama_q8_0")


if __name__ == "__main__":
    main()
