#!/usr/bin/python3
"""Reference values for QKV Studio's per-head analyses, computed independently with NumPy.

Run with Debian's python3-numpy:
    /usr/bin/python3 tests/data/analysis/make_analysis_fixtures.py
It rewrites analysis_fixtures.json beside this script. Nothing here uses QKV Studio's code.

Each case draws X, W^Q, W^K, W^V, W^O (and biases) from NumPy's seeded generator, rounds them
to float32 (the values the C++ side sees), and computes in float64: Q, K, V, the masked
softmax, the head outputs and the output with the ablated heads' Concat blocks zeroed. The
C++ test feeds the same inputs to multiHeadAttentionForward (end to end, float tolerances).

The analyses are computed from the float32-rounded intermediates (attention rows, Q_i, K_i,
head outputs, output), which are stored too: the C++ test feeds exactly those to the analysis
kernels and compares at double tolerances.
  statistics     per row: entropy of p = a / sum(a) (natural log, 0 log 0 = 0), clamped to
                 [0, ln v]; that over ln v (0 when v = 1); sum_j a_j |j - q|; max_j a_j; a_qq in
                 self modes (null in cross); means over rows with a distribution
  qk_projection  numpy.linalg.svd of the centred [Q_i; K_i]; axes with s^2 <= total *
                 max(N, d_k) * eps are zero; each axis's largest-magnitude loading made positive
  ablation       c_i = head_i W^O_i; output_full = output + sum_{ablated} c_i; norms and ratios
"""
import json
import os

import numpy as np

EPS = np.finfo(np.float64).eps


def f32(a):
    return np.asarray(a, dtype=np.float64).astype(np.float32).astype(np.float64)


def mask_matrix(n_q, n_k, causal, key_padding):
    m = np.zeros((n_q, n_k), dtype=bool)
    if causal:
        m |= np.arange(n_k)[None, :] > np.arange(n_q)[:, None]
    if key_padding:
        m |= np.array(key_padding, dtype=bool)[None, :]
    return m


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


def none_if_nan(values):
    return [None if np.isnan(v) else float(v) for v in values]


def statistics(a32, mask, own_position):
    n_q, n_k = a32.shape
    visible = (~mask).sum(axis=1)
    ent, norm, dist, mx, slf = (np.full(n_q, np.nan) for _ in range(5))
    for q in range(n_q):
        v = int(visible[q])
        a = a32[q]
        if v == 0 or a.sum() <= 0:
            continue
        p = a / a.sum()
        nz = p > 0
        h = float(-(p[nz] * np.log(p[nz])).sum())
        h = min(max(h, 0.0), np.log(v))
        ent[q] = h
        norm[q] = min(h / np.log(v), 1.0) if v > 1 else 0.0
        dist[q] = float((a * np.abs(np.arange(n_k) - q)).sum())
        mx[q] = float(a.max())
        if own_position and q < n_k:
            slf[q] = float(a[q])
    rows = ~np.isnan(ent)
    def mean(x):
        return float(x[rows].mean()) if rows.any() else None
    return {
        "visible_keys": [int(v) for v in visible],
        "entropy": none_if_nan(ent),
        "normalized_entropy": none_if_nan(norm),
        "mean_distance": none_if_nan(dist),
        "max_weight": none_if_nan(mx),
        "self_weight": none_if_nan(slf) if own_position else None,
        "mean": {"entropy": mean(ent), "normalized_entropy": mean(norm), "mean_distance": mean(dist),
                 "max_weight": mean(mx), "self_weight": mean(slf) if own_position else None,
                 "rows": int(rows.sum())},
    }


def qk_projection(q32, k32):
    m = np.vstack([q32, k32])
    n, d_k = m.shape
    mc = m - m.mean(axis=0)
    total = float((mc ** 2).sum())
    axes = np.zeros((d_k, 2))
    ratios = [0.0, 0.0]
    if total > 0:
        _, s, vt = np.linalg.svd(mc, full_matrices=False)
        threshold = total * max(n, d_k) * EPS
        for k in range(min(2, len(s))):
            if s[k] ** 2 <= threshold:
                continue
            v = vt[k].copy()
            if v[np.argmax(np.abs(v))] < 0:
                v = -v
            axes[:, k] = v
            ratios[k] = min(float(s[k] ** 2 / total), 1.0)
    xy = mc @ axes
    return {"queries": xy[:len(q32)].tolist(), "keys": xy[len(q32):].tolist(),
            "explained_variance_ratio": ratios, "axes": axes.tolist(), "mean": m.mean(axis=0).tolist()}


def ablation(heads32, w_o, out32, ablated, d_k):
    n_q = heads32.shape[0]
    h = heads32.shape[1] // d_k
    change = np.zeros((n_q, h))
    ablated_sum = np.zeros_like(out32)
    for i in range(h):
        c = heads32[:, i * d_k:(i + 1) * d_k] @ w_o[i * d_k:(i + 1) * d_k]
        change[:, i] = np.linalg.norm(c, axis=1)
        if i in ablated:
            ablated_sum += c
    full = np.linalg.norm(out32 + ablated_sum, axis=1)
    current = np.linalg.norm(ablated_sum, axis=1)
    defined = full > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(defined[:, None], change / np.where(full > 0, full, 1)[:, None], np.nan)
        cur_rel = np.where(defined, current / np.where(full > 0, full, 1), np.nan)
    most = [int(np.argmax(change[q])) if change[q].max() > 0 else -1 for q in range(n_q)]
    mean_rel = [float(rel[defined, i].mean()) if defined.any() else None for i in range(h)]
    return {"full_output_norm": full.tolist(), "change_norm": change.tolist(),
            "relative_change": [none_if_nan(r) for r in rel], "current_change_norm": current.tolist(),
            "current_relative_change": none_if_nan(cur_rel), "most_important_head": most,
            "mean_relative_change": mean_rel, "defined_rows": int(defined.sum())}


def case(name, seed, mode, n_q, n_k, d_model, h, g, bias, key_padding=(), ablated=(), constant_head=None):
    rng = np.random.default_rng(seed)
    d_k = d_model // h
    causal = mode == "causal"
    if mode != "cross":
        n_k = n_q
    x_q = f32(rng.standard_normal((n_q, d_model)))
    x_kv = x_q if mode != "cross" else f32(rng.standard_normal((n_k, d_model)))
    w = {"W_Q": rng.uniform(-0.6, 0.6, (d_model, d_model)), "W_K": rng.uniform(-0.6, 0.6, (d_model, g * d_k)),
         "W_V": rng.uniform(-0.6, 0.6, (d_model, g * d_k)), "W_O": rng.uniform(-0.6, 0.6, (d_model, d_model))}
    b = {"b_Q": rng.uniform(-0.3, 0.3, d_model), "b_K": rng.uniform(-0.3, 0.3, g * d_k),
         "b_V": rng.uniform(-0.3, 0.3, g * d_k), "b_O": rng.uniform(-0.3, 0.3, d_model)}
    if constant_head is not None:
        # Q_i and K_i all equal: W^Q_i = W^K_j = 0 and b^Q_i = b^K_j (zero variance, uniform rows).
        i, j = constant_head, constant_head // (h // g)
        w["W_Q"][:, i * d_k:(i + 1) * d_k] = 0
        w["W_K"][:, j * d_k:(j + 1) * d_k] = 0
        b["b_K"][j * d_k:(j + 1) * d_k] = b["b_Q"][i * d_k:(i + 1) * d_k]
    if not bias:
        b = {k: np.zeros_like(v) for k, v in b.items()}
    w = {k: f32(v) for k, v in w.items()}
    b = {k: f32(v) for k, v in b.items()}

    q = x_q @ w["W_Q"] + b["b_Q"]
    k = x_kv @ w["W_K"] + b["b_K"]
    v = x_kv @ w["W_V"] + b["b_V"]
    mask = mask_matrix(n_q, n_k, causal, list(key_padding))
    own = mode != "cross"
    heads = np.zeros((n_q, d_model))
    per_head = []
    for i in range(h):
        j = i // (h // g)
        q_i, k_j, v_j = q[:, i * d_k:(i + 1) * d_k], k[:, j * d_k:(j + 1) * d_k], v[:, j * d_k:(j + 1) * d_k]
        a = softmax_rows(q_i @ k_j.T / np.sqrt(d_k), mask)
        heads[:, i * d_k:(i + 1) * d_k] = a @ v_j
        a32, q32, k32 = f32(a), f32(q_i), f32(k_j)
        per_head.append({"attention": a32.tolist(), "query": q32.tolist(), "key": k32.tolist(),
                         "statistics": statistics(a32, mask, own), "qk_projection": qk_projection(q32, k32)})
    out = b["b_O"] + sum(heads[:, i * d_k:(i + 1) * d_k] @ w["W_O"][i * d_k:(i + 1) * d_k]
                         for i in range(h) if i not in ablated)
    heads32, out32 = f32(heads), f32(np.broadcast_to(out, (n_q, d_model)))
    fully_masked = [int(r) for r in np.where(mask.all(axis=1))[0]]
    result = {"name": name, "mode": mode, "heads": h, "key_value_heads": g, "d_model": d_model, "bias": bias,
              "key_padding": [bool(p) for p in key_padding], "ablated": list(ablated),
              "fully_masked_rows": fully_masked, "X_q": x_q.tolist(), "X_kv": x_kv.tolist(),
              "head_outputs": heads32.tolist(), "output": out32.tolist(), "per_head": per_head,
              "ablation": ablation(heads32, w["W_O"], out32, set(ablated), d_k)}
    result.update({k: vv.tolist() for k, vv in w.items()})
    if bias:
        result.update({k: vv.tolist() for k, vv in b.items()})
    return result


def main():
    cases = [
        # Encoder self-attention; head 2 has Q_i = K_i = one constant row (zero variance).
        case("self_constant_head", 11, "self", 6, 6, 8, 2, 2, True, ablated=(0,), constant_head=1),
        # Decoder causal with key 0 and key 3 padded: query 0 sees no key (fully masked),
        # query 1 one key; grouped-query attention (h = 4, g = 2); no biases.
        case("causal_padded_gqa", 12, "causal", 6, 6, 12, 4, 2, False,
             key_padding=(True, False, False, True, False, False), ablated=(1, 2)),
        # Cross-attention, multi-query (g = 1), biases.
        case("cross_mqa", 13, "cross", 5, 7, 16, 4, 1, True),
        # d_k = 1: one principal axis; every head ablated (output 0 without biases).
        case("d_k_one", 14, "self", 5, 5, 3, 3, 3, False, ablated=(0, 1, 2)),
        # One query, one key: N = 2 points, one visible key.
        case("two_points", 15, "cross", 1, 1, 8, 2, 2, True, ablated=(1,)),
    ]
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "analysis_fixtures.json")
    with open(path, "w") as f:
        json.dump({"generator": "make_analysis_fixtures.py", "numpy": np.__version__, "cases": cases}, f)
        f.write("\n")


if __name__ == "__main__":
    main()
