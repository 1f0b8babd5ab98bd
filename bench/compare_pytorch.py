#!/usr/bin/env python3
"""Our attention forward pass beside PyTorch's nn.MultiheadAttention, measured in one run.

    /usr/bin/python3 bench/compare_pytorch.py [--bench build/bench/attention/qkv_attention_bench]
        [--rounds 3] [--min-time 1] [--markdown table.md]

Rounds alternate which side runs first (ours then PyTorch, PyTorch then ours, ...); each figure
is the median of the rounds. A round of ours is one run of the Google Benchmark program
(bench/attention/attention_bench.cpp); PyTorch runs in this process. Both use every core (two
threads on the development VM): Eigen's default for ours; PyTorch is timed with one thread and
with every core in each round and keeps the faster (its OpenMP team and OpenBLAS's own threads
oversubscribe two cores: at (128, 512, 8) one thread ran in 2.5 ms, two in 6.9 ms). The table
gives both, and our ratio to each.

PyTorch is measured as the fair peer: nn.MultiheadAttention(d_model, h) in eval mode under
torch.inference_mode(), need_weights=True and average_attn_weights=False (it returns every
head's weights, as our result keeps them), float32, self-attention (n queries = n keys), no
mask, with its default biases: the same computation as ours, whose benchmark has biases too.
(PyTorch 1.13's fast path fails with bias=False, so both sides keep them.)

OpenBLAS's kernels: Debian's OpenBLAS 0.3.21 picks its kernels by the CPU's model number and falls
back to "Prescott" (SSE3, no AVX) on CPUs newer than it knows, such as the development VM's
Sapphire Rapids: its float GEMM then runs at a quarter of its speed (62 against 253 GFLOP/s at
2048 x 1024 x 1024) and PyTorch looks 2-3x slower than it is. This script sets the core from the
CPU's flags before PyTorch loads OpenBLAS (AVX-512 with BF16: Cooperlake; AVX-512: SkylakeX; AVX2
with FMA: Haswell), and the table says which core it used. A core or cache size the environment
sets for older builds (OPENBLAS_CORETYPE=Haswell halves PyTorch's GEMM on an AVX-512 CPU,
OPENBLAS_L2_SIZE) is dropped first, and the table says so: the peer runs at its best.

Prints a Markdown table to paste into docs/benchmarks.md (and writes it with --markdown). Where
PyTorch is missing, prints why and exits 0 without measuring: it is never needed to build or
test, only to compare (Debian: apt-get install python3-torch libopenblas0-pthread, then run
this script with /usr/bin/python3).
"""

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time

SIZES = [(16, 64, 4), (128, 512, 8), (512, 768, 12), (2048, 1024, 16)]
# The size where the forward pass is held against Eigen's GEMM rate of the same run.
GEMM_SIZE = (2048, 1024)
DEFAULT_BENCH = os.path.join("build", "bench", "attention", "qkv_attention_bench")
OUR_PRODUCTS = "not reported"  # the kernel our run names (its "products" context)


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench", default=DEFAULT_BENCH, help="the qkv_attention_bench program (default: %(default)s)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds; figures are their medians (default: 3)")
    parser.add_argument("--min-time", type=float, default=1.0, help="seconds per size and side in a round (default: 1)")
    parser.add_argument("--markdown", help="also write the table to this file")
    add_isa_argument(parser)
    return parser.parse_args()


def cpu_flags():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


# What a machine may set for an older OpenBLAS that holds a newer CPU back: a forced core
# (Haswell's kernel on an AVX-512 CPU runs PyTorch's float GEMM at about half its rate) and a
# cache size. The peer is measured at its best, so both are dropped before PyTorch loads.
INHERITED_HANDICAPS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


# --isa avx2 on an AVX-512 CPU: both sides run what an AVX2-only machine runs. PyTorch: OpenBLAS's
# Haswell kernel, ATen's AVX2 kernels, oneDNN's AVX2 path; ours: the kernel product_kernels.hpp
# chooses when oneDNN and OpenBLAS offer only their AVX2 kernels (build ours with
# -DQKV_NATIVE=OFF -DCMAKE_CXX_FLAGS=-march=x86-64-v3 so that the rest of it is AVX2 code too).
AVX2_MACHINE = {"OPENBLAS_CORETYPE": "Haswell", "ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2"}


def add_isa_argument(parser):
    parser.add_argument("--isa", choices=("native", "avx2"), default="native",
                        help="avx2: both sides run an AVX2-only machine's kernels (default: %(default)s)")


def choose_openblas_core(isa="native"):
    """Drops an inherited OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE, then sets OPENBLAS_CORETYPE from
    the CPU's flags (with isa "avx2": the AVX2 machine's settings above, for both sides); returns
    the core used ("detected by OpenBLAS" when the flags name none of the cores below) and what was
    dropped, for the table."""
    dropped = [f"{name}={os.environ.pop(name)}" for name in INHERITED_HANDICAPS if name in os.environ]
    note = f" (the inherited {', '.join(dropped)} dropped)" if dropped else ""
    flags = cpu_flags()
    if isa == "avx2":
        os.environ.update(AVX2_MACHINE)
        return "Haswell, with ATen's and oneDNN's AVX2 kernels (an AVX2 machine forced: --isa avx2)" + note
    if {"avx512f", "avx512_bf16"} <= flags:
        core = "Cooperlake"
    elif "avx512f" in flags:
        core = "SkylakeX"
    elif {"avx2", "fma"} <= flags:
        core = "Haswell"
    else:
        return "detected by OpenBLAS" + note
    os.environ["OPENBLAS_CORETYPE"] = core
    return core + note


def import_torch():
    """torch, or None after saying why it cannot be used. Call choose_openblas_core() first."""
    try:
        import torch  # noqa: PLC0415 (optional dependency, imported only here)
    except ImportError as error:
        print(f"SKIPPED: PyTorch is not importable by {sys.executable} ({error}).\n"
              "Nothing was measured. To compare, install it (Debian: apt-get install python3-torch "
              "libopenblas0-pthread) and run this script with /usr/bin/python3.")
        return None
    return torch


def run_ours(bench, min_time):
    """{(n, d_model, h): ms} for the default forward and the weights-only forward, and the GEMM's
    (ms, GFLOP/s) at GEMM_SIZE, from one run of the benchmark program."""
    # A warm-up as PyTorch gets one (time_torch): the first iterations fault in the result's
    # pages (a first repetition at (2048, 1024, 16) took ~0.3 s longer), which a recompute never pays.
    command = [bench, "--benchmark_filter=^(BM_AttentionForward|BM_AttentionForwardWeightsOnly|BM_EigenGemm)/",
               f"--benchmark_min_time={min_time}", f"--benchmark_min_warmup_time={min(min_time, 0.5)}",
               "--benchmark_format=json"]
    completed = subprocess.run(command, check=True, capture_output=True, text=True)
    report = json.loads(completed.stdout)
    global OUR_PRODUCTS
    OUR_PRODUCTS = report.get("context", {}).get("products", "not reported")
    forward, weights_only, gemm = {}, {}, None
    for entry in report["benchmarks"]:
        name = entry["name"]  # e.g. BM_AttentionForward/n:2048/d_model:1024/h:16/real_time
        parts = name.split("/")
        values = tuple(int(p.split(":")[1]) for p in parts[1:] if ":" in p)
        ms = entry["real_time"] * {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[entry["time_unit"]]
        if parts[0] == "BM_AttentionForward":
            forward[values] = (ms, entry["GFLOP/s"])
        elif parts[0] == "BM_AttentionForwardWeightsOnly":
            weights_only[values] = ms
        elif parts[0] == "BM_EigenGemm" and values == GEMM_SIZE:
            gemm = (ms, entry["GFLOP/s"])
    return forward, weights_only, gemm


def time_torch(torch, n, d_model, heads, min_time):
    """Mean milliseconds of one nn.MultiheadAttention forward over at least min_time seconds."""
    torch.manual_seed(0)
    attention = torch.nn.MultiheadAttention(d_model, heads, batch_first=True).eval()
    x = torch.randn(1, n, d_model, dtype=torch.float32)
    with torch.inference_mode():
        def forward():
            output, weights = attention(x, x, x, need_weights=True, average_attn_weights=False)
            assert weights.shape == (1, heads, n, n)
            return output

        for _ in range(3):  # warm-up: allocator, thread pool
            forward()
        iterations, started = 0, time.perf_counter()
        while True:
            forward()
            iterations += 1
            elapsed = time.perf_counter() - started
            if elapsed >= min_time and iterations >= 3:
                return elapsed / iterations * 1e3


def run_torch(torch, min_time, thread_settings):
    """{threads: {size: ms}} for each torch.set_num_threads setting."""
    timings = {}
    for threads in thread_settings:
        torch.set_num_threads(threads)
        timings[threads] = {size: time_torch(torch, *size, min_time) for size in SIZES}
    return timings


def cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def blas_library():
    """The BLAS Debian's alternatives give PyTorch (its own build says only BLAS_INFO=generic)."""
    path = os.path.realpath("/etc/alternatives/libblas.so.3-" + platform.machine() + "-linux-gnu")
    return os.path.basename(os.path.dirname(path)) if os.path.exists(path) else "BLAS unknown"


def format_ms(ms):
    return f"{ms:.3f} ms" if ms < 1 else f"{ms:.3g} ms" if ms < 100 else f"{ms:.0f} ms"


def table(forward, weights_only, torch_ms, gemm, context):
    """torch_ms: {threads: {size: ms}}."""
    settings = sorted(torch_ms, reverse=True)  # every core first: the setting the targets are stated for
    header = "| (n, d_model, h) | ours | ours, weights only | " + " | ".join(
        f"PyTorch, {t} thread{'s' if t > 1 else ''}" for t in settings) + " | " + " | ".join(
        f"PyTorch ({t}) / ours" for t in settings) + " |"
    lines = [
        f"`/usr/bin/python3 bench/compare_pytorch.py --rounds {context['rounds']} --min-time {context['min_time']:g}"
        f" --isa {context['isa']}`",
        "",
        f"{context['date']}, {context['cpu']} ({os.cpu_count()} cores); ours on {context['threads']} threads; "
        f"PyTorch {context['torch']} ({context['blas']}, OpenBLAS core {context['openblas_core']}) with "
        "torch.set_num_threads as the column says (OpenBLAS's own threads use every core either way); "
        f"load average {context['load_before']:.2f} before, {context['load_after']:.2f} after. "
        f"Ours: {OUR_PRODUCTS}. "
        f"Medians of {context['rounds']} alternating rounds.",
        "",
        header,
        "|" + "---|" * (3 + 2 * len(settings)),
    ]
    for size in SIZES:
        ours = forward[size][0]
        lines.append(f"| {size} | {format_ms(ours)} | {format_ms(weights_only[size])} | "
                     + " | ".join(format_ms(torch_ms[t][size]) for t in settings) + " | "
                     + " | ".join(f"**{torch_ms[t][size] / ours:.2f}x**" for t in settings) + " |")
    big = SIZES[-1]
    rate = forward[big][1]
    lines += [
        "",
        f"Forward pass at {big}: {rate:.0f} GFLOP/s; Eigen's float GEMM ({GEMM_SIZE[0]} x {GEMM_SIZE[1]})"
        f"({GEMM_SIZE[1]} x {GEMM_SIZE[1]}) in the same run: {gemm[1]:.0f} GFLOP/s ({format_ms(gemm[0])}): "
        f"**{100 * rate / gemm[1]:.0f}%** of the GEMM rate.",
        "",
        "\"ours\" keeps every head's scores and weights, as the app and the export do; \"weights only\" "
        "(keepScores = false) returns what PyTorch returns.",
    ]
    return "\n".join(lines)


def main():
    args = parse_arguments()
    openblas_core = choose_openblas_core(args.isa)  # before torch loads OpenBLAS
    torch = import_torch()
    if torch is None:
        return 0
    if not os.access(args.bench, os.X_OK):
        print(f"error: {args.bench} is not an executable benchmark program. Build it first:\n"
              "  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DQKV_BUILD_BENCHMARKS=ON\n"
              "  cmake --build build --target qkv_attention_bench", file=sys.stderr)
        return 2
    threads = os.cpu_count() or 1
    thread_settings = sorted({1, threads})

    load_before = os.getloadavg()[0]
    ours_runs, torch_runs = [], []
    for round_index in range(args.rounds):
        order = ["ours", "torch"] if round_index % 2 == 0 else ["torch", "ours"]
        for side in order:
            if side == "ours":
                ours_runs.append(run_ours(args.bench, args.min_time))
            else:
                torch_runs.append(run_torch(torch, args.min_time, thread_settings))
        print(f"round {round_index + 1} of {args.rounds} done ({' then '.join(order)})", file=sys.stderr)
    load_after = os.getloadavg()[0]

    median = statistics.median
    forward = {s: (median(r[0][s][0] for r in ours_runs), median(r[0][s][1] for r in ours_runs)) for s in SIZES}
    weights_only = {s: median(r[1][s] for r in ours_runs) for s in SIZES}
    gemm = (median(r[2][0] for r in ours_runs), median(r[2][1] for r in ours_runs))
    torch_ms = {t: {s: median(r[t][s] for r in torch_runs) for s in SIZES} for t in thread_settings}

    blas = blas_library()
    context = {
        "rounds": args.rounds, "min_time": args.min_time, "cpu": cpu_model(), "threads": threads,
        "torch": torch.__version__, "blas": blas, "openblas_core": openblas_core, "load_before": load_before, "load_after": load_after,
        "date": datetime.date.today().isoformat(), "isa": args.isa,
    }
    text = table(forward, weights_only, torch_ms, gemm, context)
    print(text)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as out:
            out.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
