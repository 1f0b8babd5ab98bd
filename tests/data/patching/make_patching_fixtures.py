#!/usr/bin/env python3
"""Activation patching and the logit lens, computed by an independent NumPy forward (float64) on
two small synthetic checkpoints with the families' own tensor names and config keys:

  gpt2/   GPT2LMHeadModel (transformer.* names, Conv1D weights in x out, tied lm_head, gelu_new),
          d_model 64, 4 heads of 16, 2 layers, the repository's byte-level BPE (643 tokens).
  llama/  LlamaForCausalLM with grouped-query attention (4 query heads, 2 key/value heads of 16),
          RMSNorm, SwiGLU, rotary (rotate_half layout), untied lm_head, 2 layers, 48 tokens.

For each, a clean and a corrupted id sequence of the same length that differ from position `split`
on, the answer A (the clean run's top-1 at the last position) and the wrong token B (the corrupted
run's), and expected.json beside this script with
  LD(P), LD(P'), the heads grid r[l][i] and the residual grid r[l][p] (recovered fractions), and
  the logit lens (top 5 ids and probabilities after each layer at every position) of the clean run.

    r = (LD(patched) - LD(P')) / (LD(P) - LD(P')),  LD = logit_A - logit_B at the last position
    heads: the corrupted run with head i of layer l's z (its block of Concat, before W^O) at every
           position from the clean run; residual: the residual stream entering layer l's block at
           position p from the clean run.

Run from anywhere: python3 tests/data/patching/make_patching_fixtures.py
"""
import json
import os
import shutil
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "checkpoint"))
from make_checkpoints import write_safetensors  # noqa: E402

TOKENIZERS = os.path.join(HERE, "..", "tokenizers")
rng = np.random.default_rng(52)


def normal(*shape, scale=0.2):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def softmax(z):
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def layer_norm(x, g, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * g + b


def rms_norm(x, g, eps):
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * g


def gelu_new(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def causal_heads(q, k, v, h, g, d_k):
    """z = Concat(softmax(q_i k_j^T / sqrt(d_k) + causal mask) v_j), head i reading group i // (h / g)."""
    n = q.shape[0]
    mask = np.triu(np.full((n, n), -np.inf), 1)
    z = []
    for i in range(h):
        j = i // (h // g)
        qi, kj, vj = q[:, i * d_k:(i + 1) * d_k], k[:, j * d_k:(j + 1) * d_k], v[:, j * d_k:(j + 1) * d_k]
        z.append(softmax(qi @ kj.T / np.sqrt(d_k) + mask) @ vj)
    return np.concatenate(z, axis=1)


def forward(model, ids, source=None, patch=None):
    """Returns (inputs of each block, z of each layer, final hidden after the final norm, logits).
    patch: ("head", l, i) or ("residual", l, p), values taken from `source` (a forward's result)."""
    w, c = model["w"], model["config"]
    x = model["embed"](ids)
    inputs, zs = [], []
    for l in range(model["L"]):
        if patch and patch[0] == "residual" and patch[1] == l:
            x = x.copy()
            x[patch[2]] = source[0][l][patch[2]]
        inputs.append(x)
        z = model["heads"](l, x)
        if patch and patch[0] == "head" and patch[1] == l:
            d_k = model["d_k"]
            z = z.copy()
            z[:, patch[2] * d_k:(patch[2] + 1) * d_k] = source[1][l][:, patch[2] * d_k:(patch[2] + 1) * d_k]
        zs.append(z)
        x = model["block_rest"](l, x, z)
    final = model["final_norm"](x)
    return inputs, zs, final, model["readout"](final), [model["readout"](model["final_norm"](y)) for y in inputs[1:] + [x]]


def gpt2_model():
    d, h, L, P, V = 64, 4, 2, 32, 643
    d_ff, eps, pre = 4 * d, 1e-5, "transformer."
    t = {pre + "wte.weight": normal(V, d, scale=0.5), pre + "wpe.weight": normal(P, d, scale=0.3),
         pre + "ln_f.weight": 1 + normal(d, scale=0.1), pre + "ln_f.bias": normal(d, scale=0.1)}
    for l in range(L):
        p = f"{pre}h.{l}."
        t[p + "attn.c_attn.weight"], t[p + "attn.c_attn.bias"] = normal(d, 3 * d), normal(3 * d, scale=0.1)
        t[p + "attn.c_proj.weight"], t[p + "attn.c_proj.bias"] = normal(d, d), normal(d, scale=0.1)
        t[p + "mlp.c_fc.weight"], t[p + "mlp.c_fc.bias"] = normal(d, d_ff), normal(d_ff, scale=0.1)
        t[p + "mlp.c_proj.weight"], t[p + "mlp.c_proj.bias"] = normal(d_ff, d, scale=0.1), normal(d, scale=0.1)
        for norm in ("ln_1", "ln_2"):
            t[p + norm + ".weight"], t[p + norm + ".bias"] = 1 + normal(d, scale=0.1), normal(d, scale=0.1)
    config = {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "n_embd": d, "n_head": h,
              "n_layer": L, "n_inner": None, "vocab_size": V, "n_positions": P,
              "activation_function": "gelu_new", "layer_norm_epsilon": eps, "tie_word_embeddings": True}
    w = {k: v.astype(np.float64) for k, v in t.items()}
    ln = lambda l, name, x: layer_norm(x, w[f"{pre}h.{l}.{name}.weight"], w[f"{pre}h.{l}.{name}.bias"], eps)  # noqa

    def heads(l, x):
        qkv = ln(l, "ln_1", x) @ w[f"{pre}h.{l}.attn.c_attn.weight"] + w[f"{pre}h.{l}.attn.c_attn.bias"]
        return causal_heads(qkv[:, :d], qkv[:, d:2 * d], qkv[:, 2 * d:], h, h, d // h)

    def block_rest(l, x, z):
        p = f"{pre}h.{l}."
        x = x + z @ w[p + "attn.c_proj.weight"] + w[p + "attn.c_proj.bias"]
        m = gelu_new(ln(l, "ln_2", x) @ w[p + "mlp.c_fc.weight"] + w[p + "mlp.c_fc.bias"])
        return x + m @ w[p + "mlp.c_proj.weight"] + w[p + "mlp.c_proj.bias"]

    return {"name": "gpt2", "tensors": t, "config": config, "w": w, "L": L, "h": h, "d_k": d // h,
            "embed": lambda ids: w[pre + "wte.weight"][ids] + w[pre + "wpe.weight"][np.arange(len(ids))],
            "heads": heads, "block_rest": block_rest,
            "final_norm": lambda x: layer_norm(x, w[pre + "ln_f.weight"], w[pre + "ln_f.bias"], eps),
            "readout": lambda x: x @ w[pre + "wte.weight"].T}


def rotate(x, d_k, theta):
    """Rotary positions as transformers' apply_rotary_pos_emb (rotate_half), every head of x."""
    n = x.shape[0]
    inv = 1.0 / theta ** (np.arange(0, d_k, 2) / d_k)
    angles = np.outer(np.arange(n), inv)
    cos, sin = np.cos(np.concatenate([angles, angles], 1)), np.sin(np.concatenate([angles, angles], 1))
    out = np.empty_like(x)
    for s in range(0, x.shape[1], d_k):
        part = x[:, s:s + d_k]
        half = np.concatenate([-part[:, d_k // 2:], part[:, :d_k // 2]], 1)
        out[:, s:s + d_k] = part * cos + half * sin
    return out


def llama_model():
    d, h, g, d_k, L, V, d_ff, eps, theta = 64, 4, 2, 16, 2, 48, 128, 1e-5, 10000.0
    t = {"model.embed_tokens.weight": normal(V, d, scale=0.5), "model.norm.weight": 1 + normal(d, scale=0.1),
         "lm_head.weight": normal(V, d, scale=0.5)}
    for l in range(L):
        p = f"model.layers.{l}."
        t[p + "self_attn.q_proj.weight"] = normal(h * d_k, d)
        t[p + "self_attn.k_proj.weight"] = normal(g * d_k, d)
        t[p + "self_attn.v_proj.weight"] = normal(g * d_k, d)
        t[p + "self_attn.o_proj.weight"] = normal(d, h * d_k)
        t[p + "mlp.gate_proj.weight"] = normal(d_ff, d)
        t[p + "mlp.up_proj.weight"] = normal(d_ff, d)
        t[p + "mlp.down_proj.weight"] = normal(d, d_ff, scale=0.1)
        t[p + "input_layernorm.weight"] = 1 + normal(d, scale=0.1)
        t[p + "post_attention_layernorm.weight"] = 1 + normal(d, scale=0.1)
    config = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": d,
              "intermediate_size": d_ff, "num_hidden_layers": L, "num_attention_heads": h,
              "num_key_value_heads": g, "hidden_act": "silu", "rms_norm_eps": eps, "rope_theta": theta,
              "rope_scaling": None, "max_position_embeddings": 64, "vocab_size": V, "bos_token_id": 1,
              "eos_token_id": 2, "tie_word_embeddings": False, "attention_bias": False, "mlp_bias": False,
              "torch_dtype": "float32"}
    w = {k: v.astype(np.float64) for k, v in t.items()}

    def heads(l, x):
        p = f"model.layers.{l}."
        a = rms_norm(x, w[p + "input_layernorm.weight"], eps)
        q = rotate(a @ w[p + "self_attn.q_proj.weight"].T, d_k, theta)
        k = rotate(a @ w[p + "self_attn.k_proj.weight"].T, d_k, theta)
        return causal_heads(q, k, a @ w[p + "self_attn.v_proj.weight"].T, h, g, d_k)

    def block_rest(l, x, z):
        p = f"model.layers.{l}."
        x = x + z @ w[p + "self_attn.o_proj.weight"].T
        m = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        gate = m @ w[p + "mlp.gate_proj.weight"].T
        return x + ((gate / (1 + np.exp(-gate))) * (m @ w[p + "mlp.up_proj.weight"].T)) @ w[p + "mlp.down_proj.weight"].T

    return {"name": "llama", "tensors": t, "config": config, "w": w, "L": L, "h": h, "d_k": d_k,
            "embed": lambda ids: w["model.embed_tokens.weight"][ids], "heads": heads, "block_rest": block_rest,
            "final_norm": lambda x: rms_norm(x, w["model.norm.weight"], eps),
            "readout": lambda x: x @ w["lm_head.weight"].T}


def top5(logits):
    p = softmax(logits)
    order = sorted(range(len(p)), key=lambda v: (-p[v], v))[:5]
    return [{"id": int(v), "probability": float(p[v])} for v in order]


def case(model, clean, corrupt, split, tokenizer=False):
    path = os.path.join(HERE, model["name"])
    os.makedirs(path, exist_ok=True)
    write_safetensors(os.path.join(path, "model.safetensors"), model["tensors"])
    with open(os.path.join(path, "config.json"), "w") as f:
        json.dump(model["config"], f, indent=1)
    if tokenizer:
        shutil.copyfile(os.path.join(TOKENIZERS, "bpe_vocab.json"), os.path.join(path, "vocab.json"))
        shutil.copyfile(os.path.join(TOKENIZERS, "bpe_merges.txt"), os.path.join(path, "merges.txt"))
    c, x = forward(model, clean), forward(model, corrupt)
    answer, wrong = int(np.argmax(c[3][-1])), int(np.argmax(x[3][-1]))
    if answer == wrong:
        wrong = int(np.argsort(x[3][-1])[-2])
    ld = lambda run: float(run[3][-1][answer] - run[3][-1][wrong])  # noqa: E731
    clean_ld, corrupt_ld = ld(c), ld(x)
    r = lambda patch: (ld(forward(model, corrupt, c, patch)) - corrupt_ld) / (clean_ld - corrupt_ld)  # noqa
    L, n = model["L"], len(clean)
    return {"clean": clean, "corrupt": corrupt, "split": split, "answer": answer, "wrong": wrong,
            "clean_logit_difference": clean_ld, "corrupt_logit_difference": corrupt_ld,
            "heads": [[r(("head", l, i)) for i in range(model["h"])] for l in range(L)],
            "residual": [[r(("residual", l, p)) for p in range(n)] for l in range(L)],
            "logit_lens": [[top5(c[4][l][p]) for p in range(n)] for l in range(L)]}


if __name__ == "__main__":
    gpt2_clean = [31, 7, 250, 12, 99, 3, 64, 5, 120, 77, 31, 7, 250, 12, 99, 3, 64, 5, 120]
    gpt2_corrupt = gpt2_clean[:9] + [400, 77, 31, 7, 250, 12, 99, 3, 64, 5, 120][1:] + [0]
    gpt2_corrupt = gpt2_clean[:9] + [400] + gpt2_clean[10:]
    llama_clean = [1, 9, 33, 4, 17, 25, 9, 33, 4, 12, 38, 6, 21, 9, 33, 4, 30]
    llama_corrupt = llama_clean[:6] + [44] + llama_clean[7:]
    expected = {"gpt2": case(gpt2_model(), gpt2_clean, gpt2_corrupt, 9, tokenizer=True),
                "llama": case(llama_model(), llama_clean, llama_corrupt, 6)}
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
