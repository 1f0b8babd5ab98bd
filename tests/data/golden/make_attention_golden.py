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


def case(name, rng, n_q, n_k, d_model, h, causal, bias, d_k=None):
    """d_k: the head width; None is the paper's d_model / h. W^Q, W^K, W^V are d_model x h d_k
    and W^O is h d_k x d_model."""
    d_k = d_model // h if d_k is None else d_k
    width = h * d_k
    x_q = rng.standard_normal((n_q, d_model))
    x_kv = x_q if causal else rng.standard_normal((n_k, d_model))
    shapes = {"W_Q": (d_model, width), "W_K": (d_model, width), "W_V": (d_model, width), "W_O": (width, d_model)}
    w = {k: rng.uniform(-0.6, 0.6, shapes[k]) for k in ("W_Q", "W_K", "W_V", "W_O")}
    widths = {"b_Q": width, "b_K": width, "b_V": width, "b_O": d_model}
    b = {k: (rng.uniform(-0.3, 0.3, widths[k]) if bias else np.zeros(widths[k])) for k in ("b_Q", "b_K", "b_V", "b_O")}
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
    concat = np.zeros((n_q, width))
    for i in range(h):
        cols = slice(i * d_k, (i + 1) * d_k)
        scores = q[:, cols] @ k[:, cols].T / np.sqrt(d_k)
        attention = softmax_rows(scores, mask)
        concat[:, cols] = attention @ v[:, cols]
        heads.append({"scores": scores.tolist(), "attention": attention.tolist()})
    output = concat @ w["W_O"] + b["b_O"]
    return {
        "name": name, "d_model": d_model, "heads": h, "d_k": d_k, "causal": causal, "bias": bias,
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
        # Heads of their own width: wider than d_model / h (as Qwen3, Gemma) and narrower.
        case("wide_heads", rng, n_q=3, n_k=4, d_model=6, h=2, causal=False, bias=True, d_k=5),
        case("narrow_heads_causal", rng, n_q=4, n_k=4, d_model=8, h=2, causal=True, bias=False, d_k=3),
    ]
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "attention_golden.json")
    with open(path, "w") as f:
        json.dump({"generator": "make_attention_golden.py, NumPy " + np.__version__, "cases": cases}, f)
        f.write("\n")


if __name__ == "__main__":
    main()
