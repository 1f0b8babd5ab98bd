#!/usr/bin/python3
"""Reference losses and gradients for QKV Studio's training engine, from PyTorch autograd.

Run with Debian's python3-torch:  /usr/bin/python3 tests/data/model/make_model_fixtures.py
It rewrites model_gradients.json and model_adamw.json beside this script.

The model here is written from the formulas (core/trainable/model_spec.hpp describes the blocks,
model_parameters.hpp names the tensors), one sequence at a time with torch's own layer_norm,
gelu, softmax and cross_entropy; nothing is ported from the C++ side, which packs the batch and
writes every backward by hand. Parameters come from torch's seeded generator and are rounded to
a few digits (short files; both sides read the same doubles).

model_gradients.json (float64): per case the spec, every parameter by name, a batch of sequence
pairs, the mean cross-entropy and every parameter's gradient.
model_adamw.json (float32): initial parameters, settings and batches of 20 steps of
torch.optim.AdamW (weight decay only on the `decays` tensors) with clip_grad_norm_ and a linear
warm-up, and the loss before each step.
"""
import json
import math
import os

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))


# ---- The model, from the formulas ---------------------------------------------------------------

def tensor_shapes(spec):
    """Names and shapes in model_parameters.hpp's order."""
    d, V, P, h, d_ff = spec["d_model"], spec["vocabulary"], spec["max_positions"], spec["heads"], spec["d_ff"]
    norm = spec["norm"] == "layernorm"
    shapes = [("embedding.token", (V, d))]
    if spec["positions"] == "learned":
        shapes.append(("embedding.position", (P, d)))

    def attention(prefix):
        if spec["score_form"] == "factored":
            names = ["W_Q", "W_K"]
        else:
            names = ["W_%d" % (i + 1) for i in range(h)]
        return [(prefix + "." + n, (d, d)) for n in names + ["W_V", "W_O"]]

    def layer_norm(prefix):
        return [(prefix + ".gamma", (1, d)), (prefix + ".beta", (1, d))] if norm else []

    def mlp(prefix):
        return [(prefix + ".W_in", (d, d_ff)), (prefix + ".b_in", (1, d_ff)),
                (prefix + ".W_out", (d_ff, d)), (prefix + ".b_out", (1, d))]

    for l in range(spec["encoder_layers"]):
        p = "encoder.%d" % l
        shapes += attention(p + ".self_attention") + layer_norm(p + ".norm_attention")
        if d_ff > 0:
            shapes += mlp(p + ".mlp") + layer_norm(p + ".norm_mlp")
    for l in range(spec["decoder_layers"]):
        p = "decoder.%d" % l
        shapes += attention(p + ".self_attention") + layer_norm(p + ".norm_self")
        if spec["encoder_layers"] > 0:
            shapes += attention(p + ".cross_attention") + layer_norm(p + ".norm_cross")
        if d_ff > 0:
            shapes += mlp(p + ".mlp") + layer_norm(p + ".norm_mlp")
    if norm and spec["placement"] == "pre":
        if spec["encoder_layers"] > 0:
            shapes += layer_norm("encoder.norm_final")
        shapes += layer_norm("decoder.norm_final")
    shapes += [("readout.W", (d, V)), ("readout.b", (1, V))]
    return shapes


def decays(name):
    """AdamW's weight decay: matrices that multiply activations."""
    last = name.split(".")[-1]
    return name == "readout.W" or last in ("W_in", "W_out") or (
        "attention" in name and last.startswith("W_"))


def sinusoid(P, d):
    pe = torch.zeros(P, d, dtype=torch.float64)
    for pos in range(P):
        for c in range(d):
            angle = pos / (10000.0 ** ((c - c % 2) / d))
            pe[pos, c] = math.sin(angle) if c % 2 == 0 else math.cos(angle)
    return pe


class Model:
    def __init__(self, spec, params, dtype):
        self.s = spec
        self.p = params
        self.dtype = dtype
        self.pe = sinusoid(spec["max_positions"], spec["d_model"]).to(dtype)

    def embed(self, ids):
        s = self.s
        x = self.p["embedding.token"][ids]
        if s["scale_embedding"]:
            x = x * math.sqrt(s["d_model"])
        table = self.p["embedding.position"] if s["positions"] == "learned" else self.pe
        return x + table[: len(ids)]

    def norm(self, prefix, x):
        if self.s["norm"] == "none":
            return x
        return F.layer_norm(x, (self.s["d_model"],), self.p[prefix + ".gamma"][0], self.p[prefix + ".beta"][0],
                            eps=self.s["norm_epsilon"])

    def attention(self, prefix, x_q, x_kv, causal):
        s, p = self.s, self.p
        h, d = s["heads"], s["d_model"]
        d_k = d // h
        v = x_kv @ p[prefix + ".W_V"]
        heads = []
        for i in range(h):
            cols = slice(i * d_k, (i + 1) * d_k)
            if s["score_form"] == "factored":
                scores = (x_q @ p[prefix + ".W_Q"][:, cols]) @ (x_kv @ p[prefix + ".W_K"][:, cols]).T
            else:
                scores = x_q @ p[prefix + ".W_%d" % (i + 1)] @ x_kv.T
            scores = scores / math.sqrt(d_k)
            if causal:
                n = scores.shape[0]
                mask = torch.triu(torch.ones(n, n, dtype=torch.bool), 1)
                scores = scores.masked_fill(mask, float("-inf"))
            heads.append(torch.softmax(scores, dim=-1) @ v[:, cols])
        return torch.cat(heads, dim=1) @ p[prefix + ".W_O"]

    def mlp(self, prefix, x):
        p = self.p
        a = x @ p[prefix + ".W_in"] + p[prefix + ".b_in"][0]
        a = torch.relu(a) if self.s["activation"] == "relu" else F.gelu(a)  # exact erf GELU
        return a @ p[prefix + ".W_out"] + p[prefix + ".b_out"][0]

    def block(self, norm_prefix, x, branch):
        if self.s["placement"] == "pre":
            return x + branch(self.norm(norm_prefix, x))
        return self.norm(norm_prefix, x + branch(x))

    def encode(self, source):
        s = self.s
        x = self.embed(source)
        for l in range(s["encoder_layers"]):
            p = "encoder.%d" % l
            x = self.block(p + ".norm_attention", x, lambda a: self.attention(p + ".self_attention", a, a, False))
            if s["d_ff"] > 0:
                x = self.block(p + ".norm_mlp", x, lambda a: self.mlp(p + ".mlp", a))
        if s["placement"] == "pre":
            x = self.norm("encoder.norm_final", x)
        return x

    def logits(self, source, target_input):
        s = self.s
        memory = self.encode(source) if s["encoder_layers"] > 0 else None
        x = self.embed(target_input)
        for l in range(s["decoder_layers"]):
            p = "decoder.%d" % l
            x = self.block(p + ".norm_self", x, lambda a: self.attention(p + ".self_attention", a, a, True))
            if memory is not None:
                x = self.block(p + ".norm_cross", x,
                               lambda a: self.attention(p + ".cross_attention", a, memory, False))
            if s["d_ff"] > 0:
                x = self.block(p + ".norm_mlp", x, lambda a: self.mlp(p + ".mlp", a))
        if s["placement"] == "pre":
            x = self.norm("decoder.norm_final", x)
        return x @ self.p["readout.W"] + self.p["readout.b"][0]

    def loss(self, batch):
        logits, labels = [], []
        for pair in batch:
            logits.append(self.logits(torch.tensor(pair["source"], dtype=torch.long),
                                      torch.tensor(pair["target_input"], dtype=torch.long)))
            labels += pair["target_output"]
        # Mean over the scored tokens of the whole batch; -1 takes no loss.
        return F.cross_entropy(torch.cat(logits), torch.tensor(labels), ignore_index=-1)


# ---- Data ------------------------------------------------------------------------------------------

def make_spec(**changes):
    spec = dict(vocabulary=10, max_positions=16, d_model=8, heads=2, encoder_layers=1, decoder_layers=1, d_ff=12,
                norm="layernorm", placement="pre", norm_epsilon=1e-5, activation="relu", positions="sinusoidal",
                score_form="factored", scale_embedding=True)
    spec.update(changes)
    return spec


def random_parameters(spec, gen, digits):
    """Every tensor random (gammas near 1, biases non-zero, so every gradient is exercised)."""
    params = {}
    for name, shape in tensor_shapes(spec):
        if name.endswith(".gamma"):
            t = 1.0 + 0.2 * torch.randn(shape, generator=gen, dtype=torch.float64)
        elif name.endswith(".beta") or ".b_" in name or name == "readout.b":
            t = 0.1 * torch.randn(shape, generator=gen, dtype=torch.float64)
        elif name.startswith("embedding."):
            t = (0.35 if spec["scale_embedding"] else 1.0) * torch.randn(shape, generator=gen, dtype=torch.float64)
        else:
            t = torch.empty(shape, dtype=torch.float64).uniform_(-1.0, 1.0, generator=gen) * math.sqrt(
                3.0 / shape[0])
        params[name] = torch.round(t * 10 ** digits) / 10 ** digits
    return params


def random_batch(spec, gen, count):
    V = spec["vocabulary"]
    batch = []
    for b in range(count):
        n_s = 0 if spec["encoder_layers"] == 0 else int(torch.randint(2, 7, (1,), generator=gen))
        n_t = int(torch.randint(3, 8, (1,), generator=gen))
        ids = lambda n: [int(i) for i in torch.randint(0, V, (n,), generator=gen)]
        target_output = ids(n_t)
        # Some positions take no loss (label -1), as the induction task's first copy does.
        target_output[int(torch.randint(0, n_t, (1,), generator=gen))] = -1
        batch.append(dict(source=ids(n_s), target_input=ids(n_t), target_output=target_output))
    return batch


def number(x):
    return float("%.15g" % x)


def rows(t):
    return [[number(v) for v in row] for row in t.tolist()]


def gradient_case(name, spec, seed):
    gen = torch.Generator().manual_seed(seed)
    params = random_parameters(spec, gen, 3)
    for t in params.values():
        t.requires_grad_(True)
    batch = random_batch(spec, gen, 3 if spec["encoder_layers"] > 0 else 2)
    loss = Model(spec, params, torch.float64).loss(batch)
    loss.backward()
    return dict(name=name, spec=spec, batch=batch, loss=number(loss.item()),
                parameters={n: rows(t.detach()) for n, t in params.items()},
                gradients={n: rows(t.grad) for n, t in params.items()})


def adamw_fixture():
    spec = make_spec(activation="gelu")
    gen = torch.Generator().manual_seed(1700)
    initial = random_parameters(spec, gen, 4)
    settings = dict(learning_rate=2e-2, beta1=0.9, beta2=0.98, epsilon=1e-8, weight_decay=0.05, clip_norm=0.5,
                    warmup_steps=5, steps=20)
    batches = [random_batch(spec, gen, 3) for _ in range(4)]
    params = {n: t.to(torch.float32).clone().requires_grad_(True) for n, t in initial.items()}
    decay = [t for n, t in params.items() if decays(n)]
    rest = [t for n, t in params.items() if not decays(n)]
    optimizer = torch.optim.AdamW([dict(params=decay, weight_decay=settings["weight_decay"]),
                                   dict(params=rest, weight_decay=0.0)],
                                  lr=settings["learning_rate"], betas=(settings["beta1"], settings["beta2"]),
                                  eps=settings["epsilon"])
    # Step t (from 1) uses lr * min(1, t / warmup): LambdaLR counts from 0.
    warmup = settings["warmup_steps"]
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / warmup))
    model = Model(spec, params, torch.float32)
    losses = []
    for step in range(settings["steps"]):
        optimizer.zero_grad()
        loss = model.loss(batches[step % len(batches)])
        loss.backward()
        torch.nn.utils.clip_grad_norm_(list(params.values()), settings["clip_norm"])
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
    return dict(spec=spec, settings=settings, batches=batches, losses=losses,
                parameters={n: rows(t) for n, t in initial.items()})


def main():
    cases = [
        ("factored pre-norm relu sinusoidal", make_spec(), 11),
        ("full post-norm gelu learned", make_spec(score_form="full", placement="post", activation="gelu",
                                                  positions="learned"), 12),
        ("factored post-norm gelu learned", make_spec(placement="post", activation="gelu", positions="learned",
                                                      scale_embedding=False), 13),
        ("full pre-norm relu sinusoidal", make_spec(score_form="full"), 14),
        ("decoder-only factored two attention-only layers", make_spec(encoder_layers=0, decoder_layers=2, d_ff=0,
                                                                      norm="none", positions="learned"), 15),
        ("decoder-only full two attention-only layers", make_spec(encoder_layers=0, decoder_layers=2, d_ff=0,
                                                                  norm="none", score_form="full"), 16),
    ]
    fixture = dict(generator="tests/data/model/make_model_fixtures.py", torch=torch.__version__,
                   cases=[gradient_case(*c) for c in cases])
    with open(os.path.join(HERE, "model_gradients.json"), "w") as out:
        json.dump(fixture, out, separators=(",", ":"))
        out.write("\n")
    adamw = adamw_fixture()
    adamw.update(generator="tests/data/model/make_model_fixtures.py", torch=torch.__version__)
    with open(os.path.join(HERE, "model_adamw.json"), "w") as out:
        json.dump(adamw, out, separators=(",", ":"))
        out.write("\n")


if __name__ == "__main__":
    main()
