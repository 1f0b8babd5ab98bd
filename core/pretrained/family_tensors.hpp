#pragma once
// Every family's tensor names for the whole model, in this one place (the attention
// projections' own names stay in core/checkpoint/layer_recognition.cpp, which the attention
// loader shares). A "module" below is a path whose parameters are module + ".weight" and
// module + ".bias" (a norm's gamma and beta; older files spell them ".gamma" / ".beta"). An
// empty string: the family has no such part.
//
//   BERT        bert.embeddings.{word,position,token_type}_embeddings, bert.embeddings.LayerNorm
//               bert.encoder.layer.l.attention (+ .output.LayerNorm), .intermediate.dense,
//               .output.dense, .output.LayerNorm; cls.predictions.transform.{dense,LayerNorm},
//               cls.predictions.decoder.weight, cls.predictions.bias
//   RoBERTa     as BERT under roberta.; lm_head.{dense,layer_norm,decoder.weight,bias}
//   DistilBERT  distilbert.embeddings.{word,position}_embeddings, .LayerNorm;
//               distilbert.transformer.layer.l.{attention,sa_layer_norm,ffn.lin1,ffn.lin2,
//               output_layer_norm}; vocab_transform, vocab_layer_norm, vocab_projector
//   GPT-2       [transformer.]wte, wpe, h.l.{ln_1,attn,ln_2,mlp.c_fc,mlp.c_proj}, ln_f; lm_head
//   LLaMA-style model.embed_tokens; model.layers.l.{input_layernorm,self_attn,
//               post_attention_layernorm,mlp.gate_proj,mlp.up_proj,mlp.down_proj}; model.norm;
//               lm_head (absent when tied to model.embed_tokens)
//   BART        model.shared (both stacks' tokens and the readout); per stack s = encoder|decoder:
//               model.s.embed_positions (offset 2), model.s.layernorm_embedding,
//               model.s.layers.l.{self_attn,self_attn_layer_norm,fc1,fc2,final_layer_norm},
//               decoder also .encoder_attn, .encoder_attn_layer_norm; final_logits_bias
//   Marian      as BART without embed_positions (sinusoidal, computed: marian_positions.hpp) and
//               without layernorm_embedding

#include <string>

#include "core/pretrained/family_recipe.hpp"

namespace qkv {

struct EmbeddingTensorNames {
    std::string tokens;      // V x d_model table (a full tensor name)
    std::string positions;   // P x d_model table, or empty (rotary, sinusoidal, none)
    std::string tokenTypes;  // T x d_model table, or empty
    std::string norm;        // module of the embedding norm, or empty
};

struct BlockTensorNames {
    std::string attention;       // the self-attention module (a CheckpointLayer's name)
    std::string attentionNorm;   // its norm: after it (post) or before it (pre)
    std::string crossAttention;  // encoder-decoder decoder blocks only
    std::string crossAttentionNorm;
    std::string feedForwardIn;    // W_1 (SwiGLU: the up projection)
    std::string feedForwardGate;  // SwiGLU only
    std::string feedForwardOut;   // W_2
    std::string feedForwardNorm;
};

struct ReadoutTensorNames {
    std::string transform;      // MaskedLm: the dense layer before the decoder
    std::string transformNorm;  // MaskedLm: its norm
    std::string decoder;        // the full tensor name of E when stored (untied, or stored anyway)
    std::string bias;           // the full tensor name of the logits' bias, or empty
};

EmbeddingTensorNames embeddingTensorNames(const FamilyRecipe& recipe, ModelStack stack);
BlockTensorNames blockTensorNames(const FamilyRecipe& recipe, ModelStack stack, Index block);
// The module of the final norm of `stack` (GPT-2's ln_f), or empty.
std::string finalNormName(const FamilyRecipe& recipe, ModelStack stack);
ReadoutTensorNames readoutTensorNames(const FamilyRecipe& recipe);

}  // namespace qkv
