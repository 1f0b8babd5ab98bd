#!/usr/bin/python3
"""Tiny synthetic LLaMA-style, BART and Marian checkpoints and an independent PyTorch forward of
each whole model (issue 18): every attention layer, the hidden states and the logits.

Each folder (llama/, bart/, marian/) holds what Hugging Face saves for the family:
  config.json        the keys the family's config class writes (model_type, sizes, eps, ...)
  model.safetensors  the tensors under their Hugging Face names and shapes (nn.Linear: out x in;
                     tied copies left out as save_pretrained leaves them out: BART and Marian
                     keep model.shared.weight only, Marian no sinusoidal table)
and the reference the tests compare with (float64, computed from the float32 weights):
  reference.json     the ids (decoder-only: "ids"; encoder-decoder: "source_ids", "target_ids"
                     and "decoder_input_ids" = target shifted right after decoder_start_token_id),
                     "layers" (module paths in model order: every encoder layer, then per decoder
                     layer its self- then its cross-attention), "ablate": [layer, head] of the
                     ablated run
  attention_K.npy    layer K's attention, h n_q x n_k (head blocks stacked)
  hidden_states.npy  decoder-only: (L + 1) n x d_model, the embeddings then every block's output
                     (before the final norm); final_hidden.npy: after model.norm
  encoder_hidden_states.npy, decoder_hidden_states.npy: the same per stack (no final norm in
                     BART or Marian)
  logits.npy         n x vocab (decoder-only: every position; encoder-decoder: every target
                     position)
  ablated_logits.npy, ablated_attention_K.npy (the last layer): the run with that head's
                     output zeroed (Hugging Face's head_mask: the head's A_i V_i is 0, W^O and
                     b^O unchanged)
marian/sinusoidal_positions.npy: Marian's table (max_position_embeddings x d_model) as
MarianSinusoidalPositionalEmbedding builds it: columns [0, d/2) sin, [d/2, d) cos.

The forward below follows transformers' modeling_llama.py, modeling_bart.py and
modeling_marian.py with torch.nn.functional only (transformers is not a dependency); it never
goes through the app's W^Q convention. Run with /usr/bin/python3 (Debian's, torch and numpy).
"""
import json
import math
import os
import struct

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
torch.set_default_dtype(torch.float64)
rng = np.random.default_rng(18)


# ---- files -------------------------------------------------------------------------------------

def write_safetensors(path, tensors):
    """Every tensor as F32, except uint8 arrays (a checkpoint's mask buffers), kept as U8."""
    header, blobs, offset = {}, [], 0
    for name in sorted(tensors):
        u8 = tensors[name].dtype == np.uint8
        blob = tensors[name].tobytes() if u8 else tensors[name].astype("<f4").tobytes()
        header[name] = {"dtype": "U8" if u8 else "F32", "shape": list(tensors[name].shape),
                        "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    header["__metadata__"] = {"format": "pt"}
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def folder(name):
    path = os.path.join(HERE, name)
    os.makedirs(path, exist_ok=True)
    for old in os.listdir(path):
        if old.endswith(".npy"):
            os.remove(os.path.join(path, old))
    return path


def save(path, name, tensor):
    array = tensor.detach().numpy() if isinstance(tensor, torch.Tensor) else tensor
    np.save(os.path.join(path, name), np.ascontiguousarray(array, dtype=np.float64))


def save_attention(path, prefix, attention):
    h, n_q, n_k = attention.shape
    save(path, f"{prefix}.npy", attention.reshape(h * n_q, n_k))


def write_json(path, name, value):
    with open(os.path.join(path, name), "w") as f:
        json.dump(value, f, indent=1)
        f.write("\n")


# ---- random weights (float32 values, computed with in float64) --------------------------------

def normal(shape, scale):
    return rng.normal(scale=scale, size=shape).astype(np.float32)


def linear(tensors, name, out_dim, in_dim, bias=True, scale=None):
    tensors[name + ".weight"] = normal((out_dim, in_dim), scale or 1.0 / math.sqrt(in_dim))
    if bias:
        tensors[name + ".bias"] = normal((out_dim,), 0.1)


def norm(tensors, name, d, bias=True):
    tensors[name + ".weight"] = (1.0 + normal((d,), 0.2)).astype(np.float32)
    if bias:
        tensors[name + ".bias"] = normal((d,), 0.1)


def as_torch(tensors):
    return {name: torch.from_numpy(value.astype(np.float64)) for name, value in tensors.items()}


# ---- the forward, as transformers computes it ---------------------------------------------------

def layer_norm(w, name, x, eps=1e-5):
    return F.layer_norm(x, (x.shape[-1],), w[name + ".weight"], w[name + ".bias"], eps)


def rms_norm(w, name, x, eps):
    """LlamaRMSNorm: x / sqrt(mean(x^2) + eps) * weight."""
    variance = x.pow(2).mean(-1, keepdim=True)
    return w[name + ".weight"] * (x * torch.rsqrt(variance + eps))


def lin(w, name, x):
    return F.linear(x, w[name + ".weight"], w.get(name + ".bias"))


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def rope(x, theta):
    """apply_rotary_pos_emb on heads x n x d_k, positions 0..n-1 (LlamaRotaryEmbedding)."""
    d_k, n = x.shape[-1], x.shape[-2]
    inv_freq = 1.0 / (theta ** (torch.arange(0, d_k, 2, dtype=torch.float64) / d_k))
    freqs = torch.outer(torch.arange(n, dtype=torch.float64), inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    return x * emb.cos() + rotate_half(x) * emb.sin()


def attention(w, module, names, x_q, x_kv, h, g, causal, head_mask=None, theta=None):
    """Returns (h x n_q x n_k attention, n_q x d_model output). names: the q, k, v, o modules."""
    q_name, k_name, v_name, o_name = (f"{module}.{n}" for n in names)
    n_q, n_k = x_q.shape[0], x_kv.shape[0]
    q = lin(w, q_name, x_q)
    d_k = q.shape[1] // h
    q = q.view(n_q, h, d_k).transpose(0, 1)
    k = lin(w, k_name, x_kv).view(n_k, g, d_k).transpose(0, 1)
    v = lin(w, v_name, x_kv).view(n_k, g, d_k).transpose(0, 1)
    if theta is not None:
        q, k = rope(q, theta), rope(k, theta)
    k = k.repeat_interleave(h // g, dim=0)  # repeat_kv: query head i reads key/value head i // (h/g)
    v = v.repeat_interleave(h // g, dim=0)
    scores = q @ k.transpose(1, 2) / math.sqrt(d_k)
    if causal:
        scores = scores.masked_fill(torch.triu(torch.ones(n_q, n_k, dtype=torch.bool), 1), float("-inf"))
    a = F.softmax(scores, dim=-1)
    if head_mask is not None:
        a_used = a * head_mask.view(h, 1, 1)
    else:
        a_used = a
    heads = (a_used @ v).transpose(0, 1).reshape(n_q, h * d_k)
    return a, lin(w, o_name, heads)


def head_mask_for(layer_index, ablate, h):
    if ablate is None or ablate[0] != layer_index:
        return None
    mask = torch.ones(h)
    mask[ablate[1]] = 0.0
    return mask


# ---- LLaMA-style ---------------------------------------------------------------------------------

LLAMA = {
    "model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 32,
    "intermediate_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
    "num_key_value_heads": 2, "hidden_act": "silu", "rms_norm_eps": 1e-5, "rope_theta": 500000.0,
    "rope_scaling": None, "max_position_embeddings": 64, "vocab_size": 40, "bos_token_id": 1,
    "eos_token_id": 2, "tie_word_embeddings": False, "attention_bias": False, "mlp_bias": False,
    "torch_dtype": "float32",
}


def llama_weights(c, qkv_bias=False, qk_norm=False):
    """LlamaForCausalLM's tensors; Qwen2's q, k, v biases and Qwen3's q_norm / k_norm on request,
    head_dim when config.json gives one, no lm_head when tied."""
    d, h, g, f = c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"], c["intermediate_size"]
    d_k = c.get("head_dim") or d // h
    t = {"model.embed_tokens.weight": normal((c["vocab_size"], d), 1.0)}
    for i in range(c["num_hidden_layers"]):
        p = f"model.layers.{i}"
        norm(t, f"{p}.input_layernorm", d, bias=False)
        linear(t, f"{p}.self_attn.q_proj", h * d_k, d, bias=qkv_bias, scale=0.25)
        linear(t, f"{p}.self_attn.k_proj", g * d_k, d, bias=qkv_bias, scale=0.25)
        linear(t, f"{p}.self_attn.v_proj", g * d_k, d, bias=qkv_bias)
        linear(t, f"{p}.self_attn.o_proj", d, h * d_k, bias=False)
        if qk_norm:
            norm(t, f"{p}.self_attn.q_norm", d_k, bias=False)
            norm(t, f"{p}.self_attn.k_norm", d_k, bias=False)
        norm(t, f"{p}.post_attention_layernorm", d, bias=False)
        linear(t, f"{p}.mlp.gate_proj", f, d, bias=False)
        linear(t, f"{p}.mlp.up_proj", f, d, bias=False)
        linear(t, f"{p}.mlp.down_proj", d, f, bias=False)
    norm(t, "model.norm", d, bias=False)
    if not c["tie_word_embeddings"]:
        linear(t, "lm_head", c["vocab_size"], d, bias=False)
    return t


def llama_forward(w, c, ids, ablate=None):
    eps, h, g = c["rms_norm_eps"], c["num_attention_heads"], c["num_key_value_heads"]
    x = w["model.embed_tokens.weight"][ids]
    hidden, attentions = [x], []
    for i in range(c["num_hidden_layers"]):
        p = f"model.layers.{i}"
        normed = rms_norm(w, f"{p}.input_layernorm", x, eps)
        a, out = attention(w, f"{p}.self_attn", ("q_proj", "k_proj", "v_proj", "o_proj"), normed, normed, h, g,
                           causal=True, head_mask=head_mask_for(i, ablate, h), theta=c["rope_theta"])
        attentions.append(a)
        x = x + out
        normed = rms_norm(w, f"{p}.post_attention_layernorm", x, eps)
        gate = F.silu(lin(w, f"{p}.mlp.gate_proj", normed))
        x = x + lin(w, f"{p}.mlp.down_proj", gate * lin(w, f"{p}.mlp.up_proj", normed))
        hidden.append(x)
    final = rms_norm(w, "model.norm", x, eps)
    head = w["lm_head.weight"] if "lm_head.weight" in w else w["model.embed_tokens.weight"]
    return attentions, hidden, final, final @ head.T


def save_decoder_run(path, run, ids, ablate, layer_count, layer_name="model.layers.{i}.self_attn"):
    """A decoder-only model's reference files: run(ids, ablate) returns the attentions, hidden
    states, final hidden state and logits; its layers are layer_name with {i} the layer's index
    (model.layers.K.self_attn unless told)."""
    attentions, hidden, final, logits = run(torch.tensor(ids), None)
    layers = [layer_name.format(i=i) for i in range(layer_count)]
    for k, a in enumerate(attentions):
        save_attention(path, f"attention_{k}", a)
    save(path, "hidden_states.npy", torch.cat(hidden))
    save(path, "final_hidden.npy", final)
    save(path, "logits.npy", logits)
    ablated_attentions, _, _, ablated_logits = run(torch.tensor(ids), ablate)
    save_attention(path, f"ablated_attention_{len(layers) - 1}", ablated_attentions[-1])
    save(path, "ablated_logits.npy", ablated_logits)
    write_json(path, "reference.json", {"ids": ids, "layers": layers, "ablate": ablate})


def llama():
    path, c = folder("llama"), LLAMA
    tensors = llama_weights(c)
    write_safetensors(os.path.join(path, "model.safetensors"), tensors)
    write_json(path, "config.json", c)
    w = as_torch(tensors)
    save_decoder_run(path, lambda ids, ablate: llama_forward(w, c, ids, ablate), [1, 7, 23, 5, 39, 12, 30, 2], [0, 1],
                     c["num_hidden_layers"])


# ---- BART and Marian --------------------------------------------------------------------------------

BART = {
    "model_type": "bart", "architectures": ["BartForConditionalGeneration"], "d_model": 32,
    "encoder_layers": 2, "decoder_layers": 2, "encoder_attention_heads": 4, "decoder_attention_heads": 2,
    "encoder_ffn_dim": 64, "decoder_ffn_dim": 48, "activation_function": "gelu", "vocab_size": 50,
    "max_position_embeddings": 16, "scale_embedding": False, "normalize_before": False,
    "add_final_layer_norm": False, "pad_token_id": 1, "bos_token_id": 0, "eos_token_id": 2,
    "decoder_start_token_id": 2, "forced_eos_token_id": 2, "is_encoder_decoder": True,
    "tie_word_embeddings": True, "torch_dtype": "float32",
}

MARIAN = {
    "model_type": "marian", "architectures": ["MarianMTModel"], "d_model": 32,
    "encoder_layers": 2, "decoder_layers": 2, "encoder_attention_heads": 4, "decoder_attention_heads": 4,
    "encoder_ffn_dim": 64, "decoder_ffn_dim": 64, "activation_function": "swish", "vocab_size": 48,
    "decoder_vocab_size": 48, "max_position_embeddings": 24, "scale_embedding": True,
    "static_position_embeddings": True, "normalize_embedding": False, "normalize_before": False,
    "add_final_layer_norm": False, "pad_token_id": 47, "eos_token_id": 0, "bos_token_id": 0,
    "decoder_start_token_id": 47, "forced_eos_token_id": 0, "is_encoder_decoder": True,
    "share_encoder_decoder_embeddings": True, "tie_word_embeddings": True, "torch_dtype": "float32",
}

ACTIVATIONS = {"gelu": F.gelu, "swish": F.silu, "silu": F.silu, "relu": F.relu}


def seq2seq_weights(c):
    d, v = c["d_model"], c["vocab_size"]
    t = {"model.shared.weight": normal((v, d), 1.0 if c["model_type"] == "bart" else 0.3),
         "final_logits_bias": normal((1, v), 0.5)}
    bart = c["model_type"] == "bart"
    for stack in ("encoder", "decoder"):
        if bart:  # BartLearnedPositionalEmbedding: max_position_embeddings + 2 rows, offset 2
            t[f"model.{stack}.embed_positions.weight"] = normal((c["max_position_embeddings"] + 2, d), 0.5)
            norm(t, f"model.{stack}.layernorm_embedding", d)
        f = c[f"{stack}_ffn_dim"]
        for i in range(c[f"{stack}_layers"]):
            p = f"model.{stack}.layers.{i}"
            attentions = ("self_attn", "encoder_attn") if stack == "decoder" else ("self_attn",)
            for a in attentions:
                for proj in ("q_proj", "k_proj", "v_proj", "out_proj"):
                    linear(t, f"{p}.{a}.{proj}", d, d, scale=0.25 if proj in ("q_proj", "k_proj") else None)
                norm(t, f"{p}.{a}_layer_norm", d)
            linear(t, f"{p}.fc1", f, d)
            linear(t, f"{p}.fc2", d, f)
            norm(t, f"{p}.final_layer_norm", d)
    return t


def marian_positions(n_positions, d):
    """MarianSinusoidalPositionalEmbedding._init_weight: not interleaved, sin half then cos half."""
    position_enc = np.array([[pos / np.power(10000, 2 * (j // 2) / d) for j in range(d)]
                             for pos in range(n_positions)])
    out = np.zeros((n_positions, d))
    sentinel = d // 2 if d % 2 == 0 else (d // 2) + 1
    out[:, 0:sentinel] = np.sin(position_enc[:, 0::2])
    out[:, sentinel:] = np.cos(position_enc[:, 1::2])
    return torch.from_numpy(out.astype(np.float32).astype(np.float64))  # an fp32 nn.Embedding's values


def seq2seq_embed(w, c, stack, ids):
    d, n = c["d_model"], ids.shape[0]
    scale = math.sqrt(d) if c["scale_embedding"] else 1.0
    x = w["model.shared.weight"][ids] * scale
    if c["model_type"] == "bart":
        x = x + w[f"model.{stack}.embed_positions.weight"][torch.arange(n) + 2]
        return layer_norm(w, f"model.{stack}.layernorm_embedding", x)
    return x + marian_positions(c["max_position_embeddings"], d)[:n]


def seq2seq_block_end(w, c, p, x, stack):
    """The feed-forward sublayer of a post-LN block: fc2(act(fc1(x))) + x, then final_layer_norm."""
    act = ACTIVATIONS[c["activation_function"]]
    x = x + lin(w, f"{p}.fc2", act(lin(w, f"{p}.fc1", x)))
    return layer_norm(w, f"{p}.final_layer_norm", x)


def seq2seq_forward(w, c, source, decoder_input, ablate=None):
    names = ("q_proj", "k_proj", "v_proj", "out_proj")
    attentions, k = [], 0
    h = c["encoder_attention_heads"]
    x = seq2seq_embed(w, c, "encoder", source)
    encoder_hidden = [x]
    for i in range(c["encoder_layers"]):
        p = f"model.encoder.layers.{i}"
        a, out = attention(w, f"{p}.self_attn", names, x, x, h, h, False, head_mask_for(k, ablate, h))
        attentions.append(a)
        k += 1
        x = layer_norm(w, f"{p}.self_attn_layer_norm", x + out)
        x = seq2seq_block_end(w, c, p, x, "encoder")
        encoder_hidden.append(x)
    memory = x
    h = c["decoder_attention_heads"]
    y = seq2seq_embed(w, c, "decoder", decoder_input)
    decoder_hidden = [y]
    for i in range(c["decoder_layers"]):
        p = f"model.decoder.layers.{i}"
        a, out = attention(w, f"{p}.self_attn", names, y, y, h, h, True, head_mask_for(k, ablate, h))
        attentions.append(a)
        k += 1
        y = layer_norm(w, f"{p}.self_attn_layer_norm", y + out)
        a, out = attention(w, f"{p}.encoder_attn", names, y, memory, h, h, False, head_mask_for(k, ablate, h))
        attentions.append(a)
        k += 1
        y = layer_norm(w, f"{p}.encoder_attn_layer_norm", y + out)
        y = seq2seq_block_end(w, c, p, y, "decoder")
        decoder_hidden.append(y)
    logits = y @ w["model.shared.weight"].T + w["final_logits_bias"]
    return attentions, encoder_hidden, decoder_hidden, logits


def seq2seq_layers(c):
    layers = [f"model.encoder.layers.{i}.self_attn" for i in range(c["encoder_layers"])]
    for i in range(c["decoder_layers"]):
        layers += [f"model.decoder.layers.{i}.self_attn", f"model.decoder.layers.{i}.encoder_attn"]
    return layers


def seq2seq(name, c, source, target, ablate):
    path = folder(name)
    tensors = seq2seq_weights(c)
    write_safetensors(os.path.join(path, "model.safetensors"), tensors)
    write_json(path, "config.json", c)
    w = as_torch(tensors)
    decoder_input = [c["decoder_start_token_id"]] + target[:-1]  # shift_tokens_right
    run = lambda ablated: seq2seq_forward(w, c, torch.tensor(source), torch.tensor(decoder_input), ablated)
    attentions, encoder_hidden, decoder_hidden, logits = run(None)
    for k, a in enumerate(attentions):
        save_attention(path, f"attention_{k}", a)
    save(path, "encoder_hidden_states.npy", torch.cat(encoder_hidden))
    save(path, "decoder_hidden_states.npy", torch.cat(decoder_hidden))
    save(path, "logits.npy", logits)
    ablated_attentions, _, _, ablated_logits = run(ablate)
    layers = seq2seq_layers(c)
    save_attention(path, f"ablated_attention_{len(layers) - 1}", ablated_attentions[-1])
    save(path, "ablated_logits.npy", ablated_logits)
    write_json(path, "reference.json", {"source_ids": source, "target_ids": target,
                                        "decoder_input_ids": decoder_input, "layers": layers, "ablate": ablate})
    if c["model_type"] == "marian":
        save(path, "sinusoidal_positions.npy", marian_positions(c["max_position_embeddings"], c["d_model"]))


if __name__ == "__main__":
    llama()
    # BART: an encoder head switched off (it reaches the decoder through cross-attention).
    seq2seq("bart", BART, source=[0, 8, 31, 14, 44, 9, 2], target=[0, 17, 5, 26, 40, 2], ablate=[1, 2])
    # Marian: a head of the first decoder layer's cross-attention switched off.
    seq2seq("marian", MARIAN, source=[12, 5, 33, 20, 8, 0], target=[9, 41, 3, 27, 15, 6, 0], ablate=[3, 0])
