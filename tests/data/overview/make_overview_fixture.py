#!/usr/bin/env python3
"""The whole-model overview of the synthetic BERT fixture, from PyTorch's attention maps alone.

Reads ../pretrained/bert/{attention,ablated_attention}_L.npy (every head's attention, written by
make_pretrained_fixtures.py's independent torch forward; h*n x n, head after head) and
run.json, and writes overview_bert.json with, for the run with every head on and the run with
run.json's heads switched off:
  grids      L x h: normalised entropy, mean distance, first-token weight, own-position weight
             (means over the query rows; every row of an encoder has a distribution)
  rollout    for each stop s: R_s = A^_s ... A^_0, A^_l = rownorm(mean of the heads on + I)
             (Abnar & Zuidema 2020); heads switched off are left out of the mean
Formulas as in core/pipeline/model_overview.hpp, written again here in NumPy.

Run: /usr/bin/python3 make_overview_fixture.py   (from this folder)
"""
import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
BERT = os.path.join(HERE, "..", "pretrained", "bert")


def maps(prefix, layers, heads):
    out = []
    for l in range(layers):
        a = np.load(os.path.join(BERT, f"{prefix}attention_{l}.npy")).astype(np.float64)
        n = a.shape[1]
        out.append(a.reshape(heads, n, n))
    return out


def grids(all_maps):
    entropy, distance, first, own = [], [], [], []
    for layer in all_maps:
        e_row, d_row, f_row, o_row = [], [], [], []
        for a in layer:
            n = a.shape[0]
            p = a / a.sum(axis=1, keepdims=True)
            with np.errstate(divide="ignore", invalid="ignore"):
                h = -np.where(p > 0, p * np.log(p), 0.0).sum(axis=1)
            e_row.append(float(np.mean(h / np.log(n))))
            idx = np.arange(n)
            d_row.append(float(np.mean((a * np.abs(idx[None, :] - idx[:, None])).sum(axis=1))))
            f_row.append(float(np.mean(a[:, 0])))
            o_row.append(float(np.mean(np.diag(a))))
        entropy.append(e_row)
        distance.append(d_row)
        first.append(f_row)
        own.append(o_row)
    return {"entropy": entropy, "mean_distance": distance, "first_token_weight": first,
            "own_position_weight": own}


def rollouts(all_maps, off):
    n = all_maps[0].shape[1]
    r = np.eye(n)
    out = []
    for l, layer in enumerate(all_maps):
        on = [a for i, a in enumerate(layer) if (l, i) not in off]
        m = np.mean(on, axis=0) + np.eye(n)
        m = m / m.sum(axis=1, keepdims=True)
        r = m @ r
        out.append(r.tolist())
    return out


def main():
    run = json.load(open(os.path.join(BERT, "run.json")))
    config = json.load(open(os.path.join(BERT, "config.json")))
    layers, heads = config["num_hidden_layers"], config["num_attention_heads"]
    off = {tuple(pair) for pair in run["ablated"]}
    full = maps("", layers, heads)
    ablated = maps("ablated_", layers, heads)
    doc = {
        "sentence": "d [MASK] super / [MASK]",
        "ids": run["ids"],
        "ablated": run["ablated"],
        "baseline": {"grids": grids(full), "rollout": rollouts(full, set())},
        "with_heads_off": {"grids": grids(ablated), "rollout": rollouts(ablated, off)},
    }
    with open(os.path.join(HERE, "overview_bert.json"), "w") as f:
        json.dump(doc, f)


if __name__ == "__main__":
    main()
