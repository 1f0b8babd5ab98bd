#pragma once
// The families whole-model runs know, as one table: a row per family says where its tensors are
// (name patterns) and how its forward pass differs (the conventions FamilyRecipe carries). The
// code that reads a checkpoint (family_recipe.cpp, family_tensors.cpp) has no case per family:
// a new family is a new row here, plus at most a new value of an enumeration the forward pass
// already reads (a norm kind, an activation, a kind of positions).
//
// Name patterns: "{p}" is the base model's prefix, found from the attention layers' names
// ("bert.", "transformer.", "model.", or ""); "{s}" the stack ("encoder" or "decoder"); "{b}" the
// block number. A module pattern names module + ".weight" and module + ".bias" (a norm's gamma
// and beta; older files spell them ".gamma" / ".beta"); the others name a whole tensor. Empty:
// the family has no such part.

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "core/checkpoint/checkpoint.hpp"
#include "core/common/expected.hpp"
#include "core/pretrained/family_recipe.hpp"
#include "core/pretrained/family_tensors.hpp"

namespace qkv {

using EmbeddingPatterns = EmbeddingNames<std::string_view>;
using BlockPatterns = BlockNames<std::string_view>;
using ReadoutPatterns = ReadoutNames<std::string_view>;

// The stacks a family's model has.
enum class FamilyStacks { Encoder, Decoder, EncoderDecoder };

// When the readout's E is the token table rather than a tensor of its own.
enum class ReadoutTying {
    UnlessStored,          // tied when the file does not store the readout matrix (BERT, GPT-2)
    SaidElseUnlessStored,  // tie_word_embeddings: true ties; else as UnlessStored (LLaMA: default false)
    SaidElseTied,          // tie_word_embeddings, default true; false and stored unties (BART, Marian)
};

struct FamilyRow {
    PretrainedFamily value{};  // `value` and `name`: an EnumName table (nameOf works on it)
    std::string_view name{};   // "BERT", as messages, notes and exports print it

    // Which rows a checkpoint may be: those of its attention layers' family (layer_recognition.cpp
    // says that one). Rows of one layer family share their block patterns, stacks and
    // absolutePositionsOnly (read before a row is chosen); among them a prefix hint, then
    // config.json's model_type, chooses.
    CheckpointFamily layers = CheckpointFamily::Bert;
    std::string_view prefixHint{};                 // names under this prefix are this row ("roberta.")
    std::array<std::string_view, 3> modelTypes{};  // model_type spellings of this row
    bool otherModelTypes = false;                  // also runs a model_type no row of its layers lists

    // The tensors.
    FamilyStacks stacks = FamilyStacks::Encoder;
    EmbeddingPatterns embeddings{};
    BlockPatterns block{};
    std::string_view finalNorm{};  // module of the norm after a stack's last block, or empty
    ReadoutPatterns readout{};

    // How each stack's L is said, for messages: "layers (num_hidden_layers)" (an encoder-decoder:
    // the encoder's, then the decoder's).
    std::array<std::string_view, 2> layerCountWords{};

    // The block.
    PretrainedNorm norm = PretrainedNorm::LayerNorm;
    NormPlacement placement = NormPlacement::Post;
    std::optional<double> CheckpointConfig::*epsilonKey = nullptr;  // config.json's, or none (fixed)
    double epsilon = 1e-12;                                         // when config.json says none
    std::string_view activation{};  // the spelling config.json's activation key defaults to
    LinearLayout linearLayout = LinearLayout::OutByIn;
    bool parallelResidual = false;  // use_parallel_residual's default (GPT-NeoX: true)

    // The input.
    PretrainedPositions positions = PretrainedPositions::Learned;
    bool absolutePositionsOnly = false;  // reads position_embedding_type and refuses a relative kind
    Index positionOffset = 0;           // row of the first position in the learned table (BART: 2)
    Index padPositions = -1;            // RoBERTa: pad_token_id's default; positions count from pad + 1
    Index positionCount = 0;            // sinusoidal: P when config.json says none
    bool embeddingsTimesSqrtD = false;  // Gemma: the token embeddings times sqrt(d_model)
    bool decoderStartsWithPad = false;  // an encoder-decoder's first decoder input is pad_token_id

    // The output.
    ReadoutKind readoutKind = ReadoutKind::None;  // MaskedLm: None when the file lacks the transform
    ReadoutTying tying = ReadoutTying::UnlessStored;
};

// clang-format off
// Rows of one layer family share their block names (and BERT's and RoBERTa's their embeddings).
inline constexpr EmbeddingPatterns kBertEmbeddings{
    .tokens = "{p}embeddings.word_embeddings.weight",
    .positions = "{p}embeddings.position_embeddings.weight",
    .tokenTypes = "{p}embeddings.token_type_embeddings.weight",
    .norm = "{p}embeddings.LayerNorm"};
inline constexpr BlockPatterns kBertBlock{
    .attention = "{p}encoder.layer.{b}.attention",
    .attentionNorm = "{p}encoder.layer.{b}.attention.output.LayerNorm",
    .feedForwardIn = "{p}encoder.layer.{b}.intermediate.dense",
    .feedForwardOut = "{p}encoder.layer.{b}.output.dense",
    .feedForwardNorm = "{p}encoder.layer.{b}.output.LayerNorm"};
inline constexpr BlockPatterns kBartBlock{
    .attention = "{p}{s}.layers.{b}.self_attn",
    .attentionNorm = "{p}{s}.layers.{b}.self_attn_layer_norm",
    .crossAttention = "{p}{s}.layers.{b}.encoder_attn",
    .crossAttentionNorm = "{p}{s}.layers.{b}.encoder_attn_layer_norm",
    .feedForwardIn = "{p}{s}.layers.{b}.fc1",
    .feedForwardOut = "{p}{s}.layers.{b}.fc2",
    .feedForwardNorm = "{p}{s}.layers.{b}.final_layer_norm"};

// LLaMA's block names; Gemma's and OLMo 2's add norms on the sublayers' outputs.
inline constexpr BlockPatterns kLlamaBlock{
    .attention = "{p}layers.{b}.self_attn", .attentionNorm = "{p}layers.{b}.input_layernorm",
    .feedForwardIn = "{p}layers.{b}.mlp.up_proj", .feedForwardGate = "{p}layers.{b}.mlp.gate_proj",
    .feedForwardOut = "{p}layers.{b}.mlp.down_proj", .feedForwardNorm = "{p}layers.{b}.post_attention_layernorm"};
inline constexpr BlockPatterns kGemma2Block{
    .attention = "{p}layers.{b}.self_attn", .attentionNorm = "{p}layers.{b}.input_layernorm",
    .attentionOutputNorm = "{p}layers.{b}.post_attention_layernorm",
    .feedForwardIn = "{p}layers.{b}.mlp.up_proj", .feedForwardGate = "{p}layers.{b}.mlp.gate_proj",
    .feedForwardOut = "{p}layers.{b}.mlp.down_proj", .feedForwardNorm = "{p}layers.{b}.pre_feedforward_layernorm",
    .feedForwardOutputNorm = "{p}layers.{b}.post_feedforward_layernorm"};

// Gemma's row, one per generation (they differ in model_type only): GemmaRMSNorm (scale 1 + w)
// before and after each sublayer, GeGLU with the tanh GELU (hidden_activation), embeddings
// times sqrt(d_model), tied readout; the scores' scale, soft cap and sliding layers are each
// layer's (layer_conventions.hpp), the logits' soft cap the recipe's.
constexpr FamilyRow gemmaRow(PretrainedFamily value, std::string_view name, std::string_view modelType)
{
    return {.value = value, .name = name,
            .layers = CheckpointFamily::Llama, .modelTypes = {modelType},
            .stacks = FamilyStacks::Decoder,
            .embeddings = {.tokens = "{p}embed_tokens.weight"},
            .block = kGemma2Block,
            .finalNorm = "{p}norm",
            .readout = {.decoder = "lm_head.weight"},
            .layerCountWords = {"blocks (num_hidden_layers)"},
            .norm = PretrainedNorm::RmsNorm, .placement = NormPlacement::Pre,
            .epsilonKey = &CheckpointConfig::rmsNormEpsilon, .epsilon = 1e-6, .activation = "gelu_pytorch_tanh",
            .positions = PretrainedPositions::Rotary, .embeddingsTimesSqrtD = true,
            .readoutKind = ReadoutKind::CausalLm, .tying = ReadoutTying::SaidElseTied};
}

inline constexpr std::array<FamilyRow, 12> kFamilyRows{{
    {.value = PretrainedFamily::Bert, .name = "BERT",
     .layers = CheckpointFamily::Bert, .modelTypes = {"bert"}, .otherModelTypes = true,
     .stacks = FamilyStacks::Encoder,
     .embeddings = kBertEmbeddings, .block = kBertBlock,
     .readout = {.transform = "cls.predictions.transform.dense",
                 .transformNorm = "cls.predictions.transform.LayerNorm",
                 .decoder = "cls.predictions.decoder.weight", .bias = "cls.predictions.bias"},
     .layerCountWords = {"layers (num_hidden_layers)"},
     .epsilonKey = &CheckpointConfig::layerNormEpsilon, .epsilon = 1e-12, .activation = "gelu",
     .absolutePositionsOnly = true,
     .readoutKind = ReadoutKind::MaskedLm},
    // create_position_ids_from_input_ids: positions count from padding_idx + 1.
    {.value = PretrainedFamily::Roberta, .name = "RoBERTa",
     .layers = CheckpointFamily::Bert, .prefixHint = "roberta.", .modelTypes = {"roberta", "xlm-roberta"},
     .stacks = FamilyStacks::Encoder,
     .embeddings = kBertEmbeddings, .block = kBertBlock,
     .readout = {.transform = "lm_head.dense", .transformNorm = "lm_head.layer_norm",
                 .decoder = "lm_head.decoder.weight", .bias = "lm_head.bias"},
     .layerCountWords = {"layers (num_hidden_layers)"},
     .epsilonKey = &CheckpointConfig::layerNormEpsilon, .epsilon = 1e-12, .activation = "gelu",
     .absolutePositionsOnly = true, .padPositions = 1,
     .readoutKind = ReadoutKind::MaskedLm},
    // DistilBERT's LayerNorms fix eps = 1e-12 (no config key).
    {.value = PretrainedFamily::DistilBert, .name = "DistilBERT",
     .layers = CheckpointFamily::DistilBert, .modelTypes = {"distilbert"}, .otherModelTypes = true,
     .stacks = FamilyStacks::Encoder,
     .embeddings = {.tokens = "{p}embeddings.word_embeddings.weight",
                    .positions = "{p}embeddings.position_embeddings.weight",
                    .norm = "{p}embeddings.LayerNorm"},
     .block = {.attention = "{p}transformer.layer.{b}.attention",
               .attentionNorm = "{p}transformer.layer.{b}.sa_layer_norm",
               .feedForwardIn = "{p}transformer.layer.{b}.ffn.lin1",
               .feedForwardOut = "{p}transformer.layer.{b}.ffn.lin2",
               .feedForwardNorm = "{p}transformer.layer.{b}.output_layer_norm"},
     .readout = {.transform = "vocab_transform", .transformNorm = "vocab_layer_norm",
                 .decoder = "vocab_projector.weight", .bias = "vocab_projector.bias"},
     .layerCountWords = {"layers (n_layers)"},
     .epsilon = 1e-12, .activation = "gelu",
     .readoutKind = ReadoutKind::MaskedLm},
    // GPT2LMHeadModel's lm_head is wte (tied) unless stored; Conv1D weights are in x out.
    {.value = PretrainedFamily::Gpt2, .name = "GPT-2",
     .layers = CheckpointFamily::Gpt2, .modelTypes = {"gpt2"}, .otherModelTypes = true,
     .stacks = FamilyStacks::Decoder,
     .embeddings = {.tokens = "{p}wte.weight", .positions = "{p}wpe.weight"},
     .block = {.attention = "{p}h.{b}.attn", .attentionNorm = "{p}h.{b}.ln_1",
               .feedForwardIn = "{p}h.{b}.mlp.c_fc", .feedForwardOut = "{p}h.{b}.mlp.c_proj",
               .feedForwardNorm = "{p}h.{b}.ln_2"},
     .finalNorm = "{p}ln_f",
     .readout = {.decoder = "lm_head.weight"},
     .layerCountWords = {"blocks (n_layer)"},
     .placement = NormPlacement::Pre,
     .epsilonKey = &CheckpointConfig::layerNormEpsilon, .epsilon = 1e-5, .activation = "gelu_new",
     .linearLayout = LinearLayout::InByOut,
     .readoutKind = ReadoutKind::CausalLm},
    // LlamaForCausalLM (Mistral and Qwen2 name their tensors alike): pre-RMSNorm, SwiGLU (its gate's
    // nonlinearity is hidden_act, which must be silu), rotary positions with rope_theta, g
    // key/value heads, lm_head absent when tied to model.embed_tokens. eps: LlamaConfig's default.
    {.value = PretrainedFamily::Llama, .name = "LLaMA-style",
     .layers = CheckpointFamily::Llama, .modelTypes = {"llama"}, .otherModelTypes = true,
     .stacks = FamilyStacks::Decoder,
     .embeddings = {.tokens = "{p}embed_tokens.weight"},
     .block = kLlamaBlock,
     .finalNorm = "{p}norm",
     .readout = {.decoder = "lm_head.weight"},
     .layerCountWords = {"blocks (num_hidden_layers)"},
     .norm = PretrainedNorm::RmsNorm, .placement = NormPlacement::Pre,
     .epsilonKey = &CheckpointConfig::rmsNormEpsilon, .epsilon = 1e-6, .activation = "silu",
     .positions = PretrainedPositions::Rotary,
     .readoutKind = ReadoutKind::CausalLm, .tying = ReadoutTying::SaidElseUnlessStored},
    // BartForConditionalGeneration: model.shared is both stacks' token table (their embed_tokens
    // are tied copies) and the readout; post-LayerNorm blocks with eps 1e-5 (nn.LayerNorm's
    // default: no config key); BartLearnedPositionalEmbedding never reads rows 0 and 1.
    {.value = PretrainedFamily::Bart, .name = "BART",
     .layers = CheckpointFamily::Bart, .modelTypes = {"bart"},
     .stacks = FamilyStacks::EncoderDecoder,
     .embeddings = {.tokens = "{p}shared.weight", .positions = "{p}{s}.embed_positions.weight",
                    .norm = "{p}{s}.layernorm_embedding"},
     .block = kBartBlock,
     .readout = {.decoder = "lm_head.weight", .bias = "final_logits_bias"},
     .layerCountWords = {"encoder layers (encoder_layers)", "decoder layers (decoder_layers)"},
     .epsilon = 1e-5, .activation = "gelu",
     .positionOffset = 2,
     .readoutKind = ReadoutKind::CausalLm, .tying = ReadoutTying::SaidElseTied},
    // MarianMTModel: as BART, but sinusoidal positions (computed, not stored: marian_positions.hpp;
    // MarianConfig's default P) and no embedding norm; the decoder starts with its pad token
    // (MarianConfig: decoder_start_token_id = pad_token_id).
    {.value = PretrainedFamily::Marian, .name = "Marian",
     .layers = CheckpointFamily::Bart, .modelTypes = {"marian"},
     .stacks = FamilyStacks::EncoderDecoder,
     .embeddings = {.tokens = "{p}shared.weight"},
     .block = kBartBlock,
     .readout = {.decoder = "lm_head.weight", .bias = "final_logits_bias"},
     .layerCountWords = {"encoder layers (encoder_layers)", "decoder layers (decoder_layers)"},
     .epsilon = 1e-5, .activation = "gelu",
     .positions = PretrainedPositions::Sinusoidal, .positionCount = 1024, .decoderStartsWithPad = true,
     .readoutKind = ReadoutKind::CausalLm, .tying = ReadoutTying::SaidElseTied},
    // Gemma2ForCausalLM, and Gemma3ForCausalLM (the text models: 270M, 1B), whose q_norm and
    // k_norm the layer loader reads and whose sliding layers have their own rotary base
    // (layer_conventions.hpp); neither has a cap in Gemma 3.
    gemmaRow(PretrainedFamily::Gemma2, "Gemma 2", "gemma2"),
    gemmaRow(PretrainedFamily::Gemma3, "Gemma 3", "gemma3_text"),
    // Phi3ForCausalLM (and Phi-4-mini, model_type phi3 too): LLaMA's block with Q, K, V in one
    // qkv_proj (the layer loader splits it) and gate and up in one gate_up_proj.
    {.value = PretrainedFamily::Phi3, .name = "Phi-3",
     .layers = CheckpointFamily::Phi3, .modelTypes = {"phi3"}, .otherModelTypes = true,
     .stacks = FamilyStacks::Decoder,
     .embeddings = {.tokens = "{p}embed_tokens.weight"},
     .block = {.attention = "{p}layers.{b}.self_attn", .attentionNorm = "{p}layers.{b}.input_layernorm",
               .feedForwardGateUp = "{p}layers.{b}.mlp.gate_up_proj", .feedForwardOut = "{p}layers.{b}.mlp.down_proj",
               .feedForwardNorm = "{p}layers.{b}.post_attention_layernorm"},
     .finalNorm = "{p}norm",
     .readout = {.decoder = "lm_head.weight"},
     .layerCountWords = {"blocks (num_hidden_layers)"},
     .norm = PretrainedNorm::RmsNorm, .placement = NormPlacement::Pre,
     .epsilonKey = &CheckpointConfig::rmsNormEpsilon, .epsilon = 1e-5, .activation = "silu",
     .positions = PretrainedPositions::Rotary,
     .readoutKind = ReadoutKind::CausalLm, .tying = ReadoutTying::SaidElseUnlessStored},
    // GPTNeoXForCausalLM (Pythia): pre-LayerNorm blocks run in parallel (use_parallel_residual),
    // query_key_value fused per head, partial rotary (rotary_pct), its own embed_out readout.
    {.value = PretrainedFamily::GptNeox, .name = "GPT-NeoX",
     .layers = CheckpointFamily::GptNeox, .modelTypes = {"gpt_neox"}, .otherModelTypes = true,
     .stacks = FamilyStacks::Decoder,
     .embeddings = {.tokens = "{p}embed_in.weight"},
     .block = {.attention = "{p}layers.{b}.attention", .attentionNorm = "{p}layers.{b}.input_layernorm",
               .feedForwardIn = "{p}layers.{b}.mlp.dense_h_to_4h", .feedForwardOut = "{p}layers.{b}.mlp.dense_4h_to_h",
               .feedForwardNorm = "{p}layers.{b}.post_attention_layernorm"},
     .finalNorm = "{p}final_layer_norm",
     .readout = {.decoder = "embed_out.weight"},
     .layerCountWords = {"blocks (num_hidden_layers)"},
     .placement = NormPlacement::Pre,
     .epsilonKey = &CheckpointConfig::layerNormEpsilon, .epsilon = 1e-5, .activation = "gelu",
     .parallelResidual = true,
     .positions = PretrainedPositions::Rotary,
     .readoutKind = ReadoutKind::CausalLm, .tying = ReadoutTying::SaidElseUnlessStored},
    // Olmo2ForCausalLM: a norm on each sublayer's output and none before it; q_norm and k_norm over
    // the whole projection (the layer loader reads them).
    {.value = PretrainedFamily::Olmo2, .name = "OLMo 2",
     .layers = CheckpointFamily::Llama, .modelTypes = {"olmo2"},
     .stacks = FamilyStacks::Decoder,
     .embeddings = {.tokens = "{p}embed_tokens.weight"},
     .block = {.attention = "{p}layers.{b}.self_attn", .attentionOutputNorm = "{p}layers.{b}.post_attention_layernorm",
               .feedForwardIn = "{p}layers.{b}.mlp.up_proj", .feedForwardGate = "{p}layers.{b}.mlp.gate_proj",
               .feedForwardOut = "{p}layers.{b}.mlp.down_proj",
               .feedForwardOutputNorm = "{p}layers.{b}.post_feedforward_layernorm"},
     .finalNorm = "{p}norm",
     .readout = {.decoder = "lm_head.weight"},
     .layerCountWords = {"blocks (num_hidden_layers)"},
     .norm = PretrainedNorm::RmsNorm, .placement = NormPlacement::Pre,
     .epsilonKey = &CheckpointConfig::rmsNormEpsilon, .epsilon = 1e-6, .activation = "silu",
     .positions = PretrainedPositions::Rotary,
     .readoutKind = ReadoutKind::CausalLm, .tying = ReadoutTying::SaidElseUnlessStored},
}};
// clang-format on

// The row of `family` (every PretrainedFamily has one: tests/core/pretrained/family_rows_test.cpp).
const FamilyRow& familyRow(PretrainedFamily family);

// A row's patterns filled in: "{p}" -> prefix, "{s}" -> the stack's name, "{b}" -> block. Empty
// for an empty pattern.
std::string tensorName(std::string_view pattern, const std::string& prefix, ModelStack stack, Index block = 0);

// Refuses a row that lacks a name every family needs (the token table, the block's attention,
// norms and MLP, an encoder-decoder's cross-attention, the readout matrix of an LM head), or
// whose patterns do not fit its stacks ("{b}" in every block pattern, "{s}" only with two
// stacks), naming the row and the column.
Status checkFamilyRow(const FamilyRow& row);

}  // namespace qkv
