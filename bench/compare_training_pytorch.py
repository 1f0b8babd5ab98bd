#!/usr/bin/env python3
"""One training step of our engine beside the same model and batch in PyTorch, in one run.

    /usr/bin/python3 bench/compare_training_pytorch.py [--bench build/bench/training/qkv_training_bench]
        [--rounds 3] [--min-time 1] [--markdown table.md]

The step is what `qkv-studio train --task reverse` repeats: forward, cross-entropy, backward,
gradient clipping to norm 1 and an AdamW update. The model is the reverse task's default: an
encoder-decoder transformer with d_model 64, h 4 (d_k 16), one encoder and one decoder layer,
an MLP of width 256 with ReLU, pre-norm LayerNorm (with a final norm per stack), sinusoidal
positions added to sqrt(d_model)-scaled token embeddings, attention without biases, a linear
readout over 19 tokens (16 symbols, <pad>, <bos>, <eos>). The batch is the benchmark's fixed
batch: 32 pairs, pair i has a source of 4 + (i mod 9) symbols and a decoder of one more
(<bos> + the reversed symbols; labels: the reversed symbols + <eos>).

PyTorch runs the model as people write it: a padded batch (B x n_max) with key-padding masks, a
causal mask for decoder self-attention, cross_entropy with ignore_index on the padding,
torch.optim.AdamW and torch.nn.utils.clip_grad_norm_, float32, eager mode. Ours packs the
sequences' rows back to back (no padding). Both variants are measured: factored (W_i^Q, W_i^K)
and full (one d_model x d_model W_i per head).

Threads: ours runs on one thread (training is single-threaded, so that the GUI keeps a core);
PyTorch is timed with one thread and with every core, and the table gives both. Rounds alternate
which side runs first; each figure is the median of the rounds. OpenBLAS's core type is chosen as
in bench/compare_pytorch.py (Debian's OpenBLAS does not know newer CPUs).

Where PyTorch is missing, prints why and exits 0: it is never needed to build or test.
"""

import argparse
import datetime
import json
import math
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_pytorch import blas_library, choose_openblas_core, cpu_model, format_ms, import_torch  # noqa: E402

DEFAULT_BENCH = os.path.join("build", "bench", "training", "qkv_training_bench")
D_MODEL, HEADS, D_FF, SYMBOLS, BATCH = 64, 4, 256, 16, 32
PAD, BOS, EOS = 0, 1, 2
VOCABULARY = SYMBOLS + 3
VARIANTS = ("factored", "full")


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench", default=DEFAULT_BENCH, help="the qkv_training_bench program (default: %(default)s)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds; figures are their medians")
    parser.add_argument("--min-time", type=float, default=1.0, help="seconds per variant and side in a round")
    parser.add_argument("--markdown", help="also write the table to this file")
    return parser.parse_args()


def fixed_batch():
    """[(source, decoder input, labels)] as in bench/training/training_bench.cpp."""
    pairs = []
    for i in range(BATCH):
        n = 4 + i % 9
        source = [3 + (7 * i + 3 * t) % SYMBOLS for t in range(n)]
        reversed_symbols = source[::-1]
        pairs.append((source, [BOS] + reversed_symbols, reversed_symbols + [EOS]))
    return pairs


def build_model(torch, variant):
    nn = torch.nn
    d_k = D_MODEL // HEADS

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            if variant == "factored":
                self.w_q = nn.Linear(D_MODEL, D_MODEL, bias=False)
                self.w_k = nn.Linear(D_MODEL, D_MODEL, bias=False)
            else:
                self.w_i = nn.Parameter(torch.randn(HEADS, D_MODEL, D_MODEL) / D_MODEL)
            self.w_v = nn.Linear(D_MODEL, D_MODEL, bias=False)
            self.w_o = nn.Linear(D_MODEL, D_MODEL, bias=False)

        def forward(self, x_q, x_kv, mask):  # mask: True where a key may not be read
            b, n_q, n_k = x_q.shape[0], x_q.shape[1], x_kv.shape[1]
            if variant == "factored":
                q = self.w_q(x_q).view(b, n_q, HEADS, d_k).transpose(1, 2)
                k = self.w_k(x_kv).view(b, n_k, HEADS, d_k).transpose(1, 2)
                scores = q @ k.transpose(-1, -2)
            else:
                scores = torch.einsum("bqd,hde,bke->bhqk", x_q, self.w_i, x_kv)
            scores = (scores / math.sqrt(d_k)).masked_fill(mask, float("-inf"))
            weights = torch.softmax(scores, dim=-1)
            v = self.w_v(x_kv).view(b, n_k, HEADS, d_k).transpose(1, 2)
            heads = (weights @ v).transpose(1, 2).reshape(b, n_q, D_MODEL)
            return self.w_o(heads)

    def mlp():
        return nn.Sequential(nn.Linear(D_MODEL, D_FF), nn.ReLU(), nn.Linear(D_FF, D_MODEL))

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = nn.Embedding(VOCABULARY, D_MODEL)
            self.encoder_attention, self.encoder_mlp = Attention(), mlp()
            self.encoder_norms = nn.ModuleList(nn.LayerNorm(D_MODEL) for _ in range(3))
            self.decoder_self, self.decoder_cross, self.decoder_mlp = Attention(), Attention(), mlp()
            self.decoder_norms = nn.ModuleList(nn.LayerNorm(D_MODEL) for _ in range(4))
            self.readout = nn.Linear(D_MODEL, VOCABULARY)

        def embed(self, ids):
            n = ids.shape[1]
            position = torch.arange(n, dtype=torch.float32)[:, None]
            rate = torch.exp(-math.log(10000.0) * torch.arange(0, D_MODEL, 2, dtype=torch.float32) / D_MODEL)
            pe = torch.zeros(n, D_MODEL)
            pe[:, 0::2], pe[:, 1::2] = torch.sin(position * rate), torch.cos(position * rate)
            return self.embedding(ids) * math.sqrt(D_MODEL) + pe

        def forward(self, source, source_pad, decoder, decoder_pad):
            n_t = decoder.shape[1]
            source_mask = source_pad[:, None, None, :]
            causal = torch.triu(torch.ones(n_t, n_t, dtype=torch.bool), 1)[None, None] | decoder_pad[:, None, None, :]
            x = self.embed(source)
            n0, n1, n2 = self.encoder_norms
            x = x + self.encoder_attention(n0(x), n0(x), source_mask)
            x = x + self.encoder_mlp(n1(x))
            memory = n2(x)
            y = self.embed(decoder)
            m0, m1, m2, m3 = self.decoder_norms
            y = y + self.decoder_self(m0(y), m0(y), causal)
            y = y + self.decoder_cross(m1(y), memory, source_mask)
            y = y + self.decoder_mlp(m2(y))
            return self.readout(m3(y))

    return Model()


def time_torch(torch, variant, min_time):
    """Mean milliseconds of one training step over at least min_time seconds."""
    torch.manual_seed(0)
    model = build_model(torch, variant)
    pairs = fixed_batch()
    n_s, n_t = max(len(p[0]) for p in pairs), max(len(p[1]) for p in pairs)

    def padded(rows, width, fill):
        return torch.tensor([row + [fill] * (width - len(row)) for row in rows], dtype=torch.long)

    source, decoder = padded([p[0] for p in pairs], n_s, PAD), padded([p[1] for p in pairs], n_t, PAD)
    labels = padded([p[2] for p in pairs], n_t, -100)
    source_pad, decoder_pad = source == PAD, decoder == PAD
    decays = [p for name, p in model.named_parameters() if p.dim() >= 2 and "embedding" not in name]
    others = [p for name, p in model.named_parameters() if not (p.dim() >= 2 and "embedding" not in name)]
    optimizer = torch.optim.AdamW([{"params": decays, "weight_decay": 0.01}, {"params": others, "weight_decay": 0.0}],
                                  lr=3e-3, betas=(0.9, 0.98), eps=1e-8)

    def step():
        optimizer.zero_grad(set_to_none=True)
        logits = model(source, source_pad, decoder, decoder_pad)
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, VOCABULARY), labels.reshape(-1), ignore_index=-100)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        return loss

    for _ in range(5):  # warm-up: allocator, thread pool
        step()
    iterations, started = 0, time.perf_counter()
    while True:
        step()
        iterations += 1
        elapsed = time.perf_counter() - started
        if elapsed >= min_time and iterations >= 5:
            return elapsed / iterations * 1e3


def run_ours(bench, min_time):
    """{variant: ms per step} from one run of the benchmark program."""
    command = [bench, "--benchmark_filter=^BM_TrainingStep/", f"--benchmark_min_time={min_time}",
               "--benchmark_format=json"]
    report = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
    timings = {}
    for entry in report["benchmarks"]:
        variant = entry["name"].split("/")[1]  # BM_TrainingStep/factored/real_time
        timings[variant] = entry["real_time"] * {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[entry["time_unit"]]
    return timings


def table(ours, torch_ms, context):
    settings = sorted(torch_ms, reverse=True)
    lines = [
        f"`/usr/bin/python3 bench/compare_training_pytorch.py --rounds {context['rounds']} "
        f"--min-time {context['min_time']:g}`",
        "",
        f"{context['date']}, {context['cpu']} ({os.cpu_count()} cores); ours on one thread; PyTorch "
        f"{context['torch']} ({context['blas']}, OpenBLAS core {context['openblas_core']}), eager, with "
        f"torch.set_num_threads as the column says; load average {context['load_before']:.2f} before, "
        f"{context['load_after']:.2f} after. Medians of {context['rounds']} alternating rounds. One step: "
        "forward, loss, backward, clipping, AdamW; batch of 32 reverse pairs (4-12 symbols).",
        "",
        "| variant | ours | " + " | ".join(f"PyTorch, {t} thread{'s' if t > 1 else ''}" for t in settings)
        + " | " + " | ".join(f"PyTorch ({t}) / ours" for t in settings) + " |",
        "|" + "---|" * (2 + 2 * len(settings)),
    ]
    for variant in VARIANTS:
        lines.append(f"| {variant} | {format_ms(ours[variant])} | "
                     + " | ".join(format_ms(torch_ms[t][variant]) for t in settings) + " | "
                     + " | ".join(f"**{torch_ms[t][variant] / ours[variant]:.2f}x**" for t in settings) + " |")
    return "\n".join(lines)


def main():
    args = parse_arguments()
    openblas_core = choose_openblas_core()
    torch = import_torch()
    if torch is None:
        return 0
    if not os.access(args.bench, os.X_OK):
        print(f"error: {args.bench} is not an executable benchmark program. Build it first:\n"
              "  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DQKV_BUILD_BENCHMARKS=ON\n"
              "  cmake --build build --target qkv_training_bench", file=sys.stderr)
        return 2
    thread_settings = sorted({1, os.cpu_count() or 1})
    load_before = os.getloadavg()[0]
    ours_runs, torch_runs = [], []
    for round_index in range(args.rounds):
        order = ["ours", "torch"] if round_index % 2 == 0 else ["torch", "ours"]
        for side in order:
            if side == "ours":
                ours_runs.append(run_ours(args.bench, args.min_time))
            else:
                timings = {}
                for threads in thread_settings:
                    torch.set_num_threads(threads)
                    timings[threads] = {v: time_torch(torch, v, args.min_time) for v in VARIANTS}
                torch_runs.append(timings)
        print(f"round {round_index + 1} of {args.rounds} done ({' then '.join(order)})", file=sys.stderr)
    load_after = os.getloadavg()[0]
    median = statistics.median
    ours = {v: median(r[v] for r in ours_runs) for v in VARIANTS}
    torch_ms = {t: {v: median(r[t][v] for r in torch_runs) for v in VARIANTS} for t in thread_settings}
    context = {"rounds": args.rounds, "min_time": args.min_time, "cpu": cpu_model(), "torch": torch.__version__,
               "blas": blas_library(), "openblas_core": openblas_core, "load_before": load_before,
               "load_after": load_after, "date": datetime.date.today().isoformat()}
    text = table(ours, torch_ms, context)
    print(text)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as out:
            out.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
