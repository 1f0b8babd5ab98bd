#pragma once
// Every family this app reads, as one table: a row per family (family.hpp's enumeration) says
// where its tensors are (name patterns), how its attention layers store their projections, and
// how its forward pass differs: norms (kind, placement, q/k norms), positions (learned,
// sinusoidal, rotary and its scaling), activation, and quirks (soft caps, sliding windows, tied
// readout, embedding scaling). "Where does a Qwen3 layer differ from LLaMA's" is the difference
// of their two rows below.
//
// The code that reads a model (core/checkpoint's layer recognition and loading, the recipe of
// core/pretrained) has no case per family: a new family is a new row here, plus at most a new value
// of an enumeration the forward pass already reads (a norm kind, an activation, a kind of
// positions). The rows say what a family is, with Hugging Face's tensor names and config.json's
// keys (read into CheckpointConfig); another file format of the same families (GGUF) fills the
// same CheckpointConfig and adds its own name patterns beside these.
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

#include "core/common/expected.hpp"
#include "core/embedding/model_input.hpp"
#include "core/families/family.hpp"
#include "core/families/family_recipe.hpp"
#include "core/families/family_tensors.hpp"
#include "core/modelfiles/checkpoint_config.hpp"

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

// How a layer family stores Q, K and V (y = x W in our layout, core/weights/attention_weights.hpp).
enum class QkvStorage {
    Separate,           // one nn.Linear each (out x in in the file)
    Conv1DFused,        // GPT-2's c_attn: one Conv1D, d_model x 3 d_model (in x out), columns Q | K | V
    InProjFused,        // nn.MultiheadAttention's in_proj_weight: 3 d_model x d_model, rows Q | K | V
    FusedByProjection,  // Phi-3's qkv_proj: one nn.Linear, Q's h d_k rows, then K's g d_k, then V's
    FusedPerHead,       // GPT-NeoX's query_key_value: one nn.Linear, each head's q, k and v rows in turn
};

// What attention a layer computes: fixed by the family, or read from the module path ("decoder",
// "encoder_attn", "EncDecAttention", ...).
enum class LayerKindRule { Self, Causal, FromPath };

// Norms of q and k before the rotation (Qwen3, Gemma 3, OLMo 2): the layer loader reads them when
// the file holds them (under the layer family's qkNorms names) and their width says which.
enum class QueryKeyNorm {
    None,
    PerHead,  // RMSNorm over each head's d_k components, one scale vector shared by the heads
    Whole,    // RMSNorm over the whole h d_k projection (OLMo 2)
};

// Which causal layers slide over config.json's sliding_window keys when config.json's layer_types
// does not list them (attention_rules.hpp).
enum class SlidingLayers {
    Every,            // every layer, when sliding_window is set (Mistral, Phi-3)
    EvenBlocks,       // blocks 0, 2, ... (Gemma2Config: sliding when (i + 1) % 2)
    AllButEveryPth,   // all but every sliding_window_pattern-th block (Gemma 3; default below)
};

// A layer family's attention module: the names after its module path.
struct AttentionPatterns {
    // The Q, K, V and output projections' modules ("self.query", ...); a fused Q-K-V store names
    // its one module three times.
    std::array<std::string_view, 4> projections{};
    QkvStorage storage = QkvStorage::Separate;
    // The last segment a layer's module path must have, when the query name alone is not the
    // family's (T5's ".q.weight", GPT-NeoX's query_key_value, which Bloom and Falcon lay out
    // otherwise); empty: any.
    std::array<std::string_view, 2> moduleEndsIn{};
    LayerKindRule kind = LayerKindRule::Self;
    std::array<std::string_view, 2> qkNorms{};  // q's and k's norm modules (Qwen3's q_norm, k_norm), or empty
};

struct FamilyRow {
    Family value{};           // `value` and `name`: an EnumName table (nameOf works on it)
    std::string_view name{};  // as config.json's model_type says it: "BERT", "Qwen3", "Gemma 3"

    // Which rows a checkpoint may be: those of its attention layers' family (layer_recognition.cpp
    // says that one). Rows of one layer family share their block patterns, stacks and
    // absolutePositionsOnly (read before a row is chosen); among them a prefix hint, then
    // config.json's model_type, chooses.
    Family layers = Family::Bert;  // the layer family: the row whose attention names this row's layers carry
    std::string_view prefixHint{};                 // names under this prefix are this row ("roberta.")
    std::array<std::string_view, 3> modelTypes{};  // model_type spellings of this row
    bool otherModelTypes = false;                  // also runs a model_type no row of its layers lists
    bool wholeModel = true;                        // false: its layers load one at a time only (T5, PyTorch)

    // The attention layer (a layer family's row; the others' are their layer family's).
    std::string_view layerName{};  // the layers' name when not `name` ("BART/Marian")
    AttentionPatterns attention{};
    std::string_view headDimKey = "head_dim";  // config.json's d_k key (T5: d_kv), for messages
    bool headCountPerStack = false;  // encoder_attention_heads / decoder_attention_heads (BART, Marian)
    bool scaleScores = true;         // false: scores = q . k, no 1/sqrt(d_k) (T5)
    bool relativePositionBias = false;  // T5: a learned bias added to the scores, left out here
    bool storesNoMask = false;          // nn.MultiheadAttention: the kind is a guess from the path

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
    float normWeightOffset = 0.0f;  // Gemma: each RMSNorm stores w for a scale of 1 + w (q_norm, k_norm too)
    QueryKeyNorm queryKeyNorm = QueryKeyNorm::None;
    std::string_view activation{};  // the spelling config.json's activation key defaults to
    LinearLayout linearLayout = LinearLayout::OutByIn;
    bool parallelResidual = false;  // use_parallel_residual's default (GPT-NeoX: true)

    // The attention's quirks (attention_rules.hpp applies them to each layer).
    SlidingLayers slidingLayers = SlidingLayers::Every;
    Index slidingPattern = 0;       // AllButEveryPth: sliding_window_pattern's default
    bool scoreSoftCapRead = true;   // attn_logit_softcapping reaches the scores (not in Gemma 3's code)

    // The input.
    PretrainedPositions positions = PretrainedPositions::Learned;
    bool absolutePositionsOnly = false;  // reads position_embedding_type and refuses a relative kind
    Index positionOffset = 0;           // row of the first position in the learned table (BART: 2)
    Index padPositions = -1;            // RoBERTa: pad_token_id's default; positions count from pad + 1
    Index positionCount = 0;            // sinusoidal: P when config.json says none
    bool embeddingsTimesSqrtD = false;  // Gemma: the token embeddings times sqrt(d_model)
    bool decoderStartsWithPad = false;  // an encoder-decoder's first decoder input is pad_token_id
    // The first layer's own input built alone (core/checkpoint/model_input_loading.hpp): its
    // tokenizer's kind, or none.
    std::optional<ModelInputRecipe> ownInput{};

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
// layer's (attention_rules.hpp), the logits' soft cap the recipe's.
constexpr FamilyRow gemmaRow(Family value, std::string_view name, std::array<std::string_view, 3> modelTypes)
{
    return {.value = value, .name = name,
            .layers = Family::Llama, .modelTypes = modelTypes,
            .stacks = FamilyStacks::Decoder,
            .embeddings = {.tokens = "{p}embed_tokens.weight"},
            .block = kGemma2Block,
            .finalNorm = "{p}norm",
            .readout = {.decoder = "lm_head.weight"},
            .layerCountWords = {"blocks (num_hidden_layers)"},
            .norm = PretrainedNorm::RmsNorm, .placement = NormPlacement::Pre,
            .epsilonKey = &CheckpointConfig::rmsNormEpsilon, .epsilon = 1e-6, .normWeightOffset = 1.0f,
            .activation = "gelu_pytorch_tanh",
            .positions = PretrainedPositions::Rotary, .embeddingsTimesSqrtD = true,
            .readoutKind = ReadoutKind::CausalLm, .tying = ReadoutTying::SaidElseTied};
}

inline constexpr std::array<FamilyRow, 16> kFamilyRows{{
    {.value = Family::Bert, .name = "BERT",
     .layers = Family::Bert, .modelTypes = {"bert"}, .otherModelTypes = true,
     .attention = {.projections = {"self.query", "self.key", "self.value", "output.dense"}},
     .stacks = FamilyStacks::Encoder,
     .embeddings = kBertEmbeddings, .block = kBertBlock,
     .readout = {.transform = "cls.predictions.transform.dense",
                 .transformNorm = "cls.predictions.transform.LayerNorm",
                 .decoder = "cls.predictions.decoder.weight", .bias = "cls.predictions.bias"},
     .layerCountWords = {"layers (num_hidden_layers)"},
     .epsilonKey = &CheckpointConfig::layerNormEpsilon, .epsilon = 1e-12, .activation = "gelu",
     .absolutePositionsOnly = true, .ownInput = ModelInputRecipe::Bert,
     .readoutKind = ReadoutKind::MaskedLm},
    // create_position_ids_from_input_ids: positions count from padding_idx + 1.
    {.value = Family::Roberta, .name = "RoBERTa",
     .layers = Family::Bert, .prefixHint = "roberta.", .modelTypes = {"roberta", "xlm-roberta"},
     .stacks = FamilyStacks::Encoder,
     .embeddings = kBertEmbeddings, .block = kBertBlock,
     .readout = {.transform = "lm_head.dense", .transformNorm = "lm_head.layer_norm",
                 .decoder = "lm_head.decoder.weight", .bias = "lm_head.bias"},
     .layerCountWords = {"layers (num_hidden_layers)"},
     .epsilonKey = &CheckpointConfig::layerNormEpsilon, .epsilon = 1e-12, .activation = "gelu",
     .absolutePositionsOnly = true, .padPositions = 1,
     .readoutKind = ReadoutKind::MaskedLm},
    // DistilBERT's LayerNorms fix eps = 1e-12 (no config key).
    {.value = Family::DistilBert, .name = "DistilBERT",
     .layers = Family::DistilBert, .modelTypes = {"distilbert"}, .otherModelTypes = true,
     .attention = {.projections = {"q_lin", "k_lin", "v_lin", "out_lin"}},
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
    {.value = Family::Gpt2, .name = "GPT-2",
     .layers = Family::Gpt2, .modelTypes = {"gpt2"}, .otherModelTypes = true,
     .attention = {.projections = {"c_attn", "c_attn", "c_attn", "c_proj"}, .storage = QkvStorage::Conv1DFused,
                   .kind = LayerKindRule::Causal},
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
     .ownInput = ModelInputRecipe::Gpt2,
     .readoutKind = ReadoutKind::CausalLm},
    // LlamaForCausalLM (Mistral and Qwen2 name their tensors alike): pre-RMSNorm, SwiGLU (its gate's
    // nonlinearity is hidden_act, which must be silu), rotary positions with rope_theta, g
    // key/value heads, lm_head absent when tied to model.embed_tokens. eps: LlamaConfig's default.
    // Its attention names are the layer family of every row with .layers = Family::Llama.
    {.value = Family::Llama, .name = "LLaMA-style",
     .layers = Family::Llama, .modelTypes = {"llama"}, .otherModelTypes = true,
     .attention = {.projections = {"q_proj", "k_proj", "v_proj", "o_proj"}, .kind = LayerKindRule::Causal,
                   .qkNorms = {"q_norm", "k_norm"}},
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
    // Qwen3ForCausalLM: LLaMA's row, but each head's q and k are RMS-normalised (q_norm, k_norm over
    // d_k, one scale shared by the heads) before the rotation, and d_k is config.json's head_dim
    // (Qwen3-0.6B: d_model 1024, h 16, d_k 128), not d_model / h; no biases (attention_bias false).
    // Its use_sliding_window is read as Qwen2's (checkpoint_config.hpp).
    {.value = Family::Qwen3, .name = "Qwen3",
     .layers = Family::Llama, .modelTypes = {"qwen3"},
     .stacks = FamilyStacks::Decoder,
     .embeddings = {.tokens = "{p}embed_tokens.weight"},
     .block = kLlamaBlock,
     .finalNorm = "{p}norm",
     .readout = {.decoder = "lm_head.weight"},
     .layerCountWords = {"blocks (num_hidden_layers)"},
     .norm = PretrainedNorm::RmsNorm, .placement = NormPlacement::Pre,
     .epsilonKey = &CheckpointConfig::rmsNormEpsilon, .epsilon = 1e-6, .queryKeyNorm = QueryKeyNorm::PerHead,
     .activation = "silu",
     .positions = PretrainedPositions::Rotary,
     .readoutKind = ReadoutKind::CausalLm, .tying = ReadoutTying::SaidElseUnlessStored},
    // BartForConditionalGeneration: model.shared is both stacks' token table (their embed_tokens
    // are tied copies) and the readout; post-LayerNorm blocks with eps 1e-5 (nn.LayerNorm's
    // default: no config key); BartLearnedPositionalEmbedding never reads rows 0 and 1.
    {.value = Family::Bart, .name = "BART",
     .layers = Family::Bart, .modelTypes = {"bart"},
     .layerName = "BART/Marian",
     .attention = {.projections = {"q_proj", "k_proj", "v_proj", "out_proj"}, .kind = LayerKindRule::FromPath},
     .headCountPerStack = true,
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
    {.value = Family::Marian, .name = "Marian",
     .layers = Family::Bart, .modelTypes = {"marian"},
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
    // (attention_rules.hpp); neither has a cap in Gemma 3.
    [] {
        FamilyRow row = gemmaRow(Family::Gemma2, "Gemma 2", {"gemma2"});
        row.slidingLayers = SlidingLayers::EvenBlocks;
        return row;
    }(),
    [] {
        FamilyRow row = gemmaRow(Family::Gemma3, "Gemma 3", {"gemma3_text", "gemma3"});
        row.queryKeyNorm = QueryKeyNorm::PerHead;
        row.slidingLayers = SlidingLayers::AllButEveryPth;
        row.slidingPattern = 6;
        row.scoreSoftCapRead = false;  // Gemma3Attention never passes its attn_logit_softcapping on
        return row;
    }(),
    // Phi3ForCausalLM (and Phi-4-mini, model_type phi3 too): LLaMA's block with Q, K, V in one
    // qkv_proj (the layer loader splits it) and gate and up in one gate_up_proj.
    {.value = Family::Phi3, .name = "Phi-3",
     .layers = Family::Phi3, .modelTypes = {"phi3"}, .otherModelTypes = true,
     .attention = {.projections = {"qkv_proj", "qkv_proj", "qkv_proj", "o_proj"},
                   .storage = QkvStorage::FusedByProjection, .kind = LayerKindRule::Causal},
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
    {.value = Family::GptNeox, .name = "GPT-NeoX",
     .layers = Family::GptNeox, .modelTypes = {"gpt_neox"}, .otherModelTypes = true,
     .attention = {.projections = {"query_key_value", "query_key_value", "query_key_value", "dense"},
                   .storage = QkvStorage::FusedPerHead, .moduleEndsIn = {"attention"}, .kind = LayerKindRule::Causal},
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
    {.value = Family::Olmo2, .name = "OLMo 2",
     .layers = Family::Llama, .modelTypes = {"olmo2"},
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
     .epsilonKey = &CheckpointConfig::rmsNormEpsilon, .epsilon = 1e-6, .queryKeyNorm = QueryKeyNorm::Whole,
     .activation = "silu",
     .positions = PretrainedPositions::Rotary,
     .readoutKind = ReadoutKind::CausalLm, .tying = ReadoutTying::SaidElseUnlessStored},
    // T5's layers load one at a time: q, k, v, o without biases, scores not scaled by 1/sqrt(d_k),
    // and a relative position bias added to them (left out); no absolute positions.
    {.value = Family::T5, .name = "T5",
     .layers = Family::T5, .modelTypes = {"t5"}, .wholeModel = false,
     .attention = {.projections = {"q", "k", "v", "o"}, .moduleEndsIn = {"SelfAttention", "EncDecAttention"},
                   .kind = LayerKindRule::FromPath},
     .headDimKey = "d_kv", .scaleScores = false, .relativePositionBias = true,
     .stacks = FamilyStacks::EncoderDecoder,
     .positions = PretrainedPositions::None},
    // nn.MultiheadAttention (a PyTorch state dict, e.g. of nn.Transformer): one in_proj_weight for
    // Q, K and V (or q_proj_weight ... when kdim differs, refused), out_proj; no mask stored, so the
    // kind is read from the module path; the module holds no positions (the paper's sinusoids).
    {.value = Family::PyTorch, .name = "PyTorch nn.MultiheadAttention",
     .layers = Family::PyTorch, .wholeModel = false,
     .attention = {.projections = {"in_proj", "in_proj", "in_proj", "out_proj"}, .storage = QkvStorage::InProjFused,
                   .kind = LayerKindRule::FromPath},
     .storesNoMask = true,
     .stacks = FamilyStacks::EncoderDecoder,
     .positions = PretrainedPositions::Sinusoidal},
    // A model trained in this app: no checkpoint holds one (its recipe comes from its ModelSpec,
    // core/pretrained/trained_model_recipe.hpp), so it names no tensors and no model_type, and
    // shares nn.MultiheadAttention's layer row (no names either) to stay out of recognition.
    {.value = Family::Trained, .name = "Trained in QKV Studio",
     .layers = Family::PyTorch, .wholeModel = false,
     .stacks = FamilyStacks::EncoderDecoder,
     .positions = PretrainedPositions::Sinusoidal},
}};
// clang-format on

// The row of `family` (every Family has one: tests/core/families/family_table_test.cpp).
const FamilyRow& familyRow(Family family);
// The row of a layer's attention names: its layer family's (familyRow(row.layers)).
const FamilyRow& layerFamilyRow(Family family);
// "BERT, DistilBERT, GPT-2, ...": the layer families' names, for messages.
std::string layerFamilyNames();
// The row whose model_type spellings include `modelType`, or null.
const FamilyRow* familyOfModelType(std::string_view modelType);

// A row's patterns filled in: "{p}" -> prefix, "{s}" -> the stack's name, "{b}" -> block. Empty
// for an empty pattern.
std::string tensorName(std::string_view pattern, const std::string& prefix, ModelStack stack, Index block = 0);

// Refuses a row that lacks a name every family needs (the token table, the block's attention,
// norms and MLP, an encoder-decoder's cross-attention, the readout matrix of an LM head), or
// whose patterns do not fit its stacks ("{b}" in every block pattern, "{s}" only with two
// stacks), naming the row and the column; a layer family without its projections' names.
Status checkFamilyRow(const FamilyRow& row);

}  // namespace qkv
