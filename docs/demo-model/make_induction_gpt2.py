#!/usr/bin/python3
"""A tiny GPT-2 trained on the induction task, saved as Hugging Face lays out a GPT-2 checkpoint.

The task: a start token, a block of 8-16 random letters, then the block again (and again, up to
n_positions tokens). From the second copy on, the next letter is the one that followed the current
letter last time: a two-layer model learns it with a previous-token head in layer 0 and an
induction head in layer 1 that looks for "the token after the previous occurrence of the current
token" (Olsson et al. 2022, "In-context Learning and Induction Heads").

Writes, next to this script:
  config.json, model.safetensors  GPT2LMHeadModel as save_pretrained writes it (float32)
  vocab.json, merges.txt          byte-level BPE: the 256 byte symbols, "Ġa".."Ġz", <|endoftext|>
  reference.json                  the token ids of the README's sentence and this script's forward
                                  pass on them (every layer's attention, the logits), with and
                                  without the induction heads: tests/core/pretrained/ compares
                                  the app's forward pass with it

The forward pass is GPT-2's (Hugging Face modeling_gpt2.py, GPT2LMHeadModel) written with
torch.nn.functional: pre-LayerNorm blocks; ln_1, attention (Conv1D c_attn: x W + b with W
d_model x 3 d_model, split into q, k, v; h heads; causal mask; scores / sqrt(d_k)), c_proj,
residual; ln_2, c_fc, gelu_new (tanh approximation), c_proj, residual; ln_f; logits = h wte^T.

Seeded and deterministic on one thread; about three minutes of one CPU core. Run with
/usr/bin/python3 (Debian's, with torch and numpy) from anywhere:
    /usr/bin/python3 docs/demo-model/make_induction_gpt2.py
"""
import json
import math
import os
import struct
import time

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))

# ---- Sizes (symbols as in the app: n tokens, d_model, h heads, d_k = d_model / h, V) -------------
BLOCK_MIN, BLOCK_MAX = 8, 16
N_LAYER, D_MODEL, N_HEAD, D_FF = 2, 64, 4, 256
N_POSITIONS = 64
D_K = D_MODEL // N_HEAD
EPSILON = 1e-5
STEPS, BATCH, LEARNING_RATE = 3000, 32, 1e-3
SEED = 2022
EXAMPLE = "a b c d e f g h a b c d e f g"  # the README's sentence: a block of 8, then 7 again
EXAMPLE_BLOCK = 8
LETTERS = "abcdefghijklmnopqrstuvwxyz"


# ---- The tokenizer: GPT-2's byte-level BPE with a vocabulary of single letters -------------------

def bytes_to_unicode():
    """GPT-2's byte -> printable character table (encoder.py), in GPT-2's vocabulary order."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return [(b, chr(c)) for b, c in zip(bs, cs)]


BYTE_SYMBOLS = bytes_to_unicode()                        # ids 0..255, as GPT-2's vocab.json
SPACE = dict(BYTE_SYMBOLS)[ord(" ")]                     # "Ġ"
VOCAB = {symbol: i for i, (_, symbol) in enumerate(BYTE_SYMBOLS)}
for letter in LETTERS:
    VOCAB[SPACE + letter] = len(VOCAB)                   # "Ġa".."Ġz": a letter after a space
END_OF_TEXT = len(VOCAB)
VOCAB["<|endoftext|>"] = END_OF_TEXT
VOCAB_SIZE = len(VOCAB)
MERGES = [f"{SPACE} {letter}" for letter in LETTERS]
BARE = torch.tensor([VOCAB[c] for c in LETTERS])            # "a": the first word of a typed text
SPACED = torch.tensor([VOCAB[SPACE + c] for c in LETTERS])  # "Ġa": every later word


def typed_ids(text):
    """The ids GPT-2's tokenizer gives a text of single letters separated by single spaces."""
    words = text.split(" ")
    assert all(len(w) == 1 and w in LETTERS for w in words), "letters separated by single spaces only"
    return [VOCAB[words[0]]] + [VOCAB[SPACE + w] for w in words[1:]]


# ---- The data: a start, a random block, the block again ------------------------------------------

def batch(generator, size):
    """ids (size x N_POSITIONS), targets (-1: no loss), block starts, lengths and letters.

    Half the sequences begin as a typed text does (the first letter without a space, "a"), half
    with <|endoftext|> and every letter after a space. Letters are drawn with replacement. The
    block repeats up to a random length between two copies and n_positions (fixed lengths let the
    model count positions instead of matching letters); the loss is on every letter from the
    second letter of the second copy on (the first letter of a copy cannot be known). The rest of
    the row is <|endoftext|>, never scored (the mask is causal)."""
    k = torch.randint(BLOCK_MIN, BLOCK_MAX + 1, (size, 1), generator=generator)       # block lengths
    typed = torch.randint(0, 2, (size, 1), generator=generator).bool()
    b0 = (~typed).long()                                                                 # block starts
    shortest = b0 + 2 * k
    n = shortest + (torch.rand((size, 1), generator=generator) * (N_POSITIONS + 1 - shortest)).long()
    letters = torch.randint(0, len(LETTERS), (size, BLOCK_MAX), generator=generator)
    position = torch.arange(N_POSITIONS).expand(size, -1)
    j = position - b0                                  # index into the tiled block
    letter = letters.gather(1, j.clamp(min=0) % k)     # size x N_POSITIONS
    inside = (j >= 0) & (position < n)
    ids = torch.where(inside, SPACED[letter], torch.tensor(END_OF_TEXT))
    ids[:, 0] = torch.where(typed[:, 0], BARE[letters[:, 0]], ids[:, 0])
    targets = torch.where(inside & (j >= k + 1), SPACED[letter], torch.tensor(-1))
    blocks = [letters[s, :int(k[s])] for s in range(size)]
    # The model at position t predicts the token at t + 1.
    targets = torch.cat([targets[:, 1:], torch.full((size, 1), -1)], dim=1)
    return ids, targets, b0[:, 0], k[:, 0], blocks


# ---- GPT-2's forward pass (modeling_gpt2.py) -----------------------------------------------------

def names(prefix="transformer."):
    """Hugging Face's tensor names and shapes (Conv1D weights are in x out)."""
    shapes = {"wte.weight": (VOCAB_SIZE, D_MODEL), "wpe.weight": (N_POSITIONS, D_MODEL),
              "ln_f.weight": (D_MODEL,), "ln_f.bias": (D_MODEL,)}
    for l in range(N_LAYER):
        p = f"h.{l}."
        shapes.update({p + "ln_1.weight": (D_MODEL,), p + "ln_1.bias": (D_MODEL,),
                       p + "attn.c_attn.weight": (D_MODEL, 3 * D_MODEL), p + "attn.c_attn.bias": (3 * D_MODEL,),
                       p + "attn.c_proj.weight": (D_MODEL, D_MODEL), p + "attn.c_proj.bias": (D_MODEL,),
                       p + "ln_2.weight": (D_MODEL,), p + "ln_2.bias": (D_MODEL,),
                       p + "mlp.c_fc.weight": (D_MODEL, D_FF), p + "mlp.c_fc.bias": (D_FF,),
                       p + "mlp.c_proj.weight": (D_FF, D_MODEL), p + "mlp.c_proj.bias": (D_MODEL,)})
    return {prefix + name: shape for name, shape in shapes.items()}


def initial_weights(generator):
    """GPT-2's initialisation: N(0, 0.02), residual projections N(0, 0.02 / sqrt(2 L)), norms 1, 0."""
    w = {}
    for name, shape in names().items():
        if name.endswith("ln_1.weight") or name.endswith("ln_2.weight") or name.endswith("ln_f.weight"):
            w[name] = torch.ones(shape)
        elif name.endswith(".bias"):
            w[name] = torch.zeros(shape)
        else:
            std = 0.02 / math.sqrt(2 * N_LAYER) if name.endswith("c_proj.weight") else 0.02
            w[name] = torch.randn(shape, generator=generator) * std
        w[name].requires_grad_(True)
    return w


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x.pow(3))))


def attention(x, c_attn_w, c_attn_b, c_proj_w, c_proj_b, ablated=()):
    """GPT2Attention on B x n x d_model: returns (output, B x h x n x n attention)."""
    B, n, d = x.shape
    q, k, v = (x @ c_attn_w + c_attn_b).split(d, dim=-1)         # B x n x d_model each
    q, k, v = (t.view(B, n, N_HEAD, D_K).transpose(1, 2) for t in (q, k, v))  # B x h x n x d_k
    scores = q @ k.transpose(-1, -2) / math.sqrt(D_K)             # B x h x n x n
    causal = torch.triu(torch.ones(n, n, dtype=torch.bool), 1)    # key after query
    a = torch.softmax(scores.masked_fill(causal, float("-inf")), dim=-1)
    heads = a @ v                                                 # B x h x n x d_k
    if ablated:  # a switched-off head's block of Concat(head_1..head_h) is zero
        keep = torch.ones(N_HEAD, 1, 1, dtype=x.dtype)
        keep[list(ablated)] = 0
        heads = heads * keep
    context = heads.transpose(1, 2).reshape(B, n, d)              # Concat(head_1..head_h)
    return context @ c_proj_w + c_proj_b, a


def forward(w, ids, ablated=None, prefix="transformer."):
    """GPT2LMHeadModel on B x n ids: (B x n x V logits, [B x h x n x n attention per layer])."""
    ablated = ablated or {}
    g = lambda name: w[prefix + name]  # noqa: E731
    n = ids.shape[1]
    x = g("wte.weight")[ids] + g("wpe.weight")[torch.arange(n)]   # B x n x d_model
    maps = []
    for l in range(N_LAYER):
        p = f"h.{l}."
        ln = lambda norm, v: F.layer_norm(v, (D_MODEL,), g(p + norm + ".weight"), g(p + norm + ".bias"), EPSILON)  # noqa
        out, a = attention(ln("ln_1", x), g(p + "attn.c_attn.weight"), g(p + "attn.c_attn.bias"),
                           g(p + "attn.c_proj.weight"), g(p + "attn.c_proj.bias"), ablated.get(l, ()))
        x = x + out
        m = gelu_new(ln("ln_2", x) @ g(p + "mlp.c_fc.weight") + g(p + "mlp.c_fc.bias"))
        x = x + m @ g(p + "mlp.c_proj.weight") + g(p + "mlp.c_proj.bias")
        maps.append(a)
    x = F.layer_norm(x, (D_MODEL,), g("ln_f.weight"), g("ln_f.bias"), EPSILON)
    return x @ g("wte.weight").T, maps                            # lm_head tied to wte


# ---- Training and measuring -----------------------------------------------------------------------

def train(w, generator):
    decay = [t for name, t in w.items() if name.endswith(".weight") and t.dim() == 2]
    rest = [t for name, t in w.items() if not (name.endswith(".weight") and t.dim() == 2)]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": rest, "weight_decay": 0.0}],
                                  lr=LEARNING_RATE)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: min(1.0, (step + 1) / 200) * 0.5 * (1 + math.cos(math.pi * step / STEPS)))
    started = time.time()
    for step in range(STEPS):
        ids, targets, _, _, _ = batch(generator, BATCH)
        logits, _ = forward(w, ids)
        loss = F.cross_entropy(logits.reshape(-1, VOCAB_SIZE), targets.reshape(-1), ignore_index=-1)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        schedule.step()
        if step % 250 == 0 or step == STEPS - 1:
            print(f"step {step:5d}  loss {loss.item():.4f}  ({time.time() - started:.0f} s)", flush=True)


@torch.no_grad()
def measure(w, generator, size=1000):
    """Next-letter accuracy on the repeats, and each head's previous-token and induction scores.

    previous-token score: mean attention from a query to the position just before it (q - 1),
    over every query q >= 1; induction score: mean attention from a query in a repeat to the
    tokens after the previous occurrences of its token (q - k + 1, q - 2k + 1, ... for a block of
    k letters), Olsson et al.'s measure on repeated random tokens."""
    ids, targets, starts, lengths, blocks = batch(generator, size)
    logits, maps = forward(w, ids)
    scored = targets >= 0
    right = (logits.argmax(-1) == targets) & scored
    # Where the current letter occurs once in its block, the next letter is unambiguous.
    unique = torch.zeros_like(scored)
    for s in range(size):
        b0, k, block = int(starts[s]), int(lengths[s]), blocks[s]
        for q in range(b0 + k, N_POSITIONS):
            unique[s, q] = bool(scored[s, q]) and int((block == block[(q - b0) % k]).sum()) == 1
    scores = {"accuracy": right.sum().item() / scored.sum().item(),
              "accuracy_unambiguous": (right & unique).sum().item() / (scored & unique).sum().item(),
              "scored_positions": int(scored.sum()), "unambiguous_positions": int((scored & unique).sum())}
    previous, induction = [], []
    for a in maps:  # B x h x n x n
        prev_sum = torch.zeros(N_HEAD)
        ind_sum = torch.zeros(N_HEAD)
        prev_count = ind_count = 0
        for s in range(size):
            b0, k = int(starts[s]), int(lengths[s])
            n = int((ids[s] != END_OF_TEXT).nonzero().max()) + 1
            q = torch.arange(1, n)
            prev_sum += a[s, :, q, q - 1].sum(-1)
            prev_count += len(q)
            for q in range(b0 + k, n):
                ind_sum += a[s, :, q, list(range(q - k + 1, b0, -k))].sum(-1)
                ind_count += 1
        previous.append((prev_sum / prev_count).tolist())
        induction.append((ind_sum / ind_count).tolist())
    scores["previous_token_score"] = previous
    scores["induction_score"] = induction
    return scores


def _letter(token_id):
    symbol = next(s for s, i in VOCAB.items() if i == token_id)
    return symbol[-1]


# ---- Files ----------------------------------------------------------------------------------------

def write_safetensors(path, tensors):
    """8-byte little-endian header length, JSON header (padded to 8 bytes), raw float32 data."""
    header, blobs, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for name in sorted(tensors):
        blob = tensors[name].astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(tensors[name].shape),
                        "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def write_json(name, value, indent=1):
    with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
        json.dump(value, f, indent=indent, ensure_ascii=False)
        f.write("\n")


def rounded(matrix):
    """float32 values written with 7 significant digits (the tests compare within 1e-4)."""
    return [[float(f"{v:.7g}") for v in row] for row in matrix.tolist()]


def write_checkpoint(weights):
    write_safetensors(os.path.join(HERE, "model.safetensors"), weights)
    write_json("config.json", {
        "architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "activation_function": "gelu_new",
        "n_embd": D_MODEL, "n_head": N_HEAD, "n_layer": N_LAYER, "n_inner": D_FF,
        "n_positions": N_POSITIONS, "n_ctx": N_POSITIONS, "vocab_size": VOCAB_SIZE,
        "layer_norm_epsilon": EPSILON, "bos_token_id": END_OF_TEXT, "eos_token_id": END_OF_TEXT,
        "tie_word_embeddings": True, "torch_dtype": "float32"})
    with open(os.path.join(HERE, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(VOCAB, f, ensure_ascii=False)
    with open(os.path.join(HERE, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n" + "\n".join(MERGES) + "\n")


def reference_run(weights, ids, induction_heads):
    """The forward pass in float64 on the stored float32 weights, with and without the heads."""
    w = {name: torch.tensor(t.astype(np.float64)) for name, t in weights.items()}
    x = torch.tensor([ids])
    runs = {}
    for key, ablated in (("run", {}), ("ablated", {1: tuple(induction_heads)})):
        logits, maps = forward(w, x, ablated)
        runs[key] = {"attention": [[rounded(a[0, i]) for i in range(N_HEAD)] for a in maps],
                     "logits": rounded(logits[0])}
    return runs, w


def describe_predictions(w, ids, induction_heads):
    x = torch.tensor([ids])
    cases = [("whole model", ())] + [(f"layer 1 head {i} off", (i,)) for i in induction_heads] + \
        [(f"layer 1 heads {', '.join(map(str, induction_heads))} off", tuple(induction_heads))]
    for label, heads in cases:
        p = torch.softmax(forward(w, x, {1: heads})[0][0], dim=-1)
        right = [p[q, ids[q + 1]].item() for q in range(EXAMPLE_BLOCK, len(ids) - 1)]
        tops = [_letter(int(p[q].argmax())) for q in range(EXAMPLE_BLOCK, len(ids) - 1)]
        print(f"{label}: P(right next letter) after a..f of the repeat: "
              f"{' '.join(f'{v:.3f}' for v in right)} (mean {sum(right) / len(right):.3f}); top {' '.join(tops)}")


def main():
    torch.set_num_threads(1)
    torch.manual_seed(SEED)
    torch.use_deterministic_algorithms(True)
    generator = torch.Generator().manual_seed(SEED)
    w = initial_weights(generator)
    train(w, generator)
    scores = measure(w, torch.Generator().manual_seed(SEED + 1))
    print(json.dumps(scores))
    previous_head = max(range(N_HEAD), key=lambda i: scores["previous_token_score"][0][i])
    induction_heads = [i for i in range(N_HEAD) if scores["induction_score"][1][i] > 0.5]
    print(f"previous-token head: layer 0 head {previous_head}; induction heads: layer 1 heads {induction_heads}")

    weights = {name: t.detach().numpy().astype(np.float32) for name, t in w.items()}
    write_checkpoint(weights)
    ids = typed_ids(EXAMPLE)
    runs, w64 = reference_run(weights, ids, induction_heads)
    write_json("reference.json", {
        "text": EXAMPLE, "ids": ids, "block_length": EXAMPLE_BLOCK,
        "previous_token_head": [0, previous_head], "induction_heads": [[1, i] for i in induction_heads],
        "measured": scores, **runs}, indent=None)
    describe_predictions(w64, ids, induction_heads)


if __name__ == "__main__":
    main()
