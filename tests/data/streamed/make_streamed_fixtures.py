#!/usr/bin/python3
"""Reference numbers for the streamed attention of long prompts (core/attention/streamed_attention.hpp),
computed independently in NumPy, float64, block by block of query rows (never a whole map).

For each case: one head's Q_i, K_j, V_j (float32, as the engine holds them) and, in float64,
  the pooled map: per block of rows x columns (edges floor(b n / blocks)), the mean weight
                  (masked cells count as 0) and the largest weight, and the mean and largest
                  a_qj c_j for key scales c_j;
  per query row:  entropy -sum a ln a, mean distance sum a |j - q|, max weight, own weight a_qq;
  the head output A V (rounded to float32: the engine's own precision);
  one exact region of weights.
Scores: s = (q . k) scale, soft-capped c tanh(s / c) when c > 0; masked keys (causal, a sliding
window of the `window` latest keys, padded keys) get no weight; a = softmax over the rest.

Run from anywhere: /usr/bin/python3 make_streamed_fixtures.py (writes next to itself, byte-
identical on every run).
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

CASES = [
    # name, n_q, n_k, d_k, causal, window, padding (first, step), soft cap, pooled (rows, cols), region
    dict(name="causal_window_padded", n_q=2100, n_k=2100, d_k=4, causal=True, window=700, padding=(5, 11),
         cap=0.0, pooled=(7, 9), region=(2014, 2030, 1700, 2100)),
    dict(name="cross_capped", n_q=300, n_k=2100, d_k=4, causal=False, window=0, padding=(2, 13),
         cap=3.0, pooled=(5, 13), region=(100, 116, 2000, 2100)),
]


def edges(size, blocks):
    return [b * size // blocks for b in range(blocks + 1)]


def visible(case, q):
    """Boolean mask over keys for query q."""
    n_k = case["n_k"]
    keys = np.arange(n_k)
    see = np.ones(n_k, dtype=bool)
    if case["causal"]:
        see &= keys <= q
        if case["window"] > 0:
            see &= keys > q - case["window"]
    first, step = case["padding"]
    padded = np.zeros(n_k, dtype=bool)
    padded[first::step] = True
    return see & ~padded


def make(case):
    rng = np.random.default_rng(20261128)
    n_q, n_k, d_k = case["n_q"], case["n_k"], case["d_k"]
    query = (rng.standard_normal((n_q, d_k)) * 1.5).astype(np.float32)
    key = (rng.standard_normal((n_k, d_k)) * 1.5).astype(np.float32)
    value = rng.standard_normal((n_k, d_k)).astype(np.float32)
    scales = rng.uniform(0.5, 2.0, (1, n_k)).astype(np.float32)
    scale = 1.0 / np.sqrt(np.float64(d_k))
    q64, k64, v64, c64 = (m.astype(np.float64) for m in (query, key, value, scales))

    r, c = case["pooled"]
    row_edges, col_edges = edges(n_q, r), edges(n_k, c)
    sums = np.zeros((r, c)); maxima = np.zeros((r, c))
    scaled_sums = np.zeros((r, c)); scaled_maxima = np.zeros((r, c))
    stats = np.full((n_q, 4), np.nan)  # entropy, mean distance, max weight, own weight
    output = np.zeros((n_q, d_k))
    a0, a1, b0, b1 = case["region"]
    region = np.zeros((a1 - a0, b1 - b0))
    positions = np.arange(n_k, dtype=np.float64)
    block_rows = 128
    for first in range(0, n_q, block_rows):
        rows = range(first, min(first + block_rows, n_q))
        s = (q64[first:first + len(rows)] @ k64.T) * scale  # rows x n_k, float64
        if case["cap"] > 0:
            s = case["cap"] * np.tanh(s / case["cap"])
        for i, q in enumerate(rows):
            see = visible(case, q)
            if not see.any():
                continue
            logits = np.where(see, s[i], -np.inf)
            a = np.exp(logits - logits[see].max())
            a /= a.sum()
            rb = np.searchsorted(row_edges, q, side="right") - 1
            for cb in range(c):
                part = a[col_edges[cb]:col_edges[cb + 1]]
                sums[rb, cb] += part.sum()
                maxima[rb, cb] = max(maxima[rb, cb], part.max())
                scaled = part * c64[0, col_edges[cb]:col_edges[cb + 1]]
                scaled_sums[rb, cb] += scaled.sum()
                scaled_maxima[rb, cb] = max(scaled_maxima[rb, cb], scaled.max())
            nz = a[a > 0]
            stats[q] = [-(nz * np.log(nz)).sum(), (a * np.abs(positions - q)).sum(), a.max(),
                        a[q] if q < n_k else np.nan]
            output[q] = a @ v64
            if a0 <= q < a1:
                region[q - a0] = a[b0:b1]
    cells = np.outer(np.diff(row_edges), np.diff(col_edges)).astype(np.float64)
    folder = os.path.join(HERE, case["name"])
    os.makedirs(folder, exist_ok=True)
    arrays = dict(query=query, key=key, value=value, key_scales=scales,
                  pooled_mean=sums / cells, pooled_max=maxima,
                  pooled_scaled_mean=scaled_sums / cells, pooled_scaled_max=scaled_maxima,
                  row_statistics=stats, output=output.astype(np.float32), region=region)
    for name, array in arrays.items():
        np.save(os.path.join(folder, name + ".npy"), array)


if __name__ == "__main__":
    for case in CASES:
        make(case)
