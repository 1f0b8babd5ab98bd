#!/usr/bin/python3
"""Tiny synthetic checkpoints of the decoder families of 2024-2026 that load as LLaMA-style
models, and an independent PyTorch forward of each (the files and reference.json as
make_seq2seq_fixtures.py describes them for llama/):

  llama3/  LLaMA 3.2-shaped: rope_scaling of rope_type llama3 (factor, low_freq_factor,
           high_freq_factor, original_max_position_embeddings) and tied embeddings (no lm_head).
           The sizes put one rotary pair in each of llama3's three regimes: d_k 16, rope_theta
           500000 and original_max_position_embeddings 64 give wavelengths 6.3 (kept, below 64/4),
           32 (smoothed, between 16 and 64) and 167 and up (divided by factor 8).
  qwen2/   Qwen2/2.5-shaped: q, k and v biases and no o bias (Qwen2Attention), rope_theta 1e6,
           use_sliding_window false.
  qwen3/   Qwen3-shaped: q_norm and k_norm (an RMSNorm over each head's d_k, before rotary),
           heads wider than d_model / h (head_dim 16 at hidden_size 32, 4 heads), tied
           embeddings, rope_theta 1e6.
  mistral/ Mistral-shaped: sliding_window 4 on a 12-token prompt, so that from the fifth token on
           each query sees only its 4 latest keys (masking_utils' sliding_window_overlay).

The rotary frequencies follow transformers' modeling_rope_utils (_compute_llama3_parameters)
and the blocks modeling_llama.py / modeling_qwen2.py, with torch.nn.functional only; nothing
goes through the app's conventions. Run with /usr/bin/python3 (Debian's, torch and numpy).
"""
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_seq2seq_fixtures import (as_torch, folder, head_mask_for, lin, llama_weights, rms_norm,  # noqa: E402
                                   rotate_half, save, save_decoder_run, write_json, write_safetensors)

torch.set_default_dtype(torch.float64)


def default_inv_freq(d_k, theta):
    return 1.0 / (theta ** (torch.arange(0, d_k, 2, dtype=torch.float64) / d_k))


def llama3_inv_freq(d_k, theta, scaling):
    """_compute_llama3_parameters: three regimes by wavelength against the original context."""
    inv_freq = default_inv_freq(d_k, theta)
    factor, low, high = scaling["factor"], scaling["low_freq_factor"], scaling["high_freq_factor"]
    old_context = scaling["original_max_position_embeddings"]
    low_wavelen, high_wavelen = old_context / low, old_context / high
    wavelen = 2 * math.pi / inv_freq
    scaled = torch.where(wavelen > low_wavelen, inv_freq / factor, inv_freq)
    smooth = (old_context / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    medium = ~(wavelen < high_wavelen) * ~(wavelen > low_wavelen)
    return torch.where(medium, smoothed, scaled)


def inv_freq_of(c, d_k):
    scaling = c.get("rope_scaling")
    if scaling is None:
        return default_inv_freq(d_k, c["rope_theta"])
    assert scaling["rope_type"] == "llama3"
    return llama3_inv_freq(d_k, c["rope_theta"], scaling)


def rotary(x, inv_freq):
    """apply_rotary_pos_emb on heads x n x d_k at positions 0..n-1."""
    n = x.shape[-2]
    freqs = torch.outer(torch.arange(n, dtype=torch.float64), inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    return x * emb.cos() + rotate_half(x) * emb.sin()


def self_attention(w, p, x, c, head_mask):
    h, g = c["num_attention_heads"], c["num_key_value_heads"]
    d_k = c.get("head_dim") or c["hidden_size"] // h
    n = x.shape[0]
    q = lin(w, f"{p}.q_proj", x).view(n, h, d_k)
    k = lin(w, f"{p}.k_proj", x).view(n, g, d_k)
    if f"{p}.q_norm.weight" in w:  # Qwen3Attention: q_norm and k_norm over each head's d_k, before rotary
        q = rms_norm(w, f"{p}.q_norm", q, c["rms_norm_eps"])
        k = rms_norm(w, f"{p}.k_norm", k, c["rms_norm_eps"])
    q, k = q.transpose(0, 1), k.transpose(0, 1)
    v = lin(w, f"{p}.v_proj", x).view(n, g, d_k).transpose(0, 1)
    inv_freq = inv_freq_of(c, d_k)
    q, k = rotary(q, inv_freq), rotary(k, inv_freq)
    k = k.repeat_interleave(h // g, dim=0)
    v = v.repeat_interleave(h // g, dim=0)
    scores = q @ k.transpose(1, 2) / math.sqrt(d_k)
    masked = torch.triu(torch.ones(n, n, dtype=torch.bool), 1)
    window = c.get("sliding_window") if c.get("use_sliding_window", True) else None
    if window:  # masking_utils' sliding_window_overlay: key kv is seen by query q when kv > q - window
        masked |= torch.tril(torch.ones(n, n, dtype=torch.bool), -window)
    scores = scores.masked_fill(masked, float("-inf"))
    a = F.softmax(scores, dim=-1)
    used = a if head_mask is None else a * head_mask.view(h, 1, 1)
    return a, lin(w, f"{p}.o_proj", (used @ v).transpose(0, 1).reshape(n, h * d_k))


def forward(w, c, ids, ablate=None):
    eps = c["rms_norm_eps"]
    x = w["model.embed_tokens.weight"][ids]
    hidden, attentions = [x], []
    for i in range(c["num_hidden_layers"]):
        p = f"model.layers.{i}"
        a, out = self_attention(w, f"{p}.self_attn", rms_norm(w, f"{p}.input_layernorm", x, eps), c,
                                head_mask_for(i, ablate, c["num_attention_heads"]))
        attentions.append(a)
        x = x + out
        normed = rms_norm(w, f"{p}.post_attention_layernorm", x, eps)
        x = x + lin(w, f"{p}.mlp.down_proj", F.silu(lin(w, f"{p}.mlp.gate_proj", normed)) * lin(w, f"{p}.mlp.up_proj", normed))
        hidden.append(x)
    final = rms_norm(w, "model.norm", x, eps)
    head = w["model.embed_tokens.weight"] if c["tie_word_embeddings"] else w["lm_head.weight"]
    return attentions, hidden, final, final @ head.T


def family(name, c, ids, ablate, qkv_bias=False, qk_norm=False):
    path = folder(name)
    tensors = llama_weights(c, qkv_bias, qk_norm)
    write_safetensors(os.path.join(path, "model.safetensors"), tensors)
    write_json(path, "config.json", c)
    w = as_torch(tensors)
    save_decoder_run(path, lambda token_ids, ablated: forward(w, c, token_ids, ablated), ids, ablate,
                     c["num_hidden_layers"])
    d_k = c.get("head_dim") or c["hidden_size"] // c["num_attention_heads"]
    save(path, "rotary_frequencies.npy", inv_freq_of(c, d_k).view(1, -1))


LLAMA3 = {
    "model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 32,
    "intermediate_size": 48, "num_hidden_layers": 2, "num_attention_heads": 2,
    "num_key_value_heads": 1, "head_dim": 16, "hidden_act": "silu", "rms_norm_eps": 1e-5,
    "rope_theta": 500000.0,
    "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                     "original_max_position_embeddings": 64, "rope_type": "llama3"},
    "max_position_embeddings": 512, "vocab_size": 40, "bos_token_id": 1, "eos_token_id": 2,
    "tie_word_embeddings": True, "attention_bias": False, "mlp_bias": False, "torch_dtype": "float32",
}

QWEN2 = {
    "model_type": "qwen2", "architectures": ["Qwen2ForCausalLM"], "hidden_size": 32,
    "intermediate_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
    "num_key_value_heads": 2, "hidden_act": "silu", "rms_norm_eps": 1e-6, "rope_theta": 1000000.0,
    "rope_scaling": None, "use_sliding_window": False, "sliding_window": 4096, "max_window_layers": 2,
    "max_position_embeddings": 128, "vocab_size": 44, "bos_token_id": 1, "eos_token_id": 2,
    "tie_word_embeddings": False, "torch_dtype": "float32",
}

MISTRAL = {
    "model_type": "mistral", "architectures": ["MistralForCausalLM"], "hidden_size": 32,
    "intermediate_size": 56, "num_hidden_layers": 2, "num_attention_heads": 4,
    "num_key_value_heads": 1, "head_dim": 8, "hidden_act": "silu", "rms_norm_eps": 1e-5,
    "rope_theta": 10000.0, "sliding_window": 4, "max_position_embeddings": 256, "vocab_size": 36,
    "bos_token_id": 1, "eos_token_id": 2, "tie_word_embeddings": False, "torch_dtype": "float32",
}

QWEN3 = {
    "model_type": "qwen3", "architectures": ["Qwen3ForCausalLM"], "hidden_size": 32,
    "intermediate_size": 48, "num_hidden_layers": 2, "num_attention_heads": 4,
    "num_key_value_heads": 2, "head_dim": 16, "hidden_act": "silu", "rms_norm_eps": 1e-6,
    "rope_theta": 1000000.0, "rope_scaling": None, "attention_bias": False, "use_sliding_window": False,
    "sliding_window": None, "max_window_layers": 2, "max_position_embeddings": 128, "vocab_size": 48,
    "bos_token_id": 1, "eos_token_id": 2, "tie_word_embeddings": True, "torch_dtype": "float32",
}


if __name__ == "__main__":
    # Positions up to 19: the slow pairs turn by less than the unscaled ones, visibly.
    family("llama3", LLAMA3, ids=[1, 9, 33, 4, 17, 25, 9, 33, 4, 12, 38, 6, 21, 9, 33, 4, 30, 2, 15, 27],
           ablate=[1, 0])
    family("qwen2", QWEN2, ids=[1, 8, 41, 3, 26, 13, 8, 41, 19, 2], ablate=[0, 3], qkv_bias=True)
    family("mistral", MISTRAL, ids=[1, 5, 22, 9, 31, 5, 22, 14, 3, 27, 5, 22], ablate=[1, 2])
    family("qwen3", QWEN3, ids=[1, 11, 40, 7, 29, 11, 40, 18, 45, 3, 2], ablate=[1, 3], qk_norm=True)
