#!/usr/bin/python3
"""Tiny synthetic checkpoints and their QK and OV circuits computed in NumPy from the definitions.

Two models (random weights, numpy only):
  gpt2_tied/   GPT2LMHeadModel, tied readout (W_U = W_E^T), h = g = 4, d_k = d_model / h
  qwen3_gqa/   Qwen3ForCausalLM, an untied lm_head, grouped-query attention (h = 4 query heads over
               g = 2 key/value heads) and head_dim 8 != d_model / h
and one without a readout, which the circuits refuse (no circuits are computed for it):
  bert_bare/   BertModel (no masked-LM head), with ../pretrained/bert's WordPiece vocabulary
and circuits.json: for each model the prompt's ids, K, and per head (layer in model order and
head from 0, its key/value head floor(h g / H)):
  qk   for each distinct prompt token a, the K keys b of largest (W_E[a] W_Q^h).(W_E[b] W_K^h)/sqrt(d_k)
  ov   for each distinct prompt token s, the K outputs t of largest W_E[s] W_V^h W_O^h W_U[:, t]
  eigenvalues   the d_k largest by |lambda| of the V x V full OV circuit W_E W_V^h W_O^h W_U
                (the rest are 0: its rank is at most d_k), which the C++ code takes from the
                d_k x d_k matrix W_O^h (W_U W_E) W_V^h
  copying_score sum Re(lambda) / sum |lambda| over them
Everything in float64 on the float32-rounded weights, computed directly from the V x V and V x V
score tables (never the d_k x d_k shortcut). Run with /usr/bin/python3 from anywhere.
"""
import json
import math
import os
import shutil
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "checkpoint"))
from make_checkpoints import write_safetensors  # noqa: E402  (the shared safetensors writer)

rng = np.random.default_rng(51)
K = 5
PROMPT = [3, 17, 9, 3, 17, 22, 0]  # distinct in order of first appearance: 3, 17, 9, 22, 0


def normal(*shape, scale=0.3):
    return rng.normal(scale=scale, size=shape).astype(np.float32)


def folder(name):
    path = os.path.join(HERE, name)
    os.makedirs(path, exist_ok=True)
    return path


def write_model(name, tensors, config):
    path = folder(name)
    write_safetensors(os.path.join(path, "model.safetensors"), tensors)
    with open(os.path.join(path, "config.json"), "w") as f:
        json.dump(config, f, indent=1)


def gpt2_tied(V=48, d=16, h=4, L=2, P=16):
    t = {"wte.weight": normal(V, d), "wpe.weight": normal(P, d, scale=0.1),
         "ln_f.weight": np.ones(d, np.float32), "ln_f.bias": np.zeros(d, np.float32)}
    layers = []
    for l in range(L):
        p = f"h.{l}."
        t[p + "attn.c_attn.weight"], t[p + "attn.c_attn.bias"] = normal(d, 3 * d), normal(3 * d, scale=0.1)
        t[p + "attn.c_proj.weight"], t[p + "attn.c_proj.bias"] = normal(d, d), normal(d, scale=0.1)
        t[p + "mlp.c_fc.weight"], t[p + "mlp.c_fc.bias"] = normal(d, 4 * d), normal(4 * d, scale=0.1)
        t[p + "mlp.c_proj.weight"], t[p + "mlp.c_proj.bias"] = normal(4 * d, d), normal(d, scale=0.1)
        for norm in ("ln_1", "ln_2"):
            t[p + norm + ".weight"], t[p + norm + ".bias"] = np.ones(d, np.float32), np.zeros(d, np.float32)
        c_attn = t[p + "attn.c_attn.weight"].astype(np.float64)  # Conv1D: in x out, already x W
        layers.append({"W_Q": c_attn[:, :d], "W_K": c_attn[:, d:2 * d], "W_V": c_attn[:, 2 * d:],
                       "W_O": t[p + "attn.c_proj.weight"].astype(np.float64), "h": h, "g": h, "d_k": d // h})
    config = {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "n_embd": d, "n_head": h,
              "n_layer": L, "n_inner": None, "vocab_size": V, "n_positions": P,
              "activation_function": "gelu_new", "layer_norm_epsilon": 1e-5, "tie_word_embeddings": True}
    write_model("gpt2_tied", t, config)
    W_E = t["wte.weight"].astype(np.float64)
    return W_E, W_E.T, layers


def qwen3_gqa(V=40, d=16, h=4, g=2, d_k=8, L=2, d_ff=24):
    t = {"model.embed_tokens.weight": normal(V, d), "model.norm.weight": np.ones(d, np.float32),
         "lm_head.weight": normal(V, d)}
    layers = []
    for l in range(L):
        p = f"model.layers.{l}."
        t[p + "self_attn.q_proj.weight"] = normal(h * d_k, d)  # nn.Linear: out x in
        t[p + "self_attn.k_proj.weight"] = normal(g * d_k, d)
        t[p + "self_attn.v_proj.weight"] = normal(g * d_k, d)
        t[p + "self_attn.o_proj.weight"] = normal(d, h * d_k)
        t[p + "self_attn.q_norm.weight"] = np.ones(d_k, np.float32)
        t[p + "self_attn.k_norm.weight"] = np.ones(d_k, np.float32)
        t[p + "mlp.gate_proj.weight"], t[p + "mlp.up_proj.weight"] = normal(d_ff, d), normal(d_ff, d)
        t[p + "mlp.down_proj.weight"] = normal(d, d_ff)
        t[p + "input_layernorm.weight"] = np.ones(d, np.float32)
        t[p + "post_attention_layernorm.weight"] = np.ones(d, np.float32)
        w = {k: t[p + "self_attn." + k + "_proj.weight"].astype(np.float64).T for k in "qkvo"}
        layers.append({"W_Q": w["q"], "W_K": w["k"], "W_V": w["v"], "W_O": w["o"], "h": h, "g": g, "d_k": d_k})
    config = {"model_type": "qwen3", "architectures": ["Qwen3ForCausalLM"], "hidden_size": d,
              "intermediate_size": d_ff, "num_hidden_layers": L, "num_attention_heads": h,
              "num_key_value_heads": g, "head_dim": d_k, "hidden_act": "silu", "rms_norm_eps": 1e-6,
              "rope_theta": 1000000.0, "rope_scaling": None, "attention_bias": False,
              "use_sliding_window": False, "sliding_window": None, "max_window_layers": L,
              "max_position_embeddings": 64, "vocab_size": V, "bos_token_id": 1, "eos_token_id": 2,
              "tie_word_embeddings": False, "torch_dtype": "float32"}
    write_model("qwen3_gqa", t, config)
    return t["model.embed_tokens.weight"].astype(np.float64), t["lm_head.weight"].astype(np.float64).T, layers


def bert_bare(d=16, h=4, L=1, P=16, d_ff=32):
    """A bare BertModel: its encoder and embeddings, no cls.predictions."""
    bert = os.path.join(HERE, "..", "pretrained", "bert")
    path = folder("bert_bare")
    for name in ("vocab.txt", "tokenizer_config.json"):
        shutil.copy(os.path.join(bert, name), os.path.join(path, name))
    with open(os.path.join(bert, "vocab.txt")) as f:
        V = sum(1 for _ in f)
    e = "bert.embeddings."
    t = {e + "word_embeddings.weight": normal(V, d), e + "position_embeddings.weight": normal(P, d, scale=0.1),
         e + "token_type_embeddings.weight": normal(2, d, scale=0.1),
         e + "LayerNorm.weight": np.ones(d, np.float32), e + "LayerNorm.bias": np.zeros(d, np.float32)}
    for l in range(L):
        p = f"bert.encoder.layer.{l}."
        for name in ("query", "key", "value"):
            t[p + f"attention.self.{name}.weight"], t[p + f"attention.self.{name}.bias"] = normal(d, d), normal(d)
        t[p + "attention.output.dense.weight"], t[p + "attention.output.dense.bias"] = normal(d, d), normal(d)
        t[p + "intermediate.dense.weight"], t[p + "intermediate.dense.bias"] = normal(d_ff, d), normal(d_ff)
        t[p + "output.dense.weight"], t[p + "output.dense.bias"] = normal(d, d_ff), normal(d)
        for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
            t[p + norm + ".weight"], t[p + norm + ".bias"] = np.ones(d, np.float32), np.zeros(d, np.float32)
    config = {"architectures": ["BertModel"], "model_type": "bert", "hidden_size": d, "num_attention_heads": h,
              "num_hidden_layers": L, "intermediate_size": d_ff, "vocab_size": V, "max_position_embeddings": P,
              "type_vocab_size": 2, "hidden_act": "gelu", "layer_norm_eps": 1e-12, "pad_token_id": 0}
    write_model("bert_bare", t, config)


def top_k(row):
    """The K largest of a row, ties by the smaller id: sort by (-value, id)."""
    order = sorted(range(len(row)), key=lambda i: (-row[i], i))[:K]
    return [{"id": i, "value": float(row[i])} for i in order]


def head_circuits(W_E, W_U, layer, l, i, distinct):
    h, g, d_k = layer["h"], layer["g"], layer["d_k"]
    j = (i * g) // h  # the key/value head this query head reads
    W_Q = layer["W_Q"][:, i * d_k:(i + 1) * d_k]
    W_K = layer["W_K"][:, j * d_k:(j + 1) * d_k]
    W_V = layer["W_V"][:, j * d_k:(j + 1) * d_k]
    W_O = layer["W_O"][i * d_k:(i + 1) * d_k, :]
    qk = (W_E @ W_Q) @ (W_E @ W_K).T / math.sqrt(d_k)  # V x V: query token a, key token b
    ov = W_E @ W_V @ W_O @ W_U                         # V x V: source token s, output token t
    values = np.linalg.eigvals(ov)
    values = sorted(values, key=lambda z: (-abs(z), -z.real, -z.imag))[:d_k]
    return {"layer": l, "head": i, "kv_head": j,
            "eigenvalues": [[float(z.real), float(z.imag)] for z in values],
            "copying_score": float(sum(z.real for z in values) / sum(abs(z) for z in values)),
            "qk": [{"id": a, "top": top_k(qk[a])} for a in distinct],
            "ov": [{"id": s, "top": top_k(ov[s])} for s in distinct]}


def main():
    distinct = list(dict.fromkeys(PROMPT))
    fixture = {"k": K, "prompt": PROMPT, "distinct": distinct, "models": {}}
    for name, make in (("gpt2_tied", gpt2_tied), ("qwen3_gqa", qwen3_gqa)):
        W_E, W_U, layers = make()
        heads = [head_circuits(W_E, W_U, layer, l, i, distinct)
                 for l, layer in enumerate(layers) for i in range(layer["h"])]
        fixture["models"][name] = {"heads": heads}
    with open(os.path.join(HERE, "circuits.json"), "w") as f:
        json.dump(fixture, f, indent=1)
    bert_bare()


if __name__ == "__main__":
    main()
