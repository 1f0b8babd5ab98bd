#!/usr/bin/env python3
"""The whole-model forward pass of ours beside the same model in eager PyTorch, measured in one run.

    /usr/bin/python3 bench/pretrained/compare_pretrained_pytorch.py
        [--bench build/bench/pretrained/qkv_pretrained_bench] [--threads 1,2] [--rounds 3] [--min-time 1]

Shapes (bench/pretrained/synthetic_checkpoints.hpp): BERT-base (BertForMaskedLM: 12 layers,
d_model 768, 12 heads, d_ff 3072, vocabulary 30522) on 128 tokens, and GPT-2 small
(GPT2LMHeadModel: 12 layers, 768, 12 heads, 3072, vocabulary 50257) on 256 tokens; float32,
random weights, one sentence.

PyTorch's peer is the forward Hugging Face's modeling_bert.py and modeling_gpt2.py run with
output_attentions=True and output_hidden_states=True, written out here with
torch.nn.functional (transformers is not installed): every layer's attention weights and hidden
states are kept, under torch.inference_mode(). Three rows per model, each side computing the same:
  attention   BertModel / GPT2Model: every layer's attention and hidden states, no readout;
              ours BM_Attention
  at position the *ForMaskedLM / *LMHeadModel readout at the one position the app reads (BERT's
              [MASK] at position 64, GPT-2's last position: its next token); PyTorch's models
              compute every position's logits, so PyTorch runs the head on that row alone here
              (what one would write by hand), and the models as they are in the next row;
              ours BM_ForwardAt
  every position  the readout at every position, as the *LM models return it; ours BM_Forward
Ours also keeps every layer's scores before the softmax, as the app does.

Threads: for each setting t both sides run in processes started with OMP_NUM_THREADS=t (ours:
computeThreads(); PyTorch: torch.set_num_threads(t) and OPENBLAS_NUM_THREADS=t, since
set_num_threads does not limit OpenBLAS's own threads). PyTorch runs in a child process of this
script for that reason. Rounds alternate which side runs first; figures are medians.
OPENBLAS_CORETYPE is set from the CPU's flags as bench/compare_pytorch.py explains; --isa avx2
runs both sides as on an AVX2-only machine (bench/compare_pytorch.py, AVX2_MACHINE).
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from compare_pytorch import add_isa_argument, choose_openblas_core, cpu_model, import_torch  # noqa: E402

# name: (family, layers, d_model, heads, d_ff, vocabulary, positions, tokens), as the C++ program.
SHAPES = {
    "bert-base": ("bert", 12, 768, 12, 3072, 30522, 512, 128),
    "gpt2-small": ("gpt2", 12, 768, 12, 3072, 50257, 1024, 256),
}
DEFAULT_BENCH = os.path.join("build", "bench", "pretrained", "qkv_pretrained_bench")


# ---- PyTorch's side (runs in a child process: --torch-worker) --------------------------------

def random_weights(torch, family, layers, d, h, d_ff, vocabulary, positions):
    """Weights of the shape's tensors (nn.Linear: out x in; GPT-2's Conv1D: in x out), std 0.02."""
    r = lambda *shape: torch.randn(*shape) * 0.02  # noqa: E731
    z, o = torch.zeros, torch.ones
    w = {"tokens": r(vocabulary, d), "positions": r(positions, d), "blocks": []}
    if family == "bert":
        w.update(types=r(2, d), ln=(o(d), z(d)), transform=(r(d, d), z(d)), transform_ln=(o(d), z(d)),
                 bias=z(vocabulary))
        for _ in range(layers):
            w["blocks"].append({"q": (r(d, d), z(d)), "k": (r(d, d), z(d)), "v": (r(d, d), z(d)),
                                "o": (r(d, d), z(d)), "ln1": (o(d), z(d)), "in": (r(d_ff, d), z(d_ff)),
                                "out": (r(d, d_ff), z(d)), "ln2": (o(d), z(d))})
    else:
        w.update(ln_f=(o(d), z(d)))
        for _ in range(layers):
            w["blocks"].append({"ln_1": (o(d), z(d)), "c_attn": (r(d, 3 * d), z(3 * d)), "c_proj": (r(d, d), z(d)),
                                "ln_2": (o(d), z(d)), "c_fc": (r(d, d_ff), z(d_ff)), "mlp_proj": (r(d_ff, d), z(d))})
    return w


def attend(torch, q, k, v, h, causal):
    """Scaled dot-product attention of every head, n x d_model inputs; returns (context, h x n x n)."""
    n, d = q.shape
    split = lambda x: x.view(n, h, d // h).transpose(0, 1)  # noqa: E731  h x n x d_k
    q, k, v = split(q), split(k), split(v)
    scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(d // h)
    if causal is not None:
        scores = torch.where(causal, scores, torch.tensor(torch.finfo(scores.dtype).min))
    weights = torch.softmax(scores, dim=-1)
    return torch.matmul(weights, v).transpose(0, 1).reshape(n, d), weights


def bert_forward(torch, w, ids, h, rows):
    """BertForMaskedLM (post-LN, GELU erf, tied decoder); output_attentions, output_hidden_states.
    rows: None (BertModel: no readout), "all", or a list of positions."""
    F = torch.nn.functional
    n, d = ids.shape[0], w["tokens"].shape[1]
    x = F.layer_norm(w["tokens"][ids] + w["positions"][:n] + w["types"][0], (d,), *w["ln"], 1e-12)
    hidden, attentions = [x], []
    for b in w["blocks"]:
        context, weights = attend(torch, F.linear(x, *b["q"]), F.linear(x, *b["k"]), F.linear(x, *b["v"]), h, None)
        attentions.append(weights)
        x = F.layer_norm(F.linear(context, *b["o"]) + x, (d,), *b["ln1"], 1e-12)
        x = F.layer_norm(F.linear(F.gelu(F.linear(x, *b["in"])), *b["out"]) + x, (d,), *b["ln2"], 1e-12)
        hidden.append(x)
    if rows is None:
        return None, hidden, attentions
    x = x if rows == "all" else x[rows]
    t = F.layer_norm(F.gelu(F.linear(x, *w["transform"])), (d,), *w["transform_ln"], 1e-12)
    return F.linear(t, w["tokens"], w["bias"]), hidden, attentions


def gpt2_forward(torch, w, ids, h, rows):
    """GPT2LMHeadModel (pre-LN, GELU tanh, Conv1D x W + b, lm_head tied to wte)."""
    F = torch.nn.functional
    n, d = ids.shape[0], w["tokens"].shape[1]
    conv = lambda x, wb: torch.addmm(wb[1], x, wb[0])  # noqa: E731
    causal = torch.ones(n, n, dtype=torch.bool).tril()
    x = w["tokens"][ids] + w["positions"][:n]
    hidden, attentions = [x], []
    for b in w["blocks"]:
        q, k, v = conv(F.layer_norm(x, (d,), *b["ln_1"], 1e-5), b["c_attn"]).split(d, dim=1)
        context, weights = attend(torch, q, k, v, h, causal)
        attentions.append(weights)
        x = x + conv(context, b["c_proj"])
        x = x + conv(F.gelu(conv(F.layer_norm(x, (d,), *b["ln_2"], 1e-5), b["c_fc"]), approximate="tanh"),
                     b["mlp_proj"])
        hidden.append(x)
    x = F.layer_norm(x, (d,), *w["ln_f"], 1e-5)
    hidden[-1] = x
    if rows is None:
        return None, hidden, attentions
    return F.linear(x if rows == "all" else x[rows], w["tokens"]), hidden, attentions


# The position the app reads: BERT's [MASK], GPT-2's next token after the last position.
def app_position(family, n):
    return 64 if family == "bert" else n - 1


def time_torch_shape(torch, name, rows, min_time):
    family, layers, d, h, d_ff, vocabulary, positions, n = SHAPES[name]
    torch.manual_seed(0)
    w = random_weights(torch, family, layers, d, h, d_ff, vocabulary, positions)
    ids = torch.randint(0, vocabulary, (n,))
    forward = bert_forward if family == "bert" else gpt2_forward
    chosen = {"attention": None, "at position": [app_position(family, n)], "every position": "all"}[rows]
    with torch.inference_mode():
        for _ in range(3):  # warm-up: allocator, thread pool
            forward(torch, w, ids, h, chosen)
        iterations, started = 0, time.perf_counter()
        while True:
            logits, hidden, attentions = forward(torch, w, ids, h, chosen)
            assert len(attentions) == layers and len(hidden) == layers + 1
            assert chosen is None or logits.shape == (n if chosen == "all" else len(chosen), vocabulary)
            iterations += 1
            elapsed = time.perf_counter() - started
            if elapsed >= min_time and iterations >= 5:
                return elapsed / iterations * 1e3


ROWS = ("attention", "at position", "every position")
OUR_VARIANT = {"attention": "BM_Attention", "at position": "BM_ForwardAt", "every position": "BM_Forward"}


def torch_worker(threads, min_time):
    torch = import_torch()
    if torch is None:
        return 1
    torch.set_num_threads(threads)
    print(json.dumps({f"{name}|{rows}": time_torch_shape(torch, name, rows, min_time)
                      for name in SHAPES for rows in ROWS}))
    return 0


# ---- The side-by-side run ---------------------------------------------------------------------

def environment(threads):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads))
    return env


def time_ours(bench, threads, min_time):
    """{(variant, shape): ms} for BM_Attention, BM_ForwardAt, BM_Forward and BM_ModelView."""
    command = [bench, "--benchmark_filter=^BM_(Attention|ForwardAt|Forward|ModelView)/", f"--benchmark_min_time={min_time}",
               "--benchmark_format=json"]
    report = json.loads(subprocess.run(command, check=True, capture_output=True, text=True,
                                       env=environment(threads)).stdout)
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
    context = report.get("context", {})
    timings = {"products": f"{context.get('products', 'not reported')} (CPU: {context.get('cpu', 'not reported')})"}
    for entry in report["benchmarks"]:
        if entry.get("error_occurred"):
            raise RuntimeError(f"{entry['name']}: {entry.get('error_message')}")
        variant, shape = entry["name"].split("/")[:2]
        timings[(variant, shape)] = entry["real_time"] * scale[entry["time_unit"]]
    return timings


def time_theirs(threads, min_time, isa):
    command = [sys.executable, os.path.abspath(__file__), "--torch-worker", "--threads", str(threads),
               "--min-time", str(min_time), "--isa", isa]
    completed = subprocess.run(command, check=True, capture_output=True, text=True, env=environment(threads))
    return json.loads(completed.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench", default=DEFAULT_BENCH)
    parser.add_argument("--threads", default="1,2", help="comma-separated thread settings (default: %(default)s)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--min-time", type=float, default=1.0)
    parser.add_argument("--torch-worker", action="store_true", help=argparse.SUPPRESS)
    add_isa_argument(parser)
    arguments = parser.parse_args()
    core = choose_openblas_core(arguments.isa)
    if arguments.torch_worker:
        return torch_worker(int(arguments.threads), arguments.min_time)
    torch = import_torch()
    if torch is None:
        return 0
    settings = [int(t) for t in arguments.threads.split(",")]
    load_before = os.getloadavg()[0]
    ours, theirs = {}, {}
    our_products = "not run"
    for threads in settings:
        for round_index in range(arguments.rounds):
            sides = ["ours", "torch"] if round_index % 2 == 0 else ["torch", "ours"]
            for side in sides:
                if side == "ours":
                    timings = time_ours(arguments.bench, threads, arguments.min_time)
                    our_products = timings.pop("products")
                    for key, ms in timings.items():
                        ours.setdefault((threads,) + key, []).append(ms)
                else:
                    for key, ms in time_theirs(threads, arguments.min_time, arguments.isa).items():
                        shape, rows = key.split("|")
                        theirs.setdefault((threads, shape, rows), []).append(ms)
    load_after = os.getloadavg()[0]
    print(f"`/usr/bin/python3 bench/pretrained/compare_pretrained_pytorch.py --threads {arguments.threads} "
          f"--rounds {arguments.rounds} --min-time {arguments.min_time:g} --isa {arguments.isa}`\n")
    print(f"{cpu_model()} ({os.cpu_count()} cores); PyTorch {torch.__version__}, OpenBLAS core {core}; ours: "
          f"{our_products}; load average {load_before:.2f} before, {load_after:.2f} after; medians of "
          f"{arguments.rounds} alternating rounds.\n")
    print("| model, tokens | what both compute | threads | PyTorch, ms | ours, ms | PyTorch / ours |")
    print("|---|---|---|---|---|---|")
    for shape, spec in SHAPES.items():
        for rows in ROWS:
            for threads in settings:
                torch_ms = statistics.median(theirs[(threads, shape, rows)])
                ours_ms = statistics.median(ours[(threads, OUR_VARIANT[rows], shape)])
                print(f"| {shape}, {spec[-1]} | {rows} | {threads} | {torch_ms:.0f} | {ours_ms:.0f} "
                      f"| **{torch_ms / ours_ms:.2f}x** |")
        for threads in settings:
            view = statistics.median(ours[(threads, "BM_ModelView", shape)])
            print(f"| {shape}, {spec[-1]} | ours: every position + statistics of every head | {threads} | | "
                  f"{view:.0f} | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
