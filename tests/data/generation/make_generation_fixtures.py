#!/usr/bin/python3
"""The reference greedy decode of the GPT-2 fixture (../pretrained/gpt2), independent of the C++ code.

Reads that folder's model.safetensors and config.json, and continues run.json's ids 12 tokens
(to its 20 positions) greedily: at each step a whole forward pass of the sequence so far, written
with torch.nn.functional in float64 after modeling_gpt2.py (GPT2LMHeadModel: wte + wpe, pre-LN
blocks with gelu_new, ln_f, logits tied to wte), no cache; the next token is the argmax of the
last position's logits (the smaller id of equal ones), its probability the softmax of them.
Once plain, once with run.json's "ablated" heads switched off (the head's block of Concat zeroed
before c_proj). Writes greedy.json:
  {"prompt": ids, "plain": {"ids": [...], "probabilities": [...]}, "ablated": {...}}
Run with /usr/bin/python3 (Debian's, with torch and numpy) from anywhere.
"""
import json
import math
import os
import struct

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = os.path.join(HERE, "..", "pretrained", "gpt2")
NEW_TOKENS = 12


def read_safetensors(path):
    with open(path, "rb") as f:
        size = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(size))
        data = f.read()
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        dtype = {"F32": np.float32, "BOOL": np.bool_}[info["dtype"]]
        tensors[name] = np.frombuffer(data[begin:end], dtype=dtype).reshape(info["shape"])
    return tensors


def forward(t, config, ids, ablated):
    """The logits at every position (n x V), modeling_gpt2.py's GPT2LMHeadModel in float64."""
    w = lambda name: torch.tensor(t["transformer." + name].astype(np.float64))  # noqa: E731
    d, h, L, eps = config["n_embd"], config["n_head"], config["n_layer"], config["layer_norm_epsilon"]
    d_k = d // h
    n = len(ids)
    x = w("wte.weight")[torch.tensor(ids)] + w("wpe.weight")[torch.arange(n)]
    future = torch.triu(torch.ones(n, n, dtype=torch.bool), 1)
    for l in range(L):
        p = f"h.{l}."
        a_in = F.layer_norm(x, (d,), w(p + "ln_1.weight"), w(p + "ln_1.bias"), eps)
        qkv = a_in @ w(p + "attn.c_attn.weight") + w(p + "attn.c_attn.bias")  # Conv1D: x W + b
        q, k, v = (qkv[:, i * d:(i + 1) * d].view(n, h, d_k).transpose(0, 1) for i in range(3))
        scores = (q @ k.transpose(1, 2) / math.sqrt(d_k)).masked_fill(future, float("-inf"))
        context = (torch.softmax(scores, dim=-1) @ v).transpose(0, 1).reshape(n, d)
        for head in ablated.get(l, ()):
            context[:, head * d_k:(head + 1) * d_k] = 0.0
        x = x + context @ w(p + "attn.c_proj.weight") + w(p + "attn.c_proj.bias")
        m_in = F.layer_norm(x, (d,), w(p + "ln_2.weight"), w(p + "ln_2.bias"), eps)
        m = m_in @ w(p + "mlp.c_fc.weight") + w(p + "mlp.c_fc.bias")
        m = 0.5 * m * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (m + 0.044715 * m.pow(3))))
        x = x + m @ w(p + "mlp.c_proj.weight") + w(p + "mlp.c_proj.bias")
    x = F.layer_norm(x, (d,), w("ln_f.weight"), w("ln_f.bias"), eps)
    return x @ w("wte.weight").T


def greedy(t, config, prompt, ablated):
    ids, probabilities = list(prompt), []
    for _ in range(NEW_TOKENS):
        last = forward(t, config, ids, ablated)[-1]
        best = int(torch.argmax(last))  # the first maximum: the smaller id of equal ones
        probabilities.append(float(torch.softmax(last, dim=-1)[best]))
        ids.append(best)
    return {"ids": ids[len(prompt):], "probabilities": probabilities}


if __name__ == "__main__":
    t = read_safetensors(os.path.join(MODEL, "model.safetensors"))
    with open(os.path.join(MODEL, "config.json")) as f:
        config = json.load(f)
    with open(os.path.join(MODEL, "run.json")) as f:
        run = json.load(f)
    ablated = {}
    for layer, head in run["ablated"]:
        ablated.setdefault(layer, []).append(head)
    out = {"prompt": run["ids"], "ablated_heads": run["ablated"],
           "plain": greedy(t, config, run["ids"], {}), "ablated": greedy(t, config, run["ids"], ablated)}
    with open(os.path.join(HERE, "greedy.json"), "w") as f:
        json.dump(out, f, indent=1)
