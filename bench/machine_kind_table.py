#!/usr/bin/env python3
"""One table of this machine kind's figures: the whole model, typing on, generation, a long prompt
and training, with the CPU's vector extensions and the product kernel each program ran.

    /usr/bin/python3 bench/machine_kind_table.py [--build build] [--isa native|avx2] [--min-time 0.5]

--isa avx2 runs ours as an AVX2-only machine does (bench/compare_pytorch.py, AVX2_MACHINE: oneDNN
and OpenBLAS limited to their AVX2 kernels, so the product kernel is the one product_kernels.hpp
chooses there); build ours for it with -DQKV_NATIVE=OFF -DCMAKE_CXX_FLAGS=-march=x86-64-v3 so that
the rest of the program is AVX2 code too. The figures beside PyTorch come from
bench/pretrained/compare_pretrained_pytorch.py and bench/compare_pytorch.py (same --isa); the frame
from bench/ui. docs/benchmarks.md keeps one such table per kind of machine.
"""

import argparse
import datetime
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_pytorch import AVX2_MACHINE, INHERITED_HANDICAPS, cpu_model  # noqa: E402

# (program under the build folder, benchmark filter, what the row says)
ROWS = [
    ("bench/pretrained/qkv_pretrained_bench", "^BM_Attention/bert-base/", "BERT-base, 128 tokens: attention of every layer"),
    ("bench/pretrained/qkv_pretrained_bench", "^BM_Forward/bert-base/", "BERT-base, 128 tokens: every position's readout"),
    ("bench/pretrained/qkv_pretrained_bench", "^BM_Attention/gpt2-small/", "GPT-2 small, 256 tokens: attention of every layer"),
    ("bench/pretrained/qkv_pretrained_bench", "^BM_Forward/gpt2-small/", "GPT-2 small, 256 tokens: every position's readout"),
    ("bench/pretrained/qkv_pretrained_bench", "^BM_TypeOn/gpt2-small-1024/1/typed/",
     "GPT-2 small: one token typed after 1,024"),
    ("bench/pretrained/qkv_pretrained_bench", "^BM_Generate/gpt2-small-256/", "GPT-2 small: generation after 256 tokens"),
    ("bench/pretrained/qkv_pretrained_bench", "^BM_LongPrompt/gpt2-small-8k/", "GPT-2 small's blocks, 8,192 tokens"),
    ("bench/training/qkv_training_bench", "^BM_TrainingStep/factored/", "training step (the app's transformer, factored)"),
]


def environment(isa, threads):
    env = {k: v for k, v in os.environ.items() if k not in INHERITED_HANDICAPS + ("QKV_PRODUCT_KERNEL",)}
    if isa == "avx2":
        env.update(AVX2_MACHINE)
    env["OMP_NUM_THREADS"] = str(threads)
    return env


def run(build, program, pattern, isa, threads, min_time):
    command = [os.path.join(build, program), f"--benchmark_filter={pattern}", f"--benchmark_min_time={min_time}",
               "--benchmark_format=json"]
    completed = subprocess.run(command, check=True, capture_output=True, text=True, env=environment(isa, threads))
    if not completed.stdout.lstrip().startswith("{"):  # "Failed to match any benchmarks ..."
        return None, {}
    report = json.loads(completed.stdout)
    entries = [e for e in report["benchmarks"] if not e.get("error_occurred")]
    if not entries:
        return None, report.get("context", {})
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
    return entries[0]["real_time"] * scale[entries[0]["time_unit"]], report.get("context", {})


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default="build")
    parser.add_argument("--isa", choices=("native", "avx2"), default="native")
    parser.add_argument("--min-time", type=float, default=0.5)
    parser.add_argument("--threads", default="1,2")
    arguments = parser.parse_args()
    settings = [int(t) for t in arguments.threads.split(",")]
    load_before = os.getloadavg()[0]
    figures, kernels = {}, {}
    for program, pattern, label in ROWS:
        for threads in settings:
            ms, context = run(arguments.build, program, pattern, arguments.isa, threads, arguments.min_time)
            figures[(label, threads)] = ms
            if "products" in context:
                kernels[context["products"]] = context.get("cpu", "not reported")
    print(f"`/usr/bin/python3 bench/machine_kind_table.py --build {arguments.build} --isa {arguments.isa} "
          f"--min-time {arguments.min_time:g}`\n")
    print(f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, {cpu_model()} ({os.cpu_count()} cores); "
          f"load average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after.")
    for kernel, cpu in kernels.items():
        print(f"CPU: {cpu}; products: {kernel}.")
    print()
    print("| what | " + " | ".join(f"{t} thread{'s' if t > 1 else ''}, ms" for t in settings) + " |")
    print("|---|" + "---|" * len(settings))
    for _, _, label in ROWS:
        cells = [figures[(label, t)] for t in settings]
        print(f"| {label} | " + " | ".join("n/a" if c is None else f"{c:,.0f}" for c in cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
