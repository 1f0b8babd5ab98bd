#!/usr/bin/python3
"""Tiny synthetic Hugging Face checkpoints of whole models and their PyTorch references.

Each case folder holds model.safetensors and config.json with the family's exact tensor names,
shapes and keys (random weights), maybe the tokenizer files (copied from ../tokenizers), and:
  run.json                 the token ids, and the heads switched off in the ablated run
  attention_<l>.npy        layer l's attention (model order), h*n_q x n_k, head blocks stacked
  hidden_<i>.npy           hidden state i as Hugging Face's output_hidden_states gives it
  logits.npy               n x V, when the model has a readout
  ablated_*.npy            the same with run.json's "ablated" heads switched off: the head's block
                           of the concatenation zeroed before the output projection
The forward passes below are written independently of the C++ code, with torch.nn.functional on
the tensors as the families store them (nn.Linear out x in, GPT-2's Conv1D in x out), following
Hugging Face's modeling_bert.py, modeling_roberta.py, modeling_distilbert.py and modeling_gpt2.py.
They run in float64 on the float32-rounded weights; the references are stored as float32. Run with /usr/bin/python3 (Debian's, with
torch and numpy) from anywhere.
"""
import json
import math
import os
import shutil
import sys

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "checkpoint"))
from make_checkpoints import write_safetensors  # noqa: E402  (the shared safetensors writer)

TOKENIZERS = os.path.join(HERE, "..", "tokenizers")
rng = np.random.default_rng(18)


def normal(*shape, scale=0.2):
    return rng.normal(scale=scale, size=shape).astype(np.float32)


def folder(name):
    path = os.path.join(HERE, name)
    os.makedirs(path, exist_ok=True)
    return path


def tensor(t, name):
    return torch.tensor(t[name].astype(np.float64))


# ---- The pieces every family shares -------------------------------------------------------------

def attention(x_q, x_kv, wq, bq, wk, bk, wv, bv, wo, bo, h, causal, ablated=()):
    """Multi-head attention with nn.Linear-style weights (out x in). Returns (output, h x n x n)."""
    n_q, d = x_q.shape
    n_k = x_kv.shape[0]
    d_k = d // h
    q = F.linear(x_q, wq, bq).view(n_q, h, d_k).transpose(0, 1)
    k = F.linear(x_kv, wk, bk).view(n_k, h, d_k).transpose(0, 1)
    v = F.linear(x_kv, wv, bv).view(n_k, h, d_k).transpose(0, 1)
    scores = q @ k.transpose(1, 2) / math.sqrt(d_k)
    if causal:
        scores = scores.masked_fill(torch.triu(torch.ones(n_q, n_k, dtype=torch.bool), 1), float("-inf"))
    a = torch.softmax(scores, dim=-1)
    context = (a @ v).transpose(0, 1).reshape(n_q, d)
    for head in ablated:  # the head's block of Concat(head_1..head_h) is zero
        context[:, head * d_k:(head + 1) * d_k] = 0.0
    return F.linear(context, wo, bo), a


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x.pow(3))))


def save_run(path, prefix, attentions, hidden, logits):
    for l, a in enumerate(attentions):
        h, n_q, n_k = a.shape
        np.save(os.path.join(path, f"{prefix}attention_{l}.npy"), a.reshape(h * n_q, n_k).numpy().astype(np.float32))
    for i, state in enumerate(hidden):
        np.save(os.path.join(path, f"{prefix}hidden_{i}.npy"), state.numpy().astype(np.float32))
    if logits is not None:
        np.save(os.path.join(path, f"{prefix}logits.npy"), logits.numpy().astype(np.float32))


def write_case(path, t, config, ids, ablated, forward):
    write_safetensors(os.path.join(path, "model.safetensors"), t)
    with open(os.path.join(path, "config.json"), "w") as f:
        json.dump(config, f, indent=1)
    with open(os.path.join(path, "run.json"), "w") as f:
        json.dump({"ids": ids, "ablated": [list(pair) for pair in ablated]}, f)
    save_run(path, "", *forward(t, config, ids, {}))
    by_layer = {}
    for layer, head in ablated:
        by_layer.setdefault(layer, []).append(head)
    save_run(path, "ablated_", *forward(t, config, ids, by_layer))


# ---- BERT and RoBERTa (modeling_bert.py / modeling_roberta.py) ----------------------------------

def bert_tensors(prefix, head, V, P, d, d_ff, L, types):
    t = {f"{prefix}embeddings.word_embeddings.weight": normal(V, d, scale=0.5),
         f"{prefix}embeddings.position_embeddings.weight": normal(P, d, scale=0.5),
         f"{prefix}embeddings.token_type_embeddings.weight": normal(types, d, scale=0.5),
         f"{prefix}embeddings.LayerNorm.weight": 1 + normal(d, scale=0.1),
         f"{prefix}embeddings.LayerNorm.bias": normal(d, scale=0.1),
         f"{prefix}embeddings.position_ids": np.arange(P, dtype=np.int64).reshape(1, P)}
    for l in range(L):
        p = f"{prefix}encoder.layer.{l}."
        for stem in ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"):
            t[p + stem + ".weight"], t[p + stem + ".bias"] = normal(d, d), normal(d, scale=0.1)
        t[p + "intermediate.dense.weight"], t[p + "intermediate.dense.bias"] = normal(d_ff, d), normal(d_ff, scale=0.1)
        t[p + "output.dense.weight"], t[p + "output.dense.bias"] = normal(d, d_ff), normal(d, scale=0.1)
        for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
            t[p + norm + ".weight"], t[p + norm + ".bias"] = 1 + normal(d, scale=0.1), normal(d, scale=0.1)
    t[head + "dense.weight"], t[head + "dense.bias"] = normal(d, d), normal(d, scale=0.1)
    norm = head + ("LayerNorm" if head.startswith("cls") else "layer_norm")
    t[norm + ".weight"], t[norm + ".bias"] = 1 + normal(d, scale=0.1), normal(d, scale=0.1)
    t[head.replace("transform.", "") + "bias"] = normal(V, scale=0.1)
    return t


def bert_forward(prefix, head, roberta):
    def forward(t, config, ids, ablated):
        w = lambda name: tensor(t, name)  # noqa: E731
        eps, h = config["layer_norm_eps"], config["num_attention_heads"]
        ids_t = torch.tensor(ids)
        if roberta:  # create_position_ids_from_input_ids
            pad = config["pad_token_id"]
            mask = (ids_t != pad).long()
            positions = torch.cumsum(mask, 0) * mask + pad
        else:
            positions = torch.arange(len(ids))
        e = prefix + "embeddings."
        x = w(e + "word_embeddings.weight")[ids_t] + w(e + "position_embeddings.weight")[positions] + \
            w(e + "token_type_embeddings.weight")[0]
        x = F.layer_norm(x, (x.shape[1],), w(e + "LayerNorm.weight"), w(e + "LayerNorm.bias"), eps)
        hidden, attentions = [x], []
        for l in range(config["num_hidden_layers"]):
            p = f"{prefix}encoder.layer.{l}."
            lin = lambda stem: (w(p + stem + ".weight"), w(p + stem + ".bias"))  # noqa: E731
            out, a = attention(x, x, *lin("attention.self.query"), *lin("attention.self.key"),
                               *lin("attention.self.value"), *lin("attention.output.dense"), h, False,
                               ablated.get(l, ()))
            x = F.layer_norm(out + x, (x.shape[1],), *lin("attention.output.LayerNorm"), eps)
            f = F.linear(F.gelu(F.linear(x, *lin("intermediate.dense"))), *lin("output.dense"))
            x = F.layer_norm(f + x, (x.shape[1],), *lin("output.LayerNorm"), eps)
            hidden.append(x)
            attentions.append(a)
        # BertLMPredictionHead / RobertaLMHead: dense, gelu, LayerNorm, decoder tied to the words.
        norm = head + ("LayerNorm" if not roberta else "layer_norm")
        z = F.gelu(F.linear(x, w(head + "dense.weight"), w(head + "dense.bias")))
        z = F.layer_norm(z, (z.shape[1],), w(norm + ".weight"), w(norm + ".bias"), eps)
        logits = z @ w(e + "word_embeddings.weight").T + w(head.replace("transform.", "") + "bias")
        return attentions, hidden, logits
    return forward


def bert(V=201, P=16, d=32, d_ff=64, L=3, h=4):
    path = folder("bert")
    t = bert_tensors("bert.", "cls.predictions.transform.", V, P, d, d_ff, L, 2)
    config = {"architectures": ["BertForMaskedLM"], "model_type": "bert", "hidden_size": d,
              "num_attention_heads": h, "num_hidden_layers": L, "intermediate_size": d_ff, "vocab_size": V,
              "max_position_embeddings": P, "type_vocab_size": 2, "hidden_act": "gelu", "layer_norm_eps": 1e-12,
              "pad_token_id": 0, "tie_word_embeddings": True}
    shutil.copyfile(os.path.join(TOKENIZERS, "wordpiece_vocab.txt"), os.path.join(path, "vocab.txt"))
    with open(os.path.join(path, "tokenizer_config.json"), "w") as f:
        json.dump({"do_lower_case": True}, f)
    ids = [2, 57, 4, 120, 33, 4, 3]  # [CLS] ... [MASK] ... [MASK] [SEP]
    write_case(path, t, config, ids, [(1, 2), (0, 0)], bert_forward("bert.", "cls.predictions.transform.", False))


def roberta(V=120, P=18, d=32, d_ff=64, L=2, h=4):
    path = folder("roberta")
    t = bert_tensors("roberta.", "lm_head.", V, P, d, d_ff, L, 1)
    config = {"architectures": ["RobertaForMaskedLM"], "model_type": "roberta", "hidden_size": d,
              "num_attention_heads": h, "num_hidden_layers": L, "intermediate_size": d_ff, "vocab_size": V,
              "max_position_embeddings": P, "type_vocab_size": 1, "hidden_act": "gelu", "layer_norm_eps": 1e-5,
              "pad_token_id": 1, "bos_token_id": 0, "eos_token_id": 2}
    ids = [0, 40, 1, 77, 9, 1, 2]  # <s> ... <pad> ... <pad> </s>: pads take position padding_idx
    write_case(path, t, config, ids, [(1, 3)], bert_forward("roberta.", "lm_head.", True))


# ---- DistilBERT (modeling_distilbert.py) ----------------------------------------------------------

def distilbert(V=100, P=16, d=32, d_ff=64, L=2, h=4):
    path = folder("distilbert")
    p0 = "distilbert."
    t = {p0 + "embeddings.word_embeddings.weight": normal(V, d, scale=0.5),
         p0 + "embeddings.position_embeddings.weight": normal(P, d, scale=0.5),
         p0 + "embeddings.LayerNorm.weight": 1 + normal(d, scale=0.1),
         p0 + "embeddings.LayerNorm.bias": normal(d, scale=0.1)}
    for l in range(L):
        p = f"{p0}transformer.layer.{l}."
        for stem in ("attention.q_lin", "attention.k_lin", "attention.v_lin", "attention.out_lin"):
            t[p + stem + ".weight"], t[p + stem + ".bias"] = normal(d, d), normal(d, scale=0.1)
        t[p + "ffn.lin1.weight"], t[p + "ffn.lin1.bias"] = normal(d_ff, d), normal(d_ff, scale=0.1)
        t[p + "ffn.lin2.weight"], t[p + "ffn.lin2.bias"] = normal(d, d_ff), normal(d, scale=0.1)
        for norm in ("sa_layer_norm", "output_layer_norm"):
            t[p + norm + ".weight"], t[p + norm + ".bias"] = 1 + normal(d, scale=0.1), normal(d, scale=0.1)
    t["vocab_transform.weight"], t["vocab_transform.bias"] = normal(d, d), normal(d, scale=0.1)
    t["vocab_layer_norm.weight"], t["vocab_layer_norm.bias"] = 1 + normal(d, scale=0.1), normal(d, scale=0.1)
    t["vocab_projector.bias"] = normal(V, scale=0.1)  # its weight is tied to the word embeddings
    config = {"architectures": ["DistilBertForMaskedLM"], "model_type": "distilbert", "dim": d, "n_heads": h,
              "n_layers": L, "hidden_dim": d_ff, "vocab_size": V, "max_position_embeddings": P,
              "activation": "gelu", "sinusoidal_pos_embds": False, "pad_token_id": 0}

    def forward(t, config, ids, ablated):
        w = lambda name: tensor(t, name)  # noqa: E731
        eps = 1e-12  # DistilBERT's LayerNorms
        ids_t = torch.tensor(ids)
        e = p0 + "embeddings."
        x = w(e + "word_embeddings.weight")[ids_t] + w(e + "position_embeddings.weight")[torch.arange(len(ids))]
        x = F.layer_norm(x, (d,), w(e + "LayerNorm.weight"), w(e + "LayerNorm.bias"), eps)
        hidden, attentions = [x], []
        for l in range(L):
            p = f"{p0}transformer.layer.{l}."
            lin = lambda stem: (w(p + stem + ".weight"), w(p + stem + ".bias"))  # noqa: E731
            out, a = attention(x, x, *lin("attention.q_lin"), *lin("attention.k_lin"), *lin("attention.v_lin"),
                               *lin("attention.out_lin"), h, False, ablated.get(l, ()))
            x = F.layer_norm(out + x, (d,), *lin("sa_layer_norm"), eps)
            f = F.linear(F.gelu(F.linear(x, *lin("ffn.lin1"))), *lin("ffn.lin2"))
            x = F.layer_norm(f + x, (d,), *lin("output_layer_norm"), eps)
            hidden.append(x)
            attentions.append(a)
        z = F.gelu(F.linear(x, w("vocab_transform.weight"), w("vocab_transform.bias")))
        z = F.layer_norm(z, (d,), w("vocab_layer_norm.weight"), w("vocab_layer_norm.bias"), eps)
        logits = z @ w(e + "word_embeddings.weight").T + w("vocab_projector.bias")
        return attentions, hidden, logits

    write_case(path, t, config, [5, 17, 99, 42, 8, 0], [(0, 1), (1, 1)], forward)


# ---- GPT-2 (modeling_gpt2.py) ------------------------------------------------------------------------

def gpt2(name, prefix, V, ids, P=20, d=32, L=3, h=4, tokenizer=False):
    path = folder(name)
    d_ff = 4 * d  # n_inner null
    t = {prefix + "wte.weight": normal(V, d, scale=0.5), prefix + "wpe.weight": normal(P, d, scale=0.3),
         prefix + "ln_f.weight": 1 + normal(d, scale=0.1), prefix + "ln_f.bias": normal(d, scale=0.1)}
    for l in range(L):
        p = f"{prefix}h.{l}."
        t[p + "attn.c_attn.weight"], t[p + "attn.c_attn.bias"] = normal(d, 3 * d), normal(3 * d, scale=0.1)
        t[p + "attn.c_proj.weight"], t[p + "attn.c_proj.bias"] = normal(d, d), normal(d, scale=0.1)
        t[p + "mlp.c_fc.weight"], t[p + "mlp.c_fc.bias"] = normal(d, d_ff), normal(d_ff, scale=0.1)
        t[p + "mlp.c_proj.weight"], t[p + "mlp.c_proj.bias"] = normal(d_ff, d), normal(d, scale=0.1)
        for norm in ("ln_1", "ln_2"):
            t[p + norm + ".weight"], t[p + norm + ".bias"] = 1 + normal(d, scale=0.1), normal(d, scale=0.1)
        t[p + "attn.bias"] = np.tril(np.ones((1, 1, P, P), bool))  # the causal mask buffer older files keep
    config = {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "n_embd": d, "n_head": h,
              "n_layer": L, "n_inner": None, "vocab_size": V, "n_positions": P,
              "activation_function": "gelu_new", "layer_norm_epsilon": 1e-5, "tie_word_embeddings": True}

    def forward(t, config, ids, ablated):
        w = lambda name: tensor(t, name)  # noqa: E731
        eps = config["layer_norm_epsilon"]
        x = w(prefix + "wte.weight")[torch.tensor(ids)] + w(prefix + "wpe.weight")[torch.arange(len(ids))]
        hidden, attentions = [], []
        for l in range(L):
            hidden.append(x)
            p = f"{prefix}h.{l}."
            ln = lambda norm, v: F.layer_norm(v, (d,), w(p + norm + ".weight"), w(p + norm + ".bias"), eps)  # noqa
            # Conv1D: y = x W + b with W in x out; as nn.Linear weights, W^T.
            c_attn_w, c_attn_b = w(p + "attn.c_attn.weight"), w(p + "attn.c_attn.bias")
            wq, wk, wv = (c_attn_w[:, i * d:(i + 1) * d].T for i in range(3))
            bq, bk, bv = (c_attn_b[i * d:(i + 1) * d] for i in range(3))
            a_in = ln("ln_1", x)
            out, a = attention(a_in, a_in, wq, bq, wk, bk, wv, bv, w(p + "attn.c_proj.weight").T,
                               w(p + "attn.c_proj.bias"), h, True, ablated.get(l, ()))
            x = x + out
            m = gelu_new(ln("ln_2", x) @ w(p + "mlp.c_fc.weight") + w(p + "mlp.c_fc.bias"))
            x = x + m @ w(p + "mlp.c_proj.weight") + w(p + "mlp.c_proj.bias")
            attentions.append(a)
        x = F.layer_norm(x, (d,), w(prefix + "ln_f.weight"), w(prefix + "ln_f.bias"), eps)
        hidden.append(x)
        return attentions, hidden, x @ w(prefix + "wte.weight").T  # lm_head tied to wte

    if tokenizer:
        shutil.copyfile(os.path.join(TOKENIZERS, "bpe_vocab.json"), os.path.join(path, "vocab.json"))
        shutil.copyfile(os.path.join(TOKENIZERS, "bpe_merges.txt"), os.path.join(path, "merges.txt"))
    write_case(path, t, config, ids, [(L - 1, 1), (1, 0), (1, 3)], forward)


if __name__ == "__main__":
    torch.set_default_dtype(torch.float64)
    bert()
    roberta()
    distilbert()
    with open(os.path.join(HERE, "..", "tokenizers", "bpe_vocab.json")) as f:
        bpe_size = len(json.load(f))
    gpt2("gpt2", "transformer.", bpe_size, [31, 7, 250, 12, 99, 3, 64, 5], tokenizer=True)
    gpt2("gpt2_bare", "", 90, [3, 88, 41, 0, 12], L=2)
