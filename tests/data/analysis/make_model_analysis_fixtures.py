#!/usr/bin/python3
"""Reference values for QKV Studio's whole-model analyses, computed independently with NumPy.

Run with Debian's python3-numpy:
    /usr/bin/python3 tests/data/analysis/make_model_analysis_fixtures.py
It rewrites model_analysis_fixtures.json beside this script. Nothing here uses QKV Studio's code.

value_norms   Kobayashi et al. (2020), "Attention is not only a weight". Each case draws X, W^Q,
              W^K, W^V, W^O and biases, rounds them to float32 (what the C++ side sees), and
              computes in float64 V = X_kv W^V + b^V and the masked softmax A_i of every head
              (grouped-query heads read key/value head i // (h // g)); V and A_i are stored
              rounded to float32, and the norms are computed from exactly those:
                f_i(x_j) = V[j, kv(i) block] @ W^O[i block rows]             (1 x d_model)
                transformed_norms[j, i] = ||f_i(x_j)||
                head_norms[i][q, j]     = A_i[q, j] * ||f_i(x_j)||
                layer_norms[q, j]       = ||sum_{i not ablated} A_i[q, j] f_i(x_j)||
              The C++ test feeds the stored V and A_i to the kernel, and X and W through the
              attention forward pass (float tolerances).
rollout       Abnar & Zuidema (2020). Per layer the mean of the attention of the heads that
              are not ablated (a layer with every head ablated is the identity), plus I, rows
              divided by their sums; R_s = Ahat_s ... Ahat_0 for every s.
predictions   float32 logits around a large offset (1000) with deliberate ties; softmax in
              float64; the top 5 ordered by (logit descending, id ascending); p_t before and
              after; a ranking of candidate heads by |change| (ties: layer, then head).
"""
import json
import os

import numpy as np


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


def value_norms(a32, v32, w_o, h, g, d_k, ablated):
    n_q, n_k = a32[0].shape
    d_model = w_o.shape[1]
    f = np.zeros((h, n_k, d_model))
    for i in range(h):
        j = i // (h // g)
        f[i] = v32[:, j * d_k:(j + 1) * d_k] @ w_o[i * d_k:(i + 1) * d_k]
    norms = np.linalg.norm(f, axis=2).T  # n_k x h
    heads = [a32[i] * norms[:, i][None, :] for i in range(h)]
    layer = np.zeros((n_q, n_k))
    for q in range(n_q):
        for k in range(n_k):
            s = sum((a32[i][q, k] * f[i, k] for i in range(h) if i not in ablated), np.zeros(d_model))
            layer[q, k] = np.linalg.norm(s)
    return norms, heads, layer


def value_case(name, seed, mode, n_q, n_k, d_model, h, g, bias, key_padding=(), ablated=()):
    rng = np.random.default_rng(seed)
    d_k = d_model // h
    if mode != "cross":
        n_k = n_q
    x_q = f32(rng.standard_normal((n_q, d_model)))
    x_kv = x_q if mode != "cross" else f32(rng.standard_normal((n_k, d_model)))
    w = {"W_Q": f32(rng.uniform(-0.6, 0.6, (d_model, d_model))), "W_K": f32(rng.uniform(-0.6, 0.6, (d_model, g * d_k))),
         "W_V": f32(rng.uniform(-0.6, 0.6, (d_model, g * d_k))), "W_O": f32(rng.uniform(-0.6, 0.6, (d_model, d_model)))}
    b = {"b_Q": f32(rng.uniform(-0.3, 0.3, d_model)), "b_K": f32(rng.uniform(-0.3, 0.3, g * d_k)),
         "b_V": f32(rng.uniform(-0.3, 0.3, g * d_k)), "b_O": f32(rng.uniform(-0.3, 0.3, d_model))}
    if not bias:
        b = {k: np.zeros_like(v) for k, v in b.items()}
    q = x_q @ w["W_Q"] + b["b_Q"]
    k = x_kv @ w["W_K"] + b["b_K"]
    v = x_kv @ w["W_V"] + b["b_V"]
    mask = mask_matrix(n_q, n_k, mode == "causal", list(key_padding))
    a32 = []
    for i in range(h):
        j = i // (h // g)
        scores = q[:, i * d_k:(i + 1) * d_k] @ k[:, j * d_k:(j + 1) * d_k].T / np.sqrt(d_k)
        a32.append(f32(softmax_rows(scores, mask)))
    v32 = f32(v)
    norms, heads, layer = value_norms(a32, v32, w["W_O"], h, g, d_k, set(ablated))
    result = {"name": name, "mode": mode, "heads": h, "key_value_heads": g, "d_model": d_model, "bias": bias,
              "key_padding": [bool(p) for p in key_padding], "ablated": list(ablated),
              "fully_masked_rows": [int(r) for r in np.where(mask.all(axis=1))[0]],
              "X_q": x_q.tolist(), "X_kv": x_kv.tolist(), "V": v32.tolist(), "attention": [a.tolist() for a in a32],
              "transformed_norms": norms.tolist(), "head_norms": [m.tolist() for m in heads], "layer_norms": layer.tolist()}
    result.update({key: val.tolist() for key, val in w.items()})
    if bias:
        result.update({key: val.tolist() for key, val in b.items()})
    return result


def rollout_case(name, seed, layers, n, h, causal, key_padding=(), ablated=()):
    """ablated: list of (layer, head)."""
    rng = np.random.default_rng(seed)
    mask = mask_matrix(n, n, causal, list(key_padding))
    maps, flags = [], []
    for layer in range(layers):
        maps.append([f32(softmax_rows(2.0 * rng.standard_normal((n, n)), mask)).tolist() for _ in range(h)])
        flags.append([(layer, i) in ablated for i in range(h)])
    rollouts = []
    r = np.eye(n)
    for layer in range(layers):
        on = [np.array(maps[layer][i]) for i in range(h) if not flags[layer][i]]
        if on:
            a = sum(on) / len(on) + np.eye(n)
            a = a / a.sum(axis=1, keepdims=True)
        else:
            a = np.eye(n)
        r = a @ r
        rollouts.append(r.tolist())
    return {"name": name, "tokens": n, "heads": h, "attention": maps, "ablated": flags, "rollouts": rollouts}


def softmax(z):
    e = np.exp(z - z.max())
    return e / e.sum()


def top_k(z, k):
    order = np.lexsort((np.arange(len(z)), -z))[:k]
    p = softmax(z)
    return [{"id": int(i), "probability": float(p[i])} for i in order]


def predictions_case(seed, vocabulary, token):
    rng = np.random.default_rng(seed)
    before = f32(1000.0 + 3.0 * rng.standard_normal(vocabulary))
    top = int(np.argmax(before))
    before[7] = before[top]           # a tie for the most likely token: id 7 vs the other
    before[20] = before[21] = f32(before.max() - 0.5)  # a tie inside the top 5
    after = f32(before + 0.8 * rng.standard_normal(vocabulary))
    candidates = [[2, 1], [0, 3], [1, 0], [0, 1], [2, 0], [1, 2]]
    candidate_logits = [f32(before + 0.6 * rng.standard_normal(vocabulary)) for _ in candidates]
    candidate_logits[1] = candidate_logits[0].copy()  # (0, 3) ties with (2, 1): the earlier layer first
    p_before = softmax(before)[token]
    changes = [softmax(z)[token] - p_before for z in candidate_logits]
    ranking = sorted(range(len(candidates)), key=lambda c: (-abs(changes[c]), candidates[c][0], candidates[c][1]))
    return {"logits": before.tolist(), "after": after.tolist(), "token": token,
            "top": {str(k): top_k(before, k) for k in (1, 5, vocabulary)},
            "change": {"before": float(p_before), "after": float(softmax(after)[token]),
                       "change": float(softmax(after)[token] - p_before)},
            "candidates": candidates, "candidate_logits": [z.tolist() for z in candidate_logits],
            "ranking": [{"layer": candidates[c][0], "head": candidates[c][1], "before": float(p_before),
                         "after": float(p_before + changes[c]), "change": float(changes[c])} for c in ranking]}


def main():
    value = [
        # Encoder self-attention with biases; head 1 switched off.
        value_case("self_bias", 21, "self", 5, 5, 8, 2, 2, True, ablated=(1,)),
        # Decoder causal, key 0 padded (query 0 fully masked), grouped-query (h = 4, g = 2),
        # no biases, head 2 off.
        value_case("causal_padded_gqa", 22, "causal", 6, 6, 12, 4, 2, False,
                   key_padding=(True, False, False, False, False, False), ablated=(2,)),
        # Cross-attention, multi-query (g = 1), biases, every head on.
        value_case("cross_mqa", 23, "cross", 4, 6, 16, 4, 1, True),
        # Every head off: the layer norms are 0, the heads' own norms are not.
        value_case("all_off", 24, "self", 3, 3, 6, 3, 3, True, ablated=(0, 1, 2)),
    ]
    rollout = [
        # Layer 1 has head 0 off, layer 2 every head off (the identity).
        rollout_case("encoder", 31, 4, 5, 3, False, ablated=((1, 0), (2, 0), (2, 1), (2, 2))),
        # Causal with key 0 padded: query 0's attention rows are all 0.
        rollout_case("causal_padded", 32, 3, 4, 2, True, key_padding=(True, False, False, False)),
    ]
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "model_analysis_fixtures.json")
    with open(path, "w") as f:
        json.dump({"generator": "make_model_analysis_fixtures.py", "numpy": np.__version__, "value_norms": value,
                   "rollout": rollout, "predictions": predictions_case(41, 40, 7)}, f)
        f.write("\n")


if __name__ == "__main__":
    main()
