#!/usr/bin/python3
"""Tiny synthetic Hugging Face checkpoints and their NumPy attention references (issue 11).

Each case folder holds model.safetensors (or an index and shards), maybe config.json, and for
the layer a test checks: <layer>_xq.npy (queries' X), <layer>_xkv.npy (keys' and values' X),
<layer>_attention.npy (h*n_q x n_k, head blocks stacked) and <layer>_output.npy (n_q x d_model).
bert_input/ and gpt2_input/ also hold the model's embeddings and tokenizer files (copied from
../tokenizers) and input.json: a sentence, its subword ids and pieces, and X built as the family
builds it (../tokenizers/make_fixtures.py's independent tokenizers and input recipes).
The references below use each family's own tensor layout (nn.Linear out x in, GPT-2's Conv1D
in x out, K/V heads repeated for GQA, rotate-half rotary, no scale for T5): they never go
through our W^Q convention. Run with /usr/bin/python3 (Debian's, with numpy) from anywhere.
"""
import json
import os
import struct

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(11)


def write_safetensors(path, tensors, dtypes=None):
    dtypes = dtypes or {}
    header, blobs, offset = {}, [], 0
    for name in sorted(tensors):
        array = tensors[name]
        dtype = dtypes.get(name, "F32" if array.dtype.kind == "f" else None)
        if dtype == "F32":
            blob = array.astype("<f4").tobytes()
        elif dtype == "F16":
            blob = array.astype("<f2").tobytes()
        elif dtype == "BF16":
            blob = (array.astype("<f4").view("<u4") >> 16).astype("<u2").tobytes()
        elif array.dtype == np.int64:
            dtype, blob = "I64", array.astype("<i8").tobytes()
        elif array.dtype == np.bool_:
            dtype, blob = "BOOL", array.astype("u1").tobytes()
        header[name] = {"dtype": dtype, "shape": list(array.shape), "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    header["__metadata__"] = {"format": "pt"}
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def rounded(array, dtype):
    """The values a reader of `dtype` sees."""
    if dtype == "F16":
        return array.astype(np.float16).astype(np.float64)
    if dtype == "BF16":
        bits = (array.astype(np.float32).view(np.uint32) >> 16) << 16
        return bits.astype(np.uint32).view(np.float32).astype(np.float64)
    return array.astype(np.float32).astype(np.float64)


def softmax(scores):
    scores = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(scores)
    return e / e.sum(axis=-1, keepdims=True)


def attend(q, k, v, h, g, causal, scale=True):
    """q: n_q x h d_k, k and v: n_k x g d_k. Returns (h x n_q x n_k attention, n_q x h d_k)."""
    n_q, n_k = q.shape[0], k.shape[0]
    d_k = q.shape[1] // h
    qh = q.reshape(n_q, h, d_k).transpose(1, 0, 2)
    kh = np.repeat(k.reshape(n_k, g, d_k).transpose(1, 0, 2), h // g, axis=0)  # GQA: repeat K/V heads
    vh = np.repeat(v.reshape(n_k, g, d_k).transpose(1, 0, 2), h // g, axis=0)
    scores = qh @ kh.transpose(0, 2, 1)
    if scale:
        scores = scores / np.sqrt(d_k)
    if causal:
        scores = np.where(np.triu(np.ones((n_q, n_k), bool), 1), -np.inf, scores)
    a = softmax(scores)
    return a, (a @ vh).transpose(1, 0, 2).reshape(n_q, h * d_k)


def rotate_half_rope(x, heads, base):
    """Hugging Face LLaMA: q * cos + rotate_half(q) * sin, per head, position = row."""
    n, width = x.shape
    d_k = width // heads
    inv_freq = 1.0 / base ** (np.arange(0, d_k, 2) / d_k)
    freqs = np.outer(np.arange(n), inv_freq)
    emb = np.concatenate([freqs, freqs], axis=1)
    cos, sin = np.cos(emb), np.sin(emb)
    out = np.empty_like(x)
    for i in range(heads):
        block = x[:, i * d_k:(i + 1) * d_k]
        rotated = np.concatenate([-block[:, d_k // 2:], block[:, :d_k // 2]], axis=1)
        out[:, i * d_k:(i + 1) * d_k] = block * cos + rotated * sin
    return out


def save_reference(folder, layer, xq, xkv, attention, output):
    h, n_q, n_k = attention.shape
    for suffix, array in (("xq", xq), ("xkv", xkv), ("attention", attention.reshape(h * n_q, n_k)),
                          ("output", output)):
        np.save(os.path.join(folder, f"{layer}_{suffix}.npy"), array.astype(np.float64))


def inputs(d, n_q, n_kv):
    return rng.normal(size=(n_q, d)).astype(np.float32).astype(np.float64), \
        rng.normal(size=(n_kv, d)).astype(np.float32).astype(np.float64)


def linear(out_dim, in_dim, scale=0.5):
    return rng.normal(scale=scale, size=(out_dim, in_dim)).astype(np.float32)


def bias(n):
    return rng.normal(scale=0.1, size=(n,)).astype(np.float32)


def folder(name):
    path = os.path.join(HERE, name)
    os.makedirs(path, exist_ok=True)
    return path


def write_config(path, config):
    with open(os.path.join(path, "config.json"), "w") as f:
        json.dump(config, f, indent=1)


def linear_reference(t, prefix, names, h, g, xq, xkv, causal, scale=True, dtype="F32", rope_base=None):
    """nn.Linear family: y = x weight^T + bias."""
    def proj(stem, x):
        y = x @ rounded(t[f"{prefix}.{stem}.weight"], dtype).T
        if f"{prefix}.{stem}.bias" in t:
            y = y + rounded(t[f"{prefix}.{stem}.bias"], dtype)
        return y
    q, k, v = proj(names[0], xq), proj(names[1], xkv), proj(names[2], xkv)
    if rope_base is not None:
        q, k = rotate_half_rope(q, h, rope_base), rotate_half_rope(k, g, rope_base)
    a, concat = attend(q, k, v, h, g, causal, scale)
    return a, proj(names[3], concat) if True else None


def bert(name, dtype="F32", config=True, d=16, h=4):
    path = folder(name)
    t = {"bert.embeddings.position_ids": np.arange(12, dtype=np.int64).reshape(1, 12),
         "bert.embeddings.word_embeddings.weight": linear(20, d)}
    for layer in range(2):
        p = f"bert.encoder.layer.{layer}.attention"
        for stem in ("self.query", "self.key", "self.value", "output.dense"):
            t[f"{p}.{stem}.weight"], t[f"{p}.{stem}.bias"] = linear(d, d), bias(d)
        t[f"{p}.output.LayerNorm.weight"] = np.ones(d, np.float32)
    dtypes = {n: dtype for n in t if t[n].dtype == np.float32}
    write_safetensors(os.path.join(path, "model.safetensors"), t, dtypes)
    if config:
        write_config(path, {"model_type": "bert", "hidden_size": d, "num_attention_heads": h})
    xq, _ = inputs(d, 5, 5)
    p = "bert.encoder.layer.1.attention"
    a, out = linear_reference(t, p, ("self.query", "self.key", "self.value", "output.dense"), h, h, xq, xq, False,
                              dtype=dtype)
    save_reference(path, p, xq, xq, a, out)
    return t


def distilbert(d=8, h=2):
    path = folder("distilbert")
    t = {}
    for layer in range(2):
        p = f"distilbert.transformer.layer.{layer}.attention"
        for stem in ("q_lin", "k_lin", "v_lin", "out_lin"):
            t[f"{p}.{stem}.weight"], t[f"{p}.{stem}.bias"] = linear(d, d), bias(d)
    write_safetensors(os.path.join(path, "model.safetensors"), t)  # no config.json: h given by the caller
    xq, _ = inputs(d, 4, 4)
    p = "distilbert.transformer.layer.0.attention"
    a, out = linear_reference(t, p, ("q_lin", "k_lin", "v_lin", "out_lin"), h, h, xq, xq, False)
    save_reference(path, p, xq, xq, a, out)


def gpt2(d=16, h=4):
    path = folder("gpt2")
    t = {"wte.weight": linear(20, d), "h.0.attn.bias": np.tril(np.ones((1, 1, 6, 6), bool))}
    for layer in range(2):
        t[f"h.{layer}.attn.c_attn.weight"], t[f"h.{layer}.attn.c_attn.bias"] = linear(d, 3 * d), bias(3 * d)
        t[f"h.{layer}.attn.c_proj.weight"], t[f"h.{layer}.attn.c_proj.bias"] = linear(d, d), bias(d)
    write_safetensors(os.path.join(path, "model.safetensors"), t)
    write_config(path, {"model_type": "gpt2", "n_embd": d, "n_head": h})
    xq, _ = inputs(d, 5, 5)
    w, b = t["h.1.attn.c_attn.weight"].astype(np.float64), t["h.1.attn.c_attn.bias"].astype(np.float64)
    qkv = xq @ w + b  # Conv1D: x W + b, W is in x out
    a, concat = attend(qkv[:, :d], qkv[:, d:2 * d], qkv[:, 2 * d:], h, h, True)
    out = concat @ t["h.1.attn.c_proj.weight"].astype(np.float64) + t["h.1.attn.c_proj.bias"]
    save_reference(path, "h.1.attn", xq, xq, a, out)


def bart(d=16, h=4):
    path = folder("bart")
    t = {"model.shared.weight": linear(20, d)}
    stems = ("q_proj", "k_proj", "v_proj", "out_proj")
    modules = [f"model.encoder.layers.{i}.self_attn" for i in range(2)] + \
              [f"model.decoder.layers.{i}.{kind}" for i in range(2) for kind in ("self_attn", "encoder_attn")]
    for p in modules:
        for stem in stems:
            t[f"{p}.{stem}.weight"], t[f"{p}.{stem}.bias"] = linear(d, d), bias(d)
    write_safetensors(os.path.join(path, "model.safetensors"), t)
    write_config(path, {"model_type": "bart", "d_model": d, "encoder_attention_heads": h,
                        "decoder_attention_heads": h})
    src, tgt = inputs(d, 5, 4)
    for p, xq, xkv, causal in (("model.encoder.layers.1.self_attn", src, src, False),
                               ("model.decoder.layers.0.self_attn", tgt, tgt, True),
                               ("model.decoder.layers.1.encoder_attn", tgt, src, False)):
        a, out = linear_reference(t, p, stems, h, h, xq, xkv, causal)
        save_reference(path, p, xq, xkv, a, out)


def t5(d=16, h=4):
    path = folder("t5")
    t = {"shared.weight": linear(20, d),
         "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight": linear(32, h)}
    modules = [f"encoder.block.{i}.layer.0.SelfAttention" for i in range(2)] + \
              [f"decoder.block.{i}.layer.0.SelfAttention" for i in range(2)] + \
              [f"decoder.block.{i}.layer.1.EncDecAttention" for i in range(2)]
    for p in modules:
        for stem in "qkvo":
            t[f"{p}.{stem}.weight"] = linear(d, d)
    write_safetensors(os.path.join(path, "model.safetensors"), t)
    write_config(path, {"model_type": "t5", "d_model": d, "num_heads": h, "d_kv": d // h})
    src, tgt = inputs(d, 5, 4)
    for p, xq, xkv, causal in (("encoder.block.0.layer.0.SelfAttention", src, src, False),
                               ("decoder.block.1.layer.0.SelfAttention", tgt, tgt, True),
                               ("decoder.block.0.layer.1.EncDecAttention", tgt, src, False)):
        a, out = linear_reference(t, p, "qkvo", h, h, xq, xkv, causal, scale=False)
        save_reference(path, p, xq, xkv, a, out)
    # Inner width h d_kv = 2 d_model: heads twice as wide as d_model / h.
    wide = folder("t5_wide")
    p = "encoder.block.0.layer.0.SelfAttention"
    wide_t = {f"{p}.q.weight": linear(2 * d, d), f"{p}.k.weight": linear(2 * d, d),
              f"{p}.v.weight": linear(2 * d, d), f"{p}.o.weight": linear(d, 2 * d)}
    write_safetensors(os.path.join(wide, "model.safetensors"), wide_t)
    write_config(wide, {"model_type": "t5", "d_model": d, "num_heads": h, "d_kv": 2 * d // h})
    a, out = linear_reference(wide_t, p, "qkvo", h, h, src, src, False, scale=False)
    save_reference(wide, p, src, src, a, out)


def llama(name="llama", dtype="F32", d=16, h=4, g=2, base=500.0):
    path = folder(name)
    d_k = d // h
    t = {"model.embed_tokens.weight": linear(20, d)}
    for layer in range(2):
        p = f"model.layers.{layer}.self_attn"
        t[f"{p}.q_proj.weight"], t[f"{p}.k_proj.weight"] = linear(d, d), linear(g * d_k, d)
        t[f"{p}.v_proj.weight"], t[f"{p}.o_proj.weight"] = linear(g * d_k, d), linear(d, d)
    dtypes = {n: dtype for n in t}
    write_safetensors(os.path.join(path, "model.safetensors"), t, dtypes)
    write_config(path, {"model_type": "llama", "hidden_size": d, "num_attention_heads": h,
                        "num_key_value_heads": g, "rope_theta": base})
    xq, _ = inputs(d, 6, 6)
    p = "model.layers.1.self_attn"
    a, out = linear_reference(t, p, ("q_proj", "k_proj", "v_proj", "o_proj"), h, g, xq, xq, True, dtype=dtype,
                              rope_base=base)
    save_reference(path, p, xq, xq, a, out)


def qwen3_wide(d=16, h=4, g=2, head_dim=8, base=1000000.0):
    """Qwen3-shaped attention: head_dim set in config.json and wider than d_model / h, so
    q_proj is h head_dim x d_model and o_proj d_model x h head_dim (the q/k norms are the whole
    model's business, not this layer's)."""
    path = folder("qwen3_wide")
    t = {"model.embed_tokens.weight": linear(20, d)}
    p = "model.layers.0.self_attn"
    t[f"{p}.q_proj.weight"], t[f"{p}.k_proj.weight"] = linear(h * head_dim, d), linear(g * head_dim, d)
    t[f"{p}.v_proj.weight"], t[f"{p}.o_proj.weight"] = linear(g * head_dim, d), linear(d, h * head_dim)
    write_safetensors(os.path.join(path, "model.safetensors"), t)
    write_config(path, {"model_type": "qwen3", "hidden_size": d, "num_attention_heads": h,
                        "num_key_value_heads": g, "head_dim": head_dim, "rope_theta": base})
    xq, _ = inputs(d, 6, 6)
    a, out = linear_reference(t, p, ("q_proj", "k_proj", "v_proj", "o_proj"), h, g, xq, xq, True, rope_base=base)
    save_reference(path, p, xq, xq, a, out)


def sharded(d=8, h=2):
    """BERT layers split over two shards, with the index Hugging Face writes."""
    path = folder("sharded")
    shards = [{}, {}]
    for layer in range(2):
        p = f"encoder.layer.{layer}.attention"  # no "bert." prefix, as some exports have
        for stem in ("self.query", "self.key", "self.value", "output.dense"):
            shards[layer][f"{p}.{stem}.weight"], shards[layer][f"{p}.{stem}.bias"] = linear(d, d), bias(d)
    weight_map = {}
    for i, shard in enumerate(shards):
        file = f"model-{i + 1:05d}-of-00002.safetensors"
        write_safetensors(os.path.join(path, file), shard)
        weight_map.update({name: file for name in shard})
    with open(os.path.join(path, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": 0}, "weight_map": weight_map}, f, indent=1)
    write_config(path, {"model_type": "bert", "hidden_size": d, "num_attention_heads": h})
    xq, _ = inputs(d, 4, 4)
    p = "encoder.layer.1.attention"
    a, out = linear_reference(shards[1], p, ("self.query", "self.key", "self.value", "output.dense"), h, h, xq, xq,
                              False)
    save_reference(path, p, xq, xq, a, out)


TOKENIZERS = os.path.join(HERE, "..", "tokenizers")


def tokenizer_reference():
    """The independent tokenizers of ../tokenizers/make_fixtures.py and their vocabularies."""
    import shutil
    import sys
    sys.path.insert(0, TOKENIZERS)
    import make_fixtures
    with open(os.path.join(TOKENIZERS, "wordpiece_vocab.txt"), encoding="utf-8") as f:
        wordpiece = {t: i for i, t in enumerate(f.read().split("\n")[:-1])}
    with open(os.path.join(TOKENIZERS, "bpe_vocab.json"), encoding="utf-8") as f:
        bpe = json.load(f)
    with open(os.path.join(TOKENIZERS, "bpe_merges.txt"), encoding="utf-8") as f:
        lines = [line for line in f.read().split("\n")[1:] if line]
    ranks = {tuple(line.split(" ")): i for i, line in enumerate(lines)}
    return make_fixtures, shutil, wordpiece, bpe, ranks


def save_input(path, text, tokens, x):
    with open(os.path.join(path, "input.json"), "w", encoding="ascii") as f:
        json.dump({"text": text, "ids": tokens["ids"], "pieces": tokens["pieces"],
                   "display": tokens.get("display", tokens["pieces"])}, f, ensure_ascii=True, indent=1)
        f.write("\n")
    np.save(os.path.join(path, "input_x.npy"), x.astype(np.float64))


INPUT_TEXT = "The cat sat on the mat, playing."


def bert_input(d=16, h=4, positions=24, eps=1e-12):
    """BERT with its embeddings and vocab.txt: layer 0 reads LayerNorm(word + position + type)."""
    fixtures, shutil, wordpiece, _, _ = tokenizer_reference()
    path = folder("bert_input")
    t = {"bert.embeddings.word_embeddings.weight": linear(len(wordpiece), d),
         "bert.embeddings.position_embeddings.weight": linear(positions, d),
         "bert.embeddings.token_type_embeddings.weight": linear(2, d),
         "bert.embeddings.LayerNorm.weight": (1 + bias(d)).astype(np.float32),
         "bert.embeddings.LayerNorm.bias": bias(d),
         "bert.embeddings.position_ids": np.arange(positions, dtype=np.int64).reshape(1, positions)}
    for layer in range(2):
        p = f"bert.encoder.layer.{layer}.attention"
        for stem in ("self.query", "self.key", "self.value", "output.dense"):
            t[f"{p}.{stem}.weight"], t[f"{p}.{stem}.bias"] = linear(d, d), bias(d)
    write_safetensors(os.path.join(path, "model.safetensors"), t)
    write_config(path, {"model_type": "bert", "hidden_size": d, "num_attention_heads": h, "layer_norm_eps": eps,
                        "max_position_embeddings": positions})
    shutil.copyfile(os.path.join(TOKENIZERS, "wordpiece_vocab.txt"), os.path.join(path, "vocab.txt"))
    with open(os.path.join(path, "tokenizer_config.json"), "w") as f:
        json.dump({"do_lower_case": True}, f)
    tokens = fixtures.bert_tokenize(INPUT_TEXT, wordpiece)
    e = "bert.embeddings."
    x = fixtures.bert_input(tokens["ids"], t[e + "word_embeddings.weight"], t[e + "position_embeddings.weight"],
                            t[e + "token_type_embeddings.weight"], t[e + "LayerNorm.weight"],
                            t[e + "LayerNorm.bias"], eps).astype(np.float64)
    save_input(path, INPUT_TEXT, tokens, x)
    p = "bert.encoder.layer.0.attention"
    a, out = linear_reference(t, p, ("self.query", "self.key", "self.value", "output.dense"), h, h, x, x, False)
    save_reference(path, p, x, x, a, out)


def gpt2_input(d=16, h=4, positions=24, eps=1e-5):
    """GPT-2 (GPT2LMHeadModel names) with vocab.json and merges.txt: h.0 reads ln_1(wte + wpe)."""
    fixtures, shutil, _, bpe, ranks = tokenizer_reference()
    path = folder("gpt2_input")
    pre = "transformer."
    t = {pre + "wte.weight": linear(len(bpe), d), pre + "wpe.weight": linear(positions, d),
         pre + "h.0.ln_1.weight": (1 + bias(d)).astype(np.float32), pre + "h.0.ln_1.bias": bias(d)}
    for layer in range(2):
        t[f"{pre}h.{layer}.attn.c_attn.weight"], t[f"{pre}h.{layer}.attn.c_attn.bias"] = linear(d, 3 * d), bias(3 * d)
        t[f"{pre}h.{layer}.attn.c_proj.weight"], t[f"{pre}h.{layer}.attn.c_proj.bias"] = linear(d, d), bias(d)
    write_safetensors(os.path.join(path, "model.safetensors"), t)
    write_config(path, {"model_type": "gpt2", "n_embd": d, "n_head": h, "layer_norm_epsilon": eps,
                        "n_positions": positions})
    shutil.copyfile(os.path.join(TOKENIZERS, "bpe_vocab.json"), os.path.join(path, "vocab.json"))
    shutil.copyfile(os.path.join(TOKENIZERS, "bpe_merges.txt"), os.path.join(path, "merges.txt"))
    tokens = fixtures.gpt2_tokenize(INPUT_TEXT, bpe, ranks)
    x = fixtures.gpt2_input(tokens["ids"], t[pre + "wte.weight"], t[pre + "wpe.weight"], t[pre + "h.0.ln_1.weight"],
                            t[pre + "h.0.ln_1.bias"], eps).astype(np.float64)
    save_input(path, INPUT_TEXT, tokens, x)
    w, b = t[pre + "h.0.attn.c_attn.weight"].astype(np.float64), t[pre + "h.0.attn.c_attn.bias"].astype(np.float64)
    qkv = x @ w + b  # Conv1D: x W + b
    a, concat = attend(qkv[:, :d], qkv[:, d:2 * d], qkv[:, 2 * d:], h, h, True)
    out = concat @ t[pre + "h.0.attn.c_proj.weight"].astype(np.float64) + t[pre + "h.0.attn.c_proj.bias"]
    save_reference(path, pre + "h.0.attn", x, x, a, out)


if __name__ == "__main__":
    bert("bert")
    bert("bert_f16", dtype="F16", d=8, h=2)
    distilbert()
    gpt2()
    bart()
    t5()
    llama()
    llama("llama_bf16", dtype="BF16")
    sharded()
    bert_input()
    gpt2_input()
    qwen3_wide()
