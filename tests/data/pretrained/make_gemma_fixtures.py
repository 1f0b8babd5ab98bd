#!/usr/bin/python3
"""Tiny synthetic Gemma 2 and Gemma 3 (text) checkpoints and an independent PyTorch forward of
each (the files and reference.json as make_seq2seq_fixtures.py describes them for llama/):

  gemma2/  Gemma2ForCausalLM-shaped, config.json without "layer_types" (as the released Gemma 2
           configs): Gemma2Config's default makes layer i sliding when (i + 1) % 2 != 0, so
           layers 0 and 2 are sliding (window 4 on a 13-token prompt) and 1 and 3 global.
           Attention logits soft-capped (tanh(s / 2) * 2, after the query_pre_attn_scalar ** -0.5
           scale and before the mask), final logits soft-capped at 10, head_dim 16 at hidden_size
           32 with 4 heads, query_pre_attn_scalar 24 (not head_dim), one rotary (rope_theta 1e4).
  gemma3/  Gemma3ForCausalLM-shaped (model_type gemma3_text): q_norm and k_norm (Gemma RMSNorms
           over each head's head_dim, after the projections and before rotary), no soft-capping,
           "layer_types" [sliding x 3, full] with the older "sliding_window_pattern" 4 beside it.
           Sliding layers turn by rope_local_base_freq (1e4, default rope), the full layer by
           rope_theta 1e6 with rope_scaling linear factor 8 (inverse frequencies divided by 8).

Shared by both, from transformers' modeling_gemma2.py / modeling_gemma3.py:
  - Gemma RMSNorm: x / sqrt(mean(x^2) + eps) * (1 + w); the weights are stored zero-centred.
  - the embeddings times sqrt(hidden_size) (Gemma2Model's normalizer, cast to the activations'
    dtype; Gemma3TextScaledWordEmbedding's embed_scale, cast to the weight's dtype): with the
    float32 checkpoint that is float32(sqrt(32)), used here.
  - the block: h += post_attention_layernorm(attn(input_layernorm(h)));
               h += post_feedforward_layernorm(mlp(pre_feedforward_layernorm(h))).
  - the MLP: down(gelu_tanh(gate(x)) * up(x)) (hidden_activation gelu_pytorch_tanh).
  - masking_utils' sliding window: key kv is seen by query q when q - window < kv <= q.
  - tied embeddings (no lm_head).

The hidden states are stored as the other decoder families store them: the scaled embeddings,
then every block's output before model.norm (hidden_states.npy), and the output of model.norm
(final_hidden.npy; Hugging Face's last output_hidden_states entry). torch.nn.functional only,
transformers is not imported. Run with /usr/bin/python3 (Debian's, torch and numpy).
"""
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_seq2seq_fixtures import (as_torch, folder, head_mask_for, lin, linear, normal,  # noqa: E402
                                   rotate_half, save_decoder_run, write_json, write_safetensors)

torch.set_default_dtype(torch.float64)


# ---- the forward, as transformers computes it -----------------------------------------------------

def gemma_rms_norm(w, name, x, eps):
    """GemmaRMSNorm (Gemma2RMSNorm, Gemma3RMSNorm): the weight is stored as an offset from 1."""
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * (1.0 + w[name + ".weight"])


def default_inv_freq(d_k, theta):
    return 1.0 / (theta ** (torch.arange(0, d_k, 2, dtype=torch.float64) / d_k))


def layer_types(c):
    """Gemma2Config: (i + 1) % 2; Gemma3TextConfig: (i + 1) % sliding_window_pattern (default 6),
    each only when config.json has no "layer_types"."""
    if "layer_types" in c:
        return c["layer_types"]
    pattern = 2 if c["model_type"] == "gemma2" else c.get("sliding_window_pattern", 6)
    return ["sliding_attention" if (i + 1) % pattern else "full_attention" for i in range(c["num_hidden_layers"])]


def inv_freq_of(c, kind):
    """Gemma 2: one rotary from rope_theta. Gemma 3 (Gemma3TextConfig.convert_rope_params_to_dict):
    full_attention takes rope_theta and rope_scaling, sliding_attention rope_local_base_freq with
    the default rope; linear scaling (_compute_linear_scaling_rope_parameters) divides by factor."""
    d_k = c["head_dim"]
    if c["model_type"] == "gemma2":
        return default_inv_freq(d_k, c["rope_theta"])
    if kind == "sliding_attention":
        return default_inv_freq(d_k, c["rope_local_base_freq"])
    inv_freq = default_inv_freq(d_k, c["rope_theta"])
    scaling = c.get("rope_scaling")
    if scaling is not None:
        assert scaling["rope_type"] == "linear"
        inv_freq = inv_freq / scaling["factor"]
    return inv_freq


def rotary(x, inv_freq):
    """apply_rotary_pos_emb on heads x n x d_k at positions 0..n-1."""
    n = x.shape[-2]
    freqs = torch.outer(torch.arange(n, dtype=torch.float64), inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    return x * emb.cos() + rotate_half(x) * emb.sin()


def attention_mask(n, window):
    """True where masked: causal_mask_function (kv <= q) and, for a sliding layer,
    sliding_window_overlay (kv > q - window)."""
    q = torch.arange(n).view(n, 1)
    kv = torch.arange(n).view(1, n)
    seen = kv <= q
    if window is not None:
        seen &= kv > q - window
    return ~seen


def self_attention(w, p, x, c, kind, head_mask, softcap=True):
    h, g, d_k = c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"]
    n, eps = x.shape[0], c["rms_norm_eps"]
    q = lin(w, f"{p}.q_proj", x).view(n, h, d_k)
    k = lin(w, f"{p}.k_proj", x).view(n, g, d_k)
    v = lin(w, f"{p}.v_proj", x).view(n, g, d_k).transpose(0, 1)
    if f"{p}.q_norm.weight" in w:  # Gemma3Attention: q_norm / k_norm over each head, before rotary
        q = gemma_rms_norm(w, f"{p}.q_norm", q, eps)
        k = gemma_rms_norm(w, f"{p}.k_norm", k, eps)
    inv_freq = inv_freq_of(c, kind)
    q, k = rotary(q.transpose(0, 1), inv_freq), rotary(k.transpose(0, 1), inv_freq)
    k = k.repeat_interleave(h // g, dim=0)  # repeat_kv
    v = v.repeat_interleave(h // g, dim=0)
    scores = q @ k.transpose(1, 2) * c["query_pre_attn_scalar"] ** -0.5
    cap = c.get("attn_logit_softcapping")
    if cap is not None and softcap:  # eager_attention_forward: tanh cap after scaling, before the mask
        scores = torch.tanh(scores / cap) * cap
    window = c["sliding_window"] if kind == "sliding_attention" else None
    scores = scores.masked_fill(attention_mask(n, window), float("-inf"))
    a = F.softmax(scores, dim=-1)
    used = a if head_mask is None else a * head_mask.view(h, 1, 1)
    return a, lin(w, f"{p}.o_proj", (used @ v).transpose(0, 1).reshape(n, h * d_k))


def embed_scale(c):
    """sqrt(hidden_size) rounded to the checkpoint's dtype (float32 here)."""
    return float(np.float32(c["hidden_size"] ** 0.5))


def forward(w, c, ids, ablate=None, softcap=True):
    eps = c["rms_norm_eps"]
    x = w["model.embed_tokens.weight"][ids] * embed_scale(c)
    hidden, attentions = [x], []
    kinds = layer_types(c)
    for i in range(c["num_hidden_layers"]):
        p = f"model.layers.{i}"
        a, out = self_attention(w, f"{p}.self_attn", gemma_rms_norm(w, f"{p}.input_layernorm", x, eps), c, kinds[i],
                                head_mask_for(i, ablate, c["num_attention_heads"]), softcap)
        attentions.append(a)
        x = x + gemma_rms_norm(w, f"{p}.post_attention_layernorm", out, eps)
        normed = gemma_rms_norm(w, f"{p}.pre_feedforward_layernorm", x, eps)
        gate = F.gelu(lin(w, f"{p}.mlp.gate_proj", normed), approximate="tanh")
        mlp = lin(w, f"{p}.mlp.down_proj", gate * lin(w, f"{p}.mlp.up_proj", normed))
        x = x + gemma_rms_norm(w, f"{p}.post_feedforward_layernorm", mlp, eps)
        hidden.append(x)
    final = gemma_rms_norm(w, "model.norm", x, eps)
    logits = final @ w["model.embed_tokens.weight"].T
    cap = c.get("final_logit_softcapping")
    if cap is not None and softcap:  # Gemma2ForCausalLM
        logits = torch.tanh(logits / cap) * cap
    return attentions, hidden, final, logits


# ---- random weights (float32 values, computed with in float64) ------------------------------------

def gemma_weights(c):
    d, h, g, f, d_k = (c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"],
                       c["intermediate_size"], c["head_dim"])
    t = {"model.embed_tokens.weight": normal((c["vocab_size"], d), 1.0)}

    def zero_centred(name, size):
        t[name + ".weight"] = normal((size,), 0.2)

    for i in range(c["num_hidden_layers"]):
        p = f"model.layers.{i}"
        zero_centred(f"{p}.input_layernorm", d)
        linear(t, f"{p}.self_attn.q_proj", h * d_k, d, bias=False, scale=0.3)
        linear(t, f"{p}.self_attn.k_proj", g * d_k, d, bias=False, scale=0.3)
        linear(t, f"{p}.self_attn.v_proj", g * d_k, d, bias=False)
        linear(t, f"{p}.self_attn.o_proj", d, h * d_k, bias=False)
        if c["model_type"] == "gemma3_text":
            zero_centred(f"{p}.self_attn.q_norm", d_k)
            zero_centred(f"{p}.self_attn.k_norm", d_k)
        zero_centred(f"{p}.post_attention_layernorm", d)
        zero_centred(f"{p}.pre_feedforward_layernorm", d)
        linear(t, f"{p}.mlp.gate_proj", f, d, bias=False)
        linear(t, f"{p}.mlp.up_proj", f, d, bias=False)
        linear(t, f"{p}.mlp.down_proj", d, f, bias=False)
        zero_centred(f"{p}.post_feedforward_layernorm", d)
    zero_centred("model.norm", d)
    return t


# ---- the checks and the files ---------------------------------------------------------------------

def check(c, w, ids, ablate):
    if "layer_types" in c and "sliding_window_pattern" in c:  # the older key says the same
        assert c["layer_types"] == layer_types({k: v for k, v in c.items() if k != "layer_types"})
    ids = torch.tensor(ids)
    attentions, _, final, logits = forward(w, c, ids)
    n = len(ids)
    for i, kind in enumerate(layer_types(c)):
        window = c["sliding_window"] if kind == "sliding_attention" else None
        outside = attention_mask(n, window)
        assert attentions[i][:, outside].abs().max() == 0.0, f"layer {i}: attention outside its mask"
        if window is not None:  # the window bites: some query sees fewer keys than causally
            assert (attention_mask(n, window) & ~attention_mask(n, None)).any()
    if c.get("attn_logit_softcapping") is not None:
        uncapped, _, _, _ = forward(w, c, ids, softcap=False)
        gap = max((a - b).abs().max().item() for a, b in zip(attentions, uncapped))
        assert gap > 1e-2, f"attention soft-capping does not bite ({gap})"
    if c.get("final_logit_softcapping") is not None:
        raw = final @ w["model.embed_tokens.weight"].T
        gap = (raw - logits).abs().max().item()
        assert gap > 1e-1, f"final logit soft-capping does not bite ({gap})"
    _, _, _, ablated = forward(w, c, ids, ablate)
    gap = (ablated - logits).abs().max().item()
    assert gap > 0.1, f"the ablated head does not matter ({gap})"
    assert layer_types(c)[ablate[0]] == "full_attention"
    return gap


def family(name, c, ids, ablate):
    path = folder(name)
    tensors = gemma_weights(c)
    write_safetensors(os.path.join(path, "model.safetensors"), tensors)
    write_json(path, "config.json", c)
    w = as_torch(tensors)
    gap = check(c, w, ids, ablate)
    save_decoder_run(path, lambda token_ids, ablated: forward(w, c, token_ids, ablated), ids, ablate,
                     c["num_hidden_layers"])
    print(f"{name}: layers {layer_types(c)}, ablated logits move by up to {gap:.3f}")


GEMMA2 = {
    "model_type": "gemma2", "architectures": ["Gemma2ForCausalLM"], "hidden_size": 32,
    "intermediate_size": 32, "num_hidden_layers": 4, "num_attention_heads": 4,
    "num_key_value_heads": 2, "head_dim": 16, "query_pre_attn_scalar": 24,
    "hidden_act": "gelu_pytorch_tanh", "hidden_activation": "gelu_pytorch_tanh", "rms_norm_eps": 1e-6,
    "rope_theta": 10000.0, "sliding_window": 4, "attn_logit_softcapping": 2.0,
    "final_logit_softcapping": 10.0, "cache_implementation": "hybrid", "max_position_embeddings": 64,
    "vocab_size": 48, "pad_token_id": 0, "eos_token_id": 1, "bos_token_id": 2, "attention_bias": False,
    "attention_dropout": 0.0, "initializer_range": 0.02, "tie_word_embeddings": True, "use_cache": True,
    "torch_dtype": "float32",
}

GEMMA3 = {
    "model_type": "gemma3_text", "architectures": ["Gemma3ForCausalLM"], "hidden_size": 32,
    "intermediate_size": 32, "num_hidden_layers": 4, "num_attention_heads": 4,
    "num_key_value_heads": 2, "head_dim": 16, "query_pre_attn_scalar": 24,
    "hidden_activation": "gelu_pytorch_tanh", "rms_norm_eps": 1e-6,
    "layer_types": ["sliding_attention", "sliding_attention", "sliding_attention", "full_attention"],
    "sliding_window_pattern": 4, "sliding_window": 4, "rope_local_base_freq": 10000.0,
    "rope_theta": 1000000.0, "rope_scaling": {"rope_type": "linear", "factor": 8.0},
    "attn_logit_softcapping": None, "final_logit_softcapping": None, "max_position_embeddings": 128,
    "vocab_size": 52, "pad_token_id": 0, "eos_token_id": 1, "bos_token_id": 2, "attention_bias": False,
    "attention_dropout": 0.0, "initializer_range": 0.02, "use_bidirectional_attention": False,
    "tie_word_embeddings": True, "use_cache": True, "torch_dtype": "float32",
}


if __name__ == "__main__":
    family("gemma2", GEMMA2, ids=[2, 9, 31, 17, 44, 9, 31, 6, 25, 9, 31, 40, 12], ablate=[3, 1])
    family("gemma3", GEMMA3, ids=[2, 14, 37, 8, 49, 14, 37, 21, 5, 14, 37, 30, 11, 44], ablate=[3, 2])
