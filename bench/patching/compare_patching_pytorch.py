#!/usr/bin/env python3
"""Activation patching's two grids, ours beside eager PyTorch, measured in one run.

    /usr/bin/python3 bench/patching/compare_patching_pytorch.py
        [--bench build/bench/patching/qkv_patching_bench] [--threads 1] [--full-sample 16]

The work (bench/patching/patching_bench.cpp): GPT-2 small (GPT2LMHeadModel: 12 layers, d_model 768,
12 heads, d_ff 3072, vocabulary 50257), float32, random weights (std 0.02), 64 tokens, the
corrupted prompt differing from the clean one from position 32 on; the heads grid (12 x 12 patches:
a head's z at every position from the clean run) and the residual grid (12 layers x 64 positions:
the residual stream entering a block at one position from the clean run); both prompts run first.

Ours: each patched run reuses the corrupted run's layers below the patch and its rows before the
first row the patch changes (core/pipeline/patching.hpp); a patch equal to the corrupted run's
values bit for bit is skipped (r = 0). Ours also times every K-th patch as a full forward pass.

PyTorch's peer: what TransformerLens's patching.py does (get_act_patch_attn_head_out_all_pos,
get_act_patch_resid_pre): one eager forward per patch with a hook that writes the clean
activation into the corrupted run (here the forward is modeling_gpt2.py's, written with
torch.nn.functional, since transformers is not installed), under torch.inference_mode(), the
logits at every position as the model returns them; the metric reads the last. Every patch is
run, as TransformerLens runs them.

Threads: both sides in processes with OMP_NUM_THREADS=T and OPENBLAS_NUM_THREADS=T (PyTorch also
torch.set_num_threads(T)). OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are dropped, then
OPENBLAS_CORETYPE set from the CPU's flags (bench/compare_pytorch.py).
"""

import argparse
import json
import math
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from compare_pytorch import choose_openblas_core, cpu_model, import_torch  # noqa: E402

L, D, H, D_FF, V, P, N, SPLIT = 12, 768, 12, 3072, 50257, 1024, 64, 32
DEFAULT_BENCH = os.path.join("build", "bench", "patching", "qkv_patching_bench")


def torch_worker(threads):
    torch = import_torch()
    if torch is None:
        sys.exit(3)
    torch.set_num_threads(threads)
    F = torch.nn.functional
    torch.manual_seed(0)
    r = lambda *shape: torch.randn(*shape) * 0.02  # noqa: E731
    z, o = torch.zeros, torch.ones
    wte, wpe, ln_f = r(V, D), r(P, D), (o(D), z(D))
    blocks = [{"ln_1": (o(D), z(D)), "c_attn": (r(D, 3 * D), z(3 * D)), "c_proj": (r(D, D), z(D)),
               "ln_2": (o(D), z(D)), "c_fc": (r(D, D_FF), z(D_FF)), "mlp_proj": (r(D_FF, D), z(D))} for _ in range(L)]
    conv = lambda x, wb: torch.addmm(wb[1], x, wb[0])  # noqa: E731
    causal = torch.ones(N, N, dtype=torch.bool).tril()

    def forward(ids, hook=None):
        """GPT2LMHeadModel; hook(kind, layer, tensor) may return a replacement: kind "resid_pre"
        (n x d) or "z" (n x h x d_k); returns (logits n x V, cache)."""
        cache = {}
        x = wte[ids] + wpe[:N]
        for l, b in enumerate(blocks):
            cache[("resid_pre", l)] = x
            x = hook("resid_pre", l, x) if hook else x
            q, k, v = conv(F.layer_norm(x, (D,), *b["ln_1"], 1e-5), b["c_attn"]).split(D, dim=1)
            split = lambda t: t.view(N, H, D // H).transpose(0, 1)  # noqa: E731
            scores = torch.matmul(split(q), split(k).transpose(-1, -2)) / math.sqrt(D // H)
            scores = torch.where(causal, scores, torch.tensor(torch.finfo(scores.dtype).min))
            zh = torch.matmul(torch.softmax(scores, dim=-1), split(v)).transpose(0, 1)  # n x h x d_k
            cache[("z", l)] = zh
            zh = hook("z", l, zh) if hook else zh
            x = x + conv(zh.reshape(N, D), b["c_proj"])
            x = x + conv(F.gelu(conv(F.layer_norm(x, (D,), *b["ln_2"], 1e-5), b["c_fc"]), approximate="tanh"),
                         b["mlp_proj"])
        return F.linear(F.layer_norm(x, (D,), *ln_f, 1e-5), wte), cache

    generator = torch.Generator().manual_seed(52)
    clean = torch.randint(0, V, (N,), generator=generator)
    corrupt = clean.clone()
    corrupt[SPLIT:] = torch.randint(0, V, (N - SPLIT,), generator=generator)
    with torch.inference_mode():
        start = time.perf_counter()
        _, clean_cache = forward(clean)
        forward(corrupt)
        runs = time.perf_counter() - start
        start = time.perf_counter()
        for l in range(L):
            for i in range(H):
                def head_hook(kind, layer, t, l=l, i=i):
                    if kind != "z" or layer != l:
                        return t
                    t = t.clone()
                    t[:, i] = clean_cache[("z", l)][:, i]
                    return t
                logits, _ = forward(corrupt, head_hook)
                float(logits[-1, 0] - logits[-1, 1])
            for p in range(N):
                def resid_hook(kind, layer, t, l=l, p=p):
                    if kind != "resid_pre" or layer != l:
                        return t
                    t = t.clone()
                    t[p] = clean_cache[("resid_pre", l)][p]
                    return t
                logits, _ = forward(corrupt, resid_hook)
                float(logits[-1, 0] - logits[-1, 1])
        grids = time.perf_counter() - start
    print(json.dumps({"runs_seconds": runs, "grids_seconds": grids, "patches": L * H + L * N,
                      "torch": torch.__version__, "blas": torch.__config__.show().count("openblas") > 0}))


def environment(threads):
    return dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", default=DEFAULT_BENCH)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--full-sample", type=int, default=16)
    parser.add_argument("--torch-worker", action="store_true")
    args = parser.parse_args()
    if args.torch_worker:
        torch_worker(args.threads)
        return
    core = choose_openblas_core()
    print(f"CPU: {cpu_model()}; OpenBLAS core: {core}; threads: {args.threads}")
    ours = json.loads(subprocess.run([args.bench, "--threads", str(args.threads), "--full-sample",
                                      str(args.full_sample)], check=True, capture_output=True, text=True,
                                     env=environment(args.threads)).stdout)
    print(f"ours: kernel {ours['kernel']}")
    print(f"ours: both runs {ours['runs_seconds']:.2f} s, both grids ({ours['patches']} patches) "
          f"{ours['grids_seconds']:.2f} s wall, {ours['grids_cpu_seconds']:.2f} s CPU; "
          f"a full forward per patch {ours['full_forward_seconds_per_patch'] * 1000:.0f} ms "
          f"({ours['full_forward_patches_timed']} timed): {ours['full_forward_estimate_seconds']:.0f} s for all")
    worker = subprocess.run([sys.executable, os.path.abspath(__file__), "--torch-worker", "--threads",
                             str(args.threads)], capture_output=True, text=True, env=environment(args.threads))
    if worker.returncode != 0:
        print(worker.stdout.strip() or worker.stderr.strip())
        return
    theirs = json.loads(worker.stdout.strip().splitlines()[-1])
    print(f"PyTorch {theirs['torch']} eager, a hooked forward per patch: both runs {theirs['runs_seconds']:.2f} s, "
          f"both grids {theirs['grids_seconds']:.2f} s")
    print(f"ratio (PyTorch / ours, grids): {theirs['grids_seconds'] / ours['grids_seconds']:.1f}x")


if __name__ == "__main__":
    main()
