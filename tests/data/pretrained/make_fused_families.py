#!/usr/bin/python3
"""Tiny synthetic checkpoints of three decoder families whose tensors are not LLaMA's, and an
independent PyTorch forward of each (the files and reference.json as make_seq2seq_fixtures.py
describes them for llama/; each folder holds config.json, model.safetensors and exactly what
save_decoder_run writes):

  phi3/    Phi-3-shaped (modeling_phi3.py): one fused self_attn.qkv_proj (rows: the h*d_k query
           rows, then the g*d_k key rows, then the g*d_k value rows; 4 heads, 2 key/value heads),
           one fused mlp.gate_up_proj (Phi3MLP: gate, up = gate_up_proj(x).chunk(2), the gate is
           the first intermediate_size rows; down_proj(up * silu(gate))), partial_rotary_factor
           0.5 (as Phi-4-mini's 0.75: only the first int(d_k * 0.5) = 4 of each head's 8 dims
           rotate, with frequencies over that rotary dim, the rest pass through), and
           sliding_window 5 (Phi3Model: create_sliding_window_causal_mask whenever
           config.sliding_window is not None, on every layer).
  pythia/  GPT-NeoX / Pythia-shaped (modeling_gpt_neox.py): names under gpt_neox. and embed_out,
           LayerNorms with biases, a fused attention.query_key_value laid out per head (the output
           viewed as n x h x 3*d_k: head j's query, key and value are its rows
           [3j*d_k, (3j+1)*d_k), [(3j+1)*d_k, (3j+2)*d_k), [(3j+2)*d_k, (3j+3)*d_k)), rotary_pct
           0.25 on 16-wide heads (the first 4 dims rotate), the parallel residual
           (x + attn(input_layernorm(x)) + mlp(post_attention_layernorm(x))) and erf GELU. Like
           the Pythia checkpoints on the Hub, model.safetensors also holds each attention's
           registered buffers, which are no weights: attention.bias (the causal mask, U8
           1 x 1 x max_position_embeddings x max_position_embeddings), attention.masked_bias (a
           scalar, -1e9) and attention.rotary_emb.inv_freq (rotary_ndims / 2 values).
  olmo2/   OLMo 2-shaped (modeling_olmo2.py): q_norm and k_norm are RMSNorms over the whole
           query (h*d_k) and key (g*d_k) projections, before the split into heads and rotary; no
           norm before the sublayers, a norm on each sublayer's output instead
           (x + post_attention_layernorm(attn(x)), then x + post_feedforward_layernorm(mlp(x))),
           rope_theta 500000, 4 heads and 2 key/value heads.

The forwards follow transformers' modeling_phi3.py, modeling_gpt_neox.py, modeling_olmo2.py,
masking_utils.py (sliding_window_overlay) and modeling_rope_utils.py (the default rotary with a
partial_rotary_factor) with torch.nn.functional only; nothing goes through the app's conventions.
Run with /usr/bin/python3 (Debian's, torch and numpy).
"""
import json
import math
import os
import struct
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_seq2seq_fixtures import (as_torch, folder, head_mask_for, layer_norm, lin, linear, norm,  # noqa: E402
                                   normal, rms_norm, rotate_half, save_decoder_run, write_json,
                                   write_safetensors)

torch.set_default_dtype(torch.float64)


# ---- the pieces the three families share ------------------------------------------------------

def inv_freq_for(d_k, fraction, theta):
    """modeling_rope_utils' default rotary: dim = int(head_dim * partial_rotary_factor),
    inv_freq = 1 / theta^(arange(0, dim, 2) / dim)."""
    dim = int(d_k * fraction)
    return 1.0 / (theta ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim))


def partial_rotary(x, inv_freq):
    """apply_rotary_pos_emb (Phi-3's and GPT-NeoX's) on heads x n x d_k at positions 0..n-1: the
    first 2 * len(inv_freq) dims rotate (rotate_half within them), the others pass through."""
    rotary_dim, n = 2 * inv_freq.numel(), x.shape[-2]
    freqs = torch.outer(torch.arange(n, dtype=torch.float64), inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    x_rot, x_pass = x[..., :rotary_dim], x[..., rotary_dim:]
    return torch.cat((x_rot * emb.cos() + rotate_half(x_rot) * emb.sin(), x_pass), dim=-1)


def attend(q, k, v, head_mask, window=None):
    """eager_attention_forward on q (h x n x d_k), k and v (g x n x d_k): repeat_kv, scores times
    d_k^-0.5, the causal mask (with masking_utils' sliding_window_overlay when window is set: key
    kv is seen by query q when kv <= q and kv > q - window), softmax, the head mask on the weights.
    Returns (h x n x n attention, n x h*d_k heads)."""
    h, n, d_k = q.shape
    k = k.repeat_interleave(h // k.shape[0], dim=0)
    v = v.repeat_interleave(h // v.shape[0], dim=0)
    scores = (q @ k.transpose(1, 2)) * d_k ** -0.5
    masked = torch.triu(torch.ones(n, n, dtype=torch.bool), 1)
    if window is not None:
        masked |= torch.tril(torch.ones(n, n, dtype=torch.bool), -window)
    a = F.softmax(scores.masked_fill(masked, float("-inf")), dim=-1)
    used = a if head_mask is None else a * head_mask.view(h, 1, 1)
    return a, (used @ v).transpose(0, 1).reshape(n, h * d_k)


def heads(x, count, d_k):
    """n x count*d_k -> count x n x d_k (view(hidden_shape).transpose(1, 2))."""
    return x.view(x.shape[0], count, d_k).transpose(0, 1)


def make(name, c, tensors, forward, ids, ablate, layer_name="model.layers.{i}.self_attn", ):
    path = folder(name)
    write_safetensors(os.path.join(path, "model.safetensors"), tensors)
    write_json(path, "config.json", c)
    w = as_torch({k: v for k, v in tensors.items() if v.dtype == np.float32})
    run = lambda token_ids, ablated: forward(w, c, token_ids, ablated)  # noqa: E731
    full, ablated = run(torch.tensor(ids), None)[3], run(torch.tensor(ids), ablate)[3]
    change = (full - ablated).abs().max().item()
    assert change > 0.1, f"{name}: ablating head {ablate} changes the logits by only {change}"
    save_decoder_run(path, run, ids, ablate, c["num_hidden_layers"], layer_name)
    return change


# ---- Phi-3 -----------------------------------------------------------------------------------------

PHI3 = {
    "model_type": "phi3", "architectures": ["Phi3ForCausalLM"], "attention_bias": False,
    "attention_dropout": 0.0, "bos_token_id": 1, "embd_pdrop": 0.0, "eos_token_id": 2,
    "hidden_act": "silu", "hidden_size": 32, "initializer_range": 0.02, "intermediate_size": 48,
    "max_position_embeddings": 64, "num_attention_heads": 4, "num_hidden_layers": 2,
    "num_key_value_heads": 2, "original_max_position_embeddings": 64, "pad_token_id": 2,
    "partial_rotary_factor": 0.5, "resid_pdrop": 0.0, "rms_norm_eps": 1e-5, "rope_scaling": None,
    "rope_theta": 10000.0, "sliding_window": 5, "tie_word_embeddings": False, "torch_dtype": "float32",
    "use_cache": True, "vocab_size": 52,
}


def phi3_weights(c):
    d, h, g, f = c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"], c["intermediate_size"]
    d_k = d // h
    t = {"model.embed_tokens.weight": normal((c["vocab_size"], d), 1.0)}
    for i in range(c["num_hidden_layers"]):
        p = f"model.layers.{i}"
        norm(t, f"{p}.input_layernorm", d, bias=False)
        # op_size = h*d_k + 2*g*d_k rows: query, key, value
        t[f"{p}.self_attn.qkv_proj.weight"] = np.concatenate(
            [normal((h * d_k, d), 0.25), normal((g * d_k, d), 0.25), normal((g * d_k, d), 1.0 / math.sqrt(d))])
        linear(t, f"{p}.self_attn.o_proj", d, h * d_k, bias=False)
        norm(t, f"{p}.post_attention_layernorm", d, bias=False)
        linear(t, f"{p}.mlp.gate_up_proj", 2 * f, d, bias=False)  # rows [0, f): gate, [f, 2f): up
        linear(t, f"{p}.mlp.down_proj", d, f, bias=False)
    norm(t, "model.norm", d, bias=False)
    linear(t, "lm_head", c["vocab_size"], d, bias=False)
    return t


def phi3_forward(w, c, ids, ablate=None):
    eps, h, g = c["rms_norm_eps"], c["num_attention_heads"], c["num_key_value_heads"]
    d_k = c["hidden_size"] // h
    inv_freq = inv_freq_for(d_k, c.get("partial_rotary_factor", 1.0), c["rope_theta"])
    x = w["model.embed_tokens.weight"][ids]
    hidden, attentions = [x], []
    for i in range(c["num_hidden_layers"]):
        p = f"model.layers.{i}"
        qkv = lin(w, f"{p}.self_attn.qkv_proj", rms_norm(w, f"{p}.input_layernorm", x, eps))
        q = heads(qkv[:, :h * d_k], h, d_k)
        k = heads(qkv[:, h * d_k:(h + g) * d_k], g, d_k)
        v = heads(qkv[:, (h + g) * d_k:], g, d_k)
        a, out = attend(partial_rotary(q, inv_freq), partial_rotary(k, inv_freq), v,
                        head_mask_for(i, ablate, h), c["sliding_window"])
        attentions.append(a)
        x = x + lin(w, f"{p}.self_attn.o_proj", out)
        gate, up = lin(w, f"{p}.mlp.gate_up_proj", rms_norm(w, f"{p}.post_attention_layernorm", x, eps)).chunk(2, dim=-1)
        x = x + lin(w, f"{p}.mlp.down_proj", up * F.silu(gate))
        hidden.append(x)
    final = rms_norm(w, "model.norm", x, eps)
    return attentions, hidden, final, final @ w["lm_head.weight"].T


# ---- GPT-NeoX / Pythia ---------------------------------------------------------------------------

PYTHIA = {
    "architectures": ["GPTNeoXForCausalLM"], "bos_token_id": 0, "eos_token_id": 0, "hidden_act": "gelu",
    "hidden_size": 32, "initializer_range": 0.02, "intermediate_size": 128, "layer_norm_eps": 1e-5,
    "max_position_embeddings": 64, "model_type": "gpt_neox", "num_attention_heads": 2,
    "num_hidden_layers": 2, "rotary_emb_base": 10000, "rotary_pct": 0.25, "tie_word_embeddings": False,
    "torch_dtype": "float32", "use_cache": True, "use_parallel_residual": True, "vocab_size": 48,
}


def pythia_weights(c):
    d, h, f, positions = c["hidden_size"], c["num_attention_heads"], c["intermediate_size"], c["max_position_embeddings"]
    d_k = d // h
    t = {"gpt_neox.embed_in.weight": normal((c["vocab_size"], d), 1.0)}
    for i in range(c["num_hidden_layers"]):
        p = f"gpt_neox.layers.{i}"
        norm(t, f"{p}.input_layernorm", d)
        norm(t, f"{p}.post_attention_layernorm", d)
        # per head j: rows [3j d_k, (3j+1) d_k) query, then key, then value
        rows = [normal((d_k, d), s) for _ in range(h) for s in (0.25, 0.25, 1.0 / math.sqrt(d))]
        t[f"{p}.attention.query_key_value.weight"] = np.concatenate(rows)
        t[f"{p}.attention.query_key_value.bias"] = normal((3 * d,), 0.1)
        linear(t, f"{p}.attention.dense", d, d)
        linear(t, f"{p}.mlp.dense_h_to_4h", f, d)
        linear(t, f"{p}.mlp.dense_4h_to_h", d, f)
        # GPTNeoXAttention's registered buffers, as the Hub's Pythia checkpoints hold them
        causal = np.tril(np.ones((positions, positions), np.uint8))
        t[f"{p}.attention.bias"] = causal.reshape(1, 1, positions, positions)
        t[f"{p}.attention.masked_bias"] = np.array(-1e9, np.float32)
        inv_freq = inv_freq_for(d_k, c["rotary_pct"], c["rotary_emb_base"])
        t[f"{p}.attention.rotary_emb.inv_freq"] = inv_freq.numpy().astype(np.float32)
    norm(t, "gpt_neox.final_layer_norm", d)
    linear(t, "embed_out", c["vocab_size"], d, bias=False)
    return t


def pythia_forward(w, c, ids, ablate=None):
    eps, h = c["layer_norm_eps"], c["num_attention_heads"]
    d_k = c["hidden_size"] // h
    inv_freq = inv_freq_for(d_k, c["rotary_pct"], c["rotary_emb_base"])
    x = w["gpt_neox.embed_in.weight"][ids]
    n = x.shape[0]
    hidden, attentions = [x], []
    for i in range(c["num_hidden_layers"]):
        p = f"gpt_neox.layers.{i}"
        qkv = lin(w, f"{p}.attention.query_key_value", layer_norm(w, f"{p}.input_layernorm", x, eps)).view(n, h, 3 * d_k)
        q, k, v = (qkv[..., j * d_k:(j + 1) * d_k].transpose(0, 1) for j in range(3))
        a, out = attend(partial_rotary(q, inv_freq), partial_rotary(k, inv_freq), v, head_mask_for(i, ablate, h))
        attentions.append(a)
        attention_out = lin(w, f"{p}.attention.dense", out)
        mlp_in = layer_norm(w, f"{p}.post_attention_layernorm", x, eps)  # the same x: parallel residual
        mlp_out = lin(w, f"{p}.mlp.dense_4h_to_h", F.gelu(lin(w, f"{p}.mlp.dense_h_to_4h", mlp_in)))
        x = mlp_out + attention_out + x
        hidden.append(x)
    final = layer_norm(w, "gpt_neox.final_layer_norm", x, eps)
    return attentions, hidden, final, final @ w["embed_out.weight"].T


# ---- OLMo 2 ----------------------------------------------------------------------------------------

OLMO2 = {
    "architectures": ["Olmo2ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
    "bos_token_id": None, "eos_token_id": 2, "hidden_act": "silu", "hidden_size": 32,
    "initializer_range": 0.02, "intermediate_size": 64, "max_position_embeddings": 64,
    "model_type": "olmo2", "num_attention_heads": 4, "num_hidden_layers": 2, "num_key_value_heads": 2,
    "pad_token_id": 3, "rms_norm_eps": 1e-6, "rope_scaling": None, "rope_theta": 500000,
    "tie_word_embeddings": False, "torch_dtype": "float32", "use_cache": True, "vocab_size": 56,
}


def olmo2_weights(c):
    d, h, g, f = c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"], c["intermediate_size"]
    d_k = d // h
    t = {"model.embed_tokens.weight": normal((c["vocab_size"], d), 1.0)}
    for i in range(c["num_hidden_layers"]):
        p = f"model.layers.{i}"
        linear(t, f"{p}.self_attn.q_proj", h * d_k, d, bias=False, scale=0.25)
        linear(t, f"{p}.self_attn.k_proj", g * d_k, d, bias=False, scale=0.25)
        linear(t, f"{p}.self_attn.v_proj", g * d_k, d, bias=False)
        linear(t, f"{p}.self_attn.o_proj", d, h * d_k, bias=False)
        norm(t, f"{p}.self_attn.q_norm", h * d_k, bias=False)
        norm(t, f"{p}.self_attn.k_norm", g * d_k, bias=False)
        norm(t, f"{p}.post_attention_layernorm", d, bias=False)
        linear(t, f"{p}.mlp.gate_proj", f, d, bias=False)
        linear(t, f"{p}.mlp.up_proj", f, d, bias=False)
        linear(t, f"{p}.mlp.down_proj", d, f, bias=False)
        norm(t, f"{p}.post_feedforward_layernorm", d, bias=False)
    norm(t, "model.norm", d, bias=False)
    linear(t, "lm_head", c["vocab_size"], d, bias=False)
    return t


def olmo2_forward(w, c, ids, ablate=None):
    eps, h, g = c["rms_norm_eps"], c["num_attention_heads"], c["num_key_value_heads"]
    d_k = c["hidden_size"] // h
    inv_freq = inv_freq_for(d_k, 1.0, c["rope_theta"])
    x = w["model.embed_tokens.weight"][ids]
    hidden, attentions = [x], []
    for i in range(c["num_hidden_layers"]):
        p = f"model.layers.{i}.self_attn"
        q = heads(rms_norm(w, f"{p}.q_norm", lin(w, f"{p}.q_proj", x), eps), h, d_k)
        k = heads(rms_norm(w, f"{p}.k_norm", lin(w, f"{p}.k_proj", x), eps), g, d_k)
        v = heads(lin(w, f"{p}.v_proj", x), g, d_k)
        a, out = attend(partial_rotary(q, inv_freq), partial_rotary(k, inv_freq), v, head_mask_for(i, ablate, h))
        attentions.append(a)
        p = f"model.layers.{i}"
        x = x + rms_norm(w, f"{p}.post_attention_layernorm", lin(w, f"{p}.self_attn.o_proj", out), eps)
        mlp = lin(w, f"{p}.mlp.down_proj", F.silu(lin(w, f"{p}.mlp.gate_proj", x)) * lin(w, f"{p}.mlp.up_proj", x))
        x = x + rms_norm(w, f"{p}.post_feedforward_layernorm", mlp, eps)
        hidden.append(x)
    final = rms_norm(w, "model.norm", x, eps)
    return attentions, hidden, final, final @ w["lm_head.weight"].T


if __name__ == "__main__":
    # Each ablated head changes its logits by more than 0.1 (make asserts it): phi3 1.32, pythia 1.33,
    # olmo2 1.97.
    make("phi3", PHI3, phi3_weights(PHI3), phi3_forward,
         ids=[1, 7, 30, 12, 45, 7, 30, 21, 4, 50, 7, 30, 16], ablate=[1, 1])
    make("pythia", PYTHIA, pythia_weights(PYTHIA), pythia_forward,
         ids=[0, 9, 27, 14, 40, 9, 27, 5, 33, 9, 27, 18], ablate=[1, 0],
         layer_name="gpt_neox.layers.{i}.attention")
    make("olmo2", OLMO2, olmo2_weights(OLMO2), olmo2_forward,
         ids=[1, 13, 44, 6, 29, 13, 44, 52, 8, 13, 44, 37], ablate=[1, 2])
