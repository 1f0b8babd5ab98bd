#pragma once
// A checkpoint's config.json: the keys the layer loader follows (docs/checkpoints.md).
//
// Hugging Face families spell the same fact differently:
//   h        num_attention_heads (BERT, LLaMA), n_head (GPT-2), n_heads (DistilBERT),
//            num_heads (T5); encoder_attention_heads / decoder_attention_heads (BART, Marian)
//   g        num_key_value_heads (LLaMA-style; absent: g = h)
//   d_model  hidden_size, n_embd, d_model, dim
//   d_k      head_dim (Qwen3, Gemma, Mistral), d_kv (T5): the width of one head, which need not
//            be d_model / h; absent, the query weight's rows / h
//   rotary   rope_theta (default 10000); rope_scaling of rope_type (or type) linear or llama3
//            (applied, rotary.hpp), default (none); other kinds (dynamic, yarn, longrope) are
//            reported, not applied. Newer files nest both in rope_parameters.
//   input    layer_norm_eps (BERT, default 1e-12), layer_norm_epsilon (GPT-2, default 1e-5):
//            the LayerNorm of the model's own first-layer input (core/checkpoint/model_input_loading.hpp)
// The whole model's forward pass (core/pretrained) also reads:
//   L        num_hidden_layers (BERT, LLaMA), n_layer (GPT-2), n_layers (DistilBERT), num_layers (T5);
//            encoder_layers / decoder_layers (BART, Marian)
//   d_ff     intermediate_size (BERT, LLaMA), n_inner (GPT-2; null: 4 d_model), hidden_dim
//            (DistilBERT), d_ff (T5); encoder_ffn_dim / decoder_ffn_dim (BART, Marian)
//   V, P     vocab_size; max_position_embeddings (n_positions for GPT-2)
//   act      hidden_act (BERT, LLaMA), activation_function (GPT-2, BART), activation (DistilBERT)
//   others   pad_token_id (RoBERTa's positions start at pad_token_id + 1), type_vocab_size,
//            position_embedding_type (BERT's relative kinds are refused),
//            tie_word_embeddings, rms_norm_eps (LLaMA), scale_embedding (BART, Marian),
//            decoder_start_token_id (BART, Marian: the decoder's first input token),
//            sliding_window (Mistral; Qwen2 with use_sliding_window): causal layers' window
// and the 2024-2026 blocks' own keys (core/families/attention_rules.hpp says what each does to a layer):
//   layers   layer_types ("sliding_attention" / "full_attention"), sliding_window_pattern (Gemma 3)
//   rotary   rope_local_base_freq (Gemma 3's sliding layers), rotary_emb_base (GPT-NeoX's
//            rope_theta), partial_rotary_factor or rotary_pct (the rotated share of a head)
//   scores   query_pre_attn_scalar (Gemma: scores scaled by its -1/2 power), attn_logit_softcapping
//   logits   final_logit_softcapping (Gemma 2)
//   block    use_parallel_residual (GPT-NeoX), hidden_activation (Gemma's spelling of hidden_act)

#include <optional>
#include <string>
#include <vector>

#include "core/attention/rotary.hpp"
#include "core/common/expected.hpp"
#include "core/common/matrix.hpp"

namespace qkv {

struct CheckpointConfig {
    std::string modelType;                  // model_type, or empty
    std::optional<Index> headCount;         // the family's plain h key
    std::optional<Index> encoderHeadCount;  // encoder_attention_heads
    std::optional<Index> decoderHeadCount;  // decoder_attention_heads
    std::optional<Index> keyValueHeadCount; // num_key_value_heads
    std::optional<Index> d_model;
    std::optional<Index> headDim;           // head_dim, d_kv (T5)
    std::optional<double> ropeTheta;
    RopeScaling ropeScaling;                // rope_scaling (or rope_parameters) of a kind applied
    std::string ropeScalingNotApplied;      // its rope_type when it is a kind not applied, else empty
    std::optional<double> layerNormEpsilon; // layer_norm_eps or layer_norm_epsilon
    std::optional<double> rmsNormEpsilon;   // rms_norm_eps
    std::optional<Index> layerCount;        // the family's plain L key
    std::optional<Index> encoderLayerCount; // encoder_layers
    std::optional<Index> decoderLayerCount; // decoder_layers
    std::optional<Index> d_ff;              // the family's plain d_ff key
    std::optional<Index> encoderFfnDim;     // encoder_ffn_dim
    std::optional<Index> decoderFfnDim;     // decoder_ffn_dim
    std::optional<Index> vocabularySize;    // vocab_size
    std::optional<Index> positionCount;     // max_position_embeddings, n_positions
    std::optional<Index> typeVocabularySize; // type_vocab_size
    std::optional<Index> padTokenId;        // pad_token_id (0 allowed)
    std::optional<Index> decoderStartTokenId; // decoder_start_token_id (BART, Marian: teacher forcing)
    std::optional<Index> slidingWindow;     // sliding_window (Mistral: every layer's)
    std::optional<Index> slidingWindowNotApplied;  // Qwen2's with use_sliding_window: true (some layers')
    std::optional<bool> tieWordEmbeddings;  // tie_word_embeddings
    std::optional<bool> scaleEmbedding;     // scale_embedding
    std::string activation;                 // hidden_act, activation_function or activation; or empty
    std::string activationKey;              // which of those keys said it (for messages)
    std::string positionEmbeddingType;      // position_embedding_type (BERT: "absolute", or relative kinds)
    std::vector<std::string> layerTypes;    // layer_types, one per block ("sliding_attention", ...), or empty
    std::optional<Index> slidingWindowPattern;  // sliding_window_pattern (Gemma 3: every P-th layer is global)
    std::optional<double> ropeLocalBase;    // rope_local_base_freq (Gemma 3's sliding layers)
    std::optional<double> partialRotary;    // partial_rotary_factor or rotary_pct, in (0, 1]
    std::optional<Index> queryPreAttnScalar;      // query_pre_attn_scalar (Gemma)
    std::optional<double> attentionSoftCap;       // attn_logit_softcapping (Gemma 2)
    std::optional<double> finalLogitSoftCap;      // final_logit_softcapping (Gemma 2)
    std::optional<bool> parallelResidual;         // use_parallel_residual (GPT-NeoX)
};

// Reads and checks a config.json (size-capped, JSON nesting bounded, each followed key of the
// right type and positive). Unknown keys are ignored.
Expected<CheckpointConfig> readCheckpointConfig(const std::string& path);

}  // namespace qkv
