#!/usr/bin/python3
"""Golden values for QKV Studio's attention, computed independently with NumPy in float64.

Run with Debian's python3-numpy:  /usr/bin/python3 tests/data/golden/make_attention_golden.py
It rewrites attention_golden.json beside this script. Inputs come from NumPy's own generator
(seeded), so nothing here depends on QKV Studio's code; the C++ test feeds the same inputs to
multiHeadAttentionForward and compares every intermediate.
"""
import json
import os

import numpy as np


def softmax_rows(scores, mask):
    out = np.zeros_like(scores)
    for q in range(scores.shape[0]):
        visible = ~mask[q]
        if not visible.any():
            continue
        s = scores[q, visible]
        e = np.exp(s - s.max())
        out[q, visible] = e / e.sum()
    return out


def case(name, rng, n_q, n_k, d_model, h, causal, bias):
    d_k = d_model // h
    x_q = rng.standard_normal((n_q, d_model))
    x_kv = x_q if causal else rng.standard_normal((n_k, d_model))
    w = {k: rng.uniform(-0.6, 0.6, (d_model, d_model)) for k in ("W_Q", "W_K", "W_V", "W_O")}
    b = {k: (rng.uniform(-0.3, 0.3, d_model) if bias else np.zeros(d_model)) for k in ("b_Q", "b_K", "b_V", "b_O")}
    # The float32 values the C++ side will see: round inputs first so both start equal.
    x_q = x_q.astype(np.float32).astype(np.float64)
    x_kv = x_kv.astype(np.float32).astype(np.float64)
    w = {k: v.astype(np.float32).astype(np.float64) for k, v in w.items()}
    b = {k: v.astype(np.float32).astype(np.float64) for k, v in b.items()}

    q = x_q @ w["W_Q"] + b["b_Q"]
    k = x_kv @ w["W_K"] + b["b_K"]
    v = x_kv @ w["W_V"] + b["b_V"]
    mask = np.zeros((n_q, n_k), dtype=bool)
    if causal:
        mask = np.triu(np.ones((n_q, n_k), dtype=bool), 1)
    heads = []
    concat = np.zeros((n_q, d_model))
    for i in range(h):
        cols = slice(i * d_k, (i + 1) * d_k)
        scores = q[:, cols] @ k[:, cols].T / np.sqrt(d_k)
        attention = softmax_rows(scores, mask)
        concat[:, cols] = attention @ v[:, cols]
        heads.append({"scores": scores.tolist(), "attention": attention.tolist()})
    output = concat @ w["W_O"] + b["b_O"]
    return {
        "name": name, "d_model": d_model, "heads": h, "causal": causal, "bias": bias,
        "X_q": x_q.tolist(), "X_kv": x_kv.tolist(),
        **{k: v.tolist() for k, v in w.items()},
        **({k: v.tolist() for k, v in b.items()} if bias else {}),
        "expected": {"Q": q.tolist(), "K": k.tolist(), "V": v.tolist(), "per_head": heads,
                     "concat": concat.tolist(), "output": output.tolist()},
    }


def main():
    rng = np.random.default_rng(20170612)  # the paper's arXiv date
    cases = [
        case("cross_bias", rng, n_q=3, n_k=5, d_model=8, h=2, causal=False, bias=True),
        case("causal_self", rng, n_q=4, n_k=4, d_model=6, h=3, causal=True, bias=False),
        case("single_head", rng, n_q=2, n_k=2, d_model=4, h=1, causal=False, bias=False),
    ]
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "attention_golden.json")
    with open(path, "w") as f:
        json.dump({"generator": "make_attention_golden.py, NumPy " + np.__version__, "cases": cases}, f)
        f.write("\n")


if __name__ == "__main__":
    main()
