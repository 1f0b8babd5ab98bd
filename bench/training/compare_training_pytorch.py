#!/usr/bin/env python3
"""A training step of ours beside the same model and batches in PyTorch, measured in one run.

    /usr/bin/python3 bench/training/compare_training_pytorch.py
        [--bench build/bench/training/qkv_training_bench] [--rounds 3] [--min-time 2]

The model is the reverse task's default (issue 17): d_model 64, h 4, one encoder and one decoder
layer, d_ff 256, ReLU, pre-norm LayerNorm with final norms, sinusoidal positions, embeddings
scaled by sqrt(d_model), a vocabulary of 20; batches of 32 pairs with 4-12 source symbols and
the decoder reading <bos> plus the reversed source. One step: the mean cross-entropy, its
gradient, clip_grad_norm_(1.0) and AdamW (lr 3e-3, betas (0.9, 0.98), weight decay 0.01 on the
matrices).

PyTorch's peer is its own layer stack, nn.Transformer(norm_first=True, dropout=0) with the
embedding, positions and readout around it, in float32 eager mode; it pads each batch to its
longest sequence and masks the padding (key-padding masks, ignore_index), as one feeds it. Its
attention has biases, ours none (a negligible difference in work). Ours is
BM_TrainingStep/factored of the Google Benchmark program, one thread as the engine always
runs; PyTorch is timed with one thread and with every core and keeps the faster. Rounds
alternate which side runs first; figures are medians. OPENBLAS_CORETYPE is set from the CPU's
flags as bench/compare_pytorch.py explains.
"""

import argparse
import json
import math
import os
import random
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from compare_pytorch import choose_openblas_core, cpu_model, import_torch  # noqa: E402

VOCABULARY, D_MODEL, HEADS, D_FF, BATCH = 20, 64, 4, 256, 32
BOS, EOS, FIRST_SYMBOL = 1, 2, 3
DEFAULT_BENCH = os.path.join("build", "bench", "training", "qkv_training_bench")


def reverse_batches(count, seed=5):
    """Lists of (source, target_input, target_output) as the benchmark program draws them
    (same lengths and vocabulary; PyTorch's random stream, not SplitMix64)."""
    rng = random.Random(seed)
    batches = []
    for _ in range(count):
        batch = []
        for _ in range(BATCH):
            source = [rng.randrange(FIRST_SYMBOL, VOCABULARY) for _ in range(rng.randint(4, 12))]
            reverse = source[::-1]
            batch.append((source, [BOS] + reverse, reverse + [EOS]))
        batches.append(batch)
    return batches


def padded(torch, batch):
    source_length = max(len(s) for s, _, _ in batch)
    target_length = max(len(t) for _, t, _ in batch)
    source = torch.zeros(len(batch), source_length, dtype=torch.long)
    target_input = torch.zeros(len(batch), target_length, dtype=torch.long)
    target_output = torch.full((len(batch), target_length), -1, dtype=torch.long)
    for b, (s, ti, to) in enumerate(batch):
        source[b, : len(s)] = torch.tensor(s)
        target_input[b, : len(ti)] = torch.tensor(ti)
        target_output[b, : len(to)] = torch.tensor(to)
    return source, target_input, target_output, source == 0, target_output == -1


def make_step(torch):
    nn, F = torch.nn, torch.nn.functional

    class Reverse(nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = nn.Embedding(VOCABULARY, D_MODEL)
            self.transformer = nn.Transformer(D_MODEL, HEADS, 1, 1, D_FF, dropout=0.0, batch_first=True,
                                              norm_first=True)
            self.readout = nn.Linear(D_MODEL, VOCABULARY)
            position = torch.arange(64, dtype=torch.float64)[:, None]
            pair = torch.arange(0, D_MODEL, 2, dtype=torch.float64)
            angle = position / 10000.0 ** (pair / D_MODEL)
            table = torch.zeros(64, D_MODEL, dtype=torch.float64)
            table[:, 0::2], table[:, 1::2] = torch.sin(angle), torch.cos(angle)
            self.register_buffer("positions", table.float())

        def embed(self, ids):
            return self.embedding(ids) * math.sqrt(D_MODEL) + self.positions[: ids.shape[1]]

        def forward(self, source, target, source_padding, target_padding):
            causal = torch.triu(torch.full((target.shape[1], target.shape[1]), float("-inf")), 1)
            x = self.transformer(self.embed(source), self.embed(target), tgt_mask=causal,
                                 src_key_padding_mask=source_padding, tgt_key_padding_mask=target_padding,
                                 memory_key_padding_mask=source_padding)
            return self.readout(x)

    torch.manual_seed(1)
    model = Reverse()
    decays = [p for n, p in model.named_parameters() if p.dim() == 2 and "embedding" not in n]
    others = [p for n, p in model.named_parameters() if not (p.dim() == 2 and "embedding" not in n)]
    optimizer = torch.optim.AdamW([dict(params=decays, weight_decay=0.01), dict(params=others, weight_decay=0.0)],
                                  lr=3e-3, betas=(0.9, 0.98), eps=1e-8)
    batches = [padded(torch, b) for b in reverse_batches(64)]

    def step(index):
        source, target_input, target_output, source_padding, target_padding = batches[index % len(batches)]
        optimizer.zero_grad(set_to_none=True)
        logits = model(source, target_input, source_padding, target_padding)
        loss = F.cross_entropy(logits.reshape(-1, VOCABULARY), target_output.reshape(-1), ignore_index=-1)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        return loss.item()

    return step


def time_torch(torch, threads, min_time):
    torch.set_num_threads(threads)
    step = make_step(torch)
    for i in range(10):  # warm-up: allocator, thread pool
        step(i)
    iterations, started = 0, time.perf_counter()
    while True:
        step(iterations)
        iterations += 1
        elapsed = time.perf_counter() - started
        if elapsed >= min_time and iterations >= 10:
            return elapsed / iterations * 1e3


def time_ours(bench, min_time):
    command = [bench, "--benchmark_filter=^BM_TrainingStep/", f"--benchmark_min_time={min_time}",
               "--benchmark_format=json"]
    report = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
    return {entry["name"].split("/")[1]: entry["real_time"] * scale[entry["time_unit"]]
            for entry in report["benchmarks"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench", default=DEFAULT_BENCH)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--min-time", type=float, default=2.0)
    arguments = parser.parse_args()
    core = choose_openblas_core()
    torch = import_torch()
    if torch is None:
        return 0
    load_before = os.getloadavg()[0]
    ours, theirs = {"factored": [], "full": []}, {1: [], os.cpu_count(): []}
    for round_index in range(arguments.rounds):
        sides = ["ours", "torch"] if round_index % 2 == 0 else ["torch", "ours"]
        for side in sides:
            if side == "ours":
                for form, ms in time_ours(arguments.bench, arguments.min_time).items():
                    ours[form].append(ms)
            else:
                for threads in theirs:
                    theirs[threads].append(time_torch(torch, threads, arguments.min_time))
    load_after = os.getloadavg()[0]
    mine = {form: statistics.median(values) for form, values in ours.items()}
    pytorch = {threads: statistics.median(values) for threads, values in theirs.items()}
    best = min(pytorch.values())
    print(f"`/usr/bin/python3 bench/training/compare_training_pytorch.py --rounds {arguments.rounds} "
          f"--min-time {arguments.min_time:g}`\n")
    print(f"{cpu_model()} ({os.cpu_count()} cores); PyTorch {torch.__version__}, OpenBLAS core {core}; load average "
          f"{load_before:.2f} before, {load_after:.2f} after; medians of {arguments.rounds} alternating rounds.\n")
    print("| training step, reverse defaults | ms per step | PyTorch (best) / this |")
    print("|---|---|---|")
    for threads, ms in pytorch.items():
        print(f"| PyTorch nn.Transformer, {threads} thread{'s' if threads > 1 else ''} | {ms:.2f} | |")
    for form, ms in mine.items():
        print(f"| ours, {form}, 1 thread | {ms:.2f} | **{best / ms:.1f}x** |")
    print("\nPyTorch has no layer with one d_model x d_model W_i per head: both rows are held against its "
          "factored model, the full one doing more work (h d_model^2 score parameters a layer).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
