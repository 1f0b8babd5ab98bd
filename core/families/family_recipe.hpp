#pragma once
// What a pretrained family's forward pass is, as a small description (docs/architecture.md "Model"): the
// families differ only in these fields, never in copies of the forward pass
// (core/pretrained/model_run.cpp runs every family from its recipe; family_table.hpp says each
// family's values, core/pretrained/checkpoint_recipe.hpp fills a recipe from a checkpoint).
//
// Symbols: L blocks per stack, d_model, h heads, g key/value heads, d_ff the MLP's inner width,
// V vocabulary rows, P position rows.
//
// One block, for each placement of the norms (Xiong et al. 2020, "On Layer Normalization in the
// Transformer Architecture", figure 1):
//   post (BERT, RoBERTa, DistilBERT, BART, Marian; the paper's section 3.1):
//       h <- Norm(h + Attention(h));  h <- Norm(h + MLP(h))
//   pre  (GPT-2, LLaMA):
//       h <- h + Attention(Norm(h));  h <- h + MLP(Norm(h));  after the last block Norm_f(h)
//   pre, with norms on the sublayers' outputs too (Gemma 2 and 3: "sandwich"; OLMo 2 has only those):
//       h <- h + Norm'(Attention(Norm(h)));  h <- h + Norm'(MLP(Norm(h)))
//   parallel (GPT-NeoX with use_parallel_residual, Pythia):
//       h <- h + Attention(Norm_1(h)) + MLP(Norm_2(h))
// MLP(x) = act(x W_1 + b_1) W_2 + b_2, or gated: (act(x W_gate) * (x W_up)) W_down, SwiGLU with
// SiLU and GeGLU with GELU (Shazeer 2020, "GLU Variants Improve Transformer", equations (5), (6)).

#include <array>
#include <string>
#include <string_view>

#include "core/common/enum_names.hpp"
#include "core/common/matrix.hpp"
#include "core/config/rope_scaling.hpp"
#include "core/families/family.hpp"
#include "core/trainable/model_spec.hpp"

namespace qkv {

// The two stacks of an encoder-decoder; an encoder-only model has the encoder, a decoder-only
// model the decoder.
enum class ModelStack { Encoder, Decoder };

// None: blocks without norms (the app's trained attention-only models; the run reads what
// weights a block holds, normIfPresent in model_run.cpp).
enum class PretrainedNorm { LayerNorm, RmsNorm, None };
// Where the norms sit: NormPlacement (core/trainable/model_spec.hpp, shared with the app's own models).

// The MLP's nonlinearity, as config.json spells it (kActivationSpellings).
enum class BlockActivation {
    GeluErf,   // "gelu": x Phi(x) (Hendrycks & Gimpel 2016)
    GeluTanh,  // "gelu_new", "gelu_pytorch_tanh", "gelu_fast": the tanh approximation
    Relu,      // "relu"
    Silu,      // "silu", "swish": x sigmoid(x) (Elfwing et al. 2018)
    SwiGlu,    // LLaMA's gated MLP: SiLU on the gate, times the up projection
};
inline constexpr std::array<EnumName<BlockActivation>, 8> kActivationSpellings{{
    {BlockActivation::GeluErf, "gelu"},
    {BlockActivation::GeluTanh, "gelu_new"},
    {BlockActivation::GeluTanh, "gelu_pytorch_tanh"},
    {BlockActivation::GeluTanh, "gelu_fast"},
    {BlockActivation::Relu, "relu"},
    {BlockActivation::Silu, "silu"},
    {BlockActivation::Silu, "swish"},
    {BlockActivation::SwiGlu, "swiglu"},
}};

enum class PretrainedPositions {
    Learned,     // a table row per position, first row positionOffset (RoBERTa 2, BART 2)
    Rotary,      // rotate-half rotary positions inside attention (LLaMA)
    Sinusoidal,  // the paper's section 3.5 frequencies as a fixed table (EmbeddingWeights::positions):
                 // Marian's sines then cosines (marian_positions.hpp), a trained model's sine and
                 // cosine interleaved (core/trainable/model_steps.hpp)
    None,
};

// How the MLP's and readout's stored weights are laid out.
enum class LinearLayout {
    OutByIn,  // nn.Linear: weight is d_out x d_in, y = x weight^T + bias
    InByOut,  // GPT-2's Conv1D: weight is d_in x d_out, y = x weight + bias
};

enum class ReadoutKind {
    None,      // a bare model (BertModel, GPT2Model): hidden states only
    MaskedLm,  // t = Norm(act(h W_t + b_t)); logits = t E^T + b (BERT, RoBERTa, DistilBERT)
    CausalLm,  // logits = h E^T (GPT-2, LLaMA; BART adds final_logits_bias)
};

struct FamilyRecipe {
    Family family = Family::Bert;
    std::string prefix;  // before every name of the base model: "bert.", "transformer.", "model.", ""

    // Sizes (config.json where it says them, checked against the tensors' shapes).
    Index d_model = 0;
    Index encoderLayerCount = 0;  // L of the encoder stack (encoder-only and encoder-decoder)
    Index decoderLayerCount = 0;  // L of the decoder stack (decoder-only and encoder-decoder)
    Index headCount = 0;          // h
    Index keyValueHeadCount = 0;  // g
    Index d_ff = 0;               // the one stack's, or the encoder's
    Index decoderD_ff = 0;        // encoder-decoder: the decoder's (BART's decoder_ffn_dim); 0: d_ff
    Index vocabularySize = 0;     // V: rows of the token table
    Index positionCount = 0;      // P usable positions (table rows minus positionOffset); 0: unlimited

    // The block.
    PretrainedNorm norm = PretrainedNorm::LayerNorm;
    NormPlacement placement = NormPlacement::Post;
    double epsilon = 1e-12;
    float normWeightOffset = 0.0f;  // Gemma: each RMSNorm's scale is 1 + w (the family row's; added at load)
    BlockActivation activation = BlockActivation::GeluErf;  // on the gate in a gated MLP (SwiGlu: SiLU)
    bool gatedFeedForward = false;  // (act(x W_gate) * x W_up) W_down: SwiGLU (LLaMA), GeGLU (Gemma)
    LinearLayout linearLayout = LinearLayout::OutByIn;
    bool parallelResidual = false;  // GPT-NeoX: attention and MLP both read the block's input

    // The input.
    PretrainedPositions positions = PretrainedPositions::Learned;
    Index positionOffset = 0;      // row of the first position (RoBERTa: pad_token_id + 1)
    double ropeBase = 10000.0;     // rotary only
    RopeScaling ropeScaling;       // rotary only: config.json's rope_scaling (LLaMA 3.1+: llama3)
    Index slidingWindow = 0;       // causal self-attention: config.json's sliding_window (Mistral); 0: none
    float embeddingScale = 1.0f;   // sqrt(d_model) with BART's / Marian's scale_embedding, and Gemma's
    bool tokenTypes = false;       // BERT, RoBERTa: add token type 0's row
    bool embeddingNorm = false;    // a norm over the summed embeddings (BERT, DistilBERT, BART)
    Index padTokenId = -1;         // RoBERTa: pad tokens take position padTokenId; -1: none
    Index decoderStartTokenId = -1;  // encoder-decoder: the decoder's first input (teacher_forcing.hpp); -1: none

    // The output.
    bool finalNorm = false;  // GPT-2's ln_f, LLaMA's norm: on the last hidden state
    ReadoutKind readout = ReadoutKind::None;
    BlockActivation readoutActivation = BlockActivation::GeluErf;  // MaskedLm's transform
    double readoutEpsilon = 1e-12;                                 // MaskedLm's transform norm
    bool tiedReadout = true;  // the readout's E is the token table (not stored again)
    double finalLogitSoftCap = 0.0;  // Gemma 2: logits <- c tanh(logits / c); 0: none

    bool encoderDecoder() const { return encoderLayerCount > 0 && decoderLayerCount > 0; }
    Index feedForwardWidth(ModelStack stack) const
    {
        return stack == ModelStack::Decoder && decoderD_ff > 0 ? decoderD_ff : d_ff;
    }
    // The stack the one sequence of an encoder-only or decoder-only model runs through is
    // causal when it is a decoder (GPT-2, LLaMA).
    bool causal() const { return decoderLayerCount > 0 && encoderLayerCount == 0; }
};

// "post-LayerNorm, gelu, learned positions, masked-LM head tied to the token embeddings": one
// line for notes and the status line.
std::string recipeSummary(const FamilyRecipe& recipe);

}  // namespace qkv
