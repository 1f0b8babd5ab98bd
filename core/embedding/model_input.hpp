#pragma once
// The model's own first-layer input X for any typed sentence: a
// checkpoint's tokenizer and its embedding tables, kept while the model's first attention layer
// is in use. core/checkpoint/model_input_loading.hpp builds one from a checkpoint; the pipeline
// (core/pipeline/compute.cpp) asks it for each sentence when Config::embeddings is Model.
//
// The recipes (first_layer_input.hpp has the formulas and their sources):
//   BERT   X = LayerNorm(word[ids] + position[0..n-1] + token_type[0]), ids = [CLS] ... [SEP]
//   GPT-2  X = ln_1(wte[ids] + wpe[0..n-1]), byte-level BPE ids, nothing added

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/expected.hpp"
#include "core/common/matrix.hpp"
#include "core/embedding/first_layer_input.hpp"
#include "core/text/subword_tokenizer.hpp"

namespace qkv {

struct PretrainedModel;  // core/pretrained/pretrained_model.hpp

enum class ModelInputRecipe { Bert, Gpt2 };

// The learned tables the recipe reads, as float (whatever the checkpoint's dtype).
struct ModelInputTables {
    ModelInputRecipe recipe = ModelInputRecipe::Bert;
    MatrixF tokenEmbeddings;      // V x d_model: word_embeddings (BERT), wte (GPT-2)
    MatrixF positionEmbeddings;   // P x d_model: position_embeddings, wpe; P limits the tokens
    MatrixF tokenTypeEmbeddings;  // T x d_model: BERT's token types (one sentence: row 0); empty for GPT-2
    LayerNormParameters norm;     // BERT's embeddings.LayerNorm, GPT-2's h.0.ln_1
};

// One sentence as the model reads it.
struct ModelSentence {
    SubwordTokenization tokens;  // the model's subword tokens (ids, pieces, chips)
    MatrixF input;               // X, n x d_model
};

// A later layer's X: the hidden states the layers below it compute from the sentence's ids
// (core/pipeline/layer_input.hpp runs a whole pretrained model for it). n x d_model.
using HiddenStatesOf = std::function<Expected<MatrixF>(const std::vector<std::int32_t>& ids)>;

// What a HiddenStatesOf input is: its width, how many tokens it takes, its formula in words.
struct HiddenStatesShape {
    Index d_model = 0;
    Index positionCount = 0;
    std::string formula;  // "X = the hidden state after BERT's layers 0..2 (post-LayerNorm, ...)"
};

class ModelInput {
public:
    // `origin` names where it came from, for people: "bert.encoder.layer.0.attention of
    // /data/bert/model.safetensors". The caller has checked the shapes (the loader does).
    ModelInput(SubwordTokenizer tokenizer, ModelInputTables tables, std::string origin);
    // Any layer: X from the layers below it. Shares the model `hiddenStates` holds.
    ModelInput(SubwordTokenizer tokenizer, HiddenStatesOf hiddenStates, HiddenStatesShape shape, std::string origin);

    // Tokens and X of `text`. Fails with a message a person can act on: a sentence longer than
    // the model's positions ("... this model's positions go up to 512"), no tokens, too large.
    Expected<ModelSentence> embed(std::string_view text) const;
    // X of tokens this model's tokenizer has already cut (n x d_model), so that a sentence cut
    // once per edit is not cut again to be embedded.
    Expected<MatrixF> embedTokens(const SubwordTokenization& tokens) const;

    Index d_model() const { return hiddenStates_ ? shape_.d_model : tables_.tokenEmbeddings.cols(); }
    Index positionCount() const { return hiddenStates_ ? shape_.positionCount : tables_.positionEmbeddings.rows(); }
    ModelInputRecipe recipe() const { return tables_.recipe; }
    const SubwordTokenizer& tokenizer() const { return tokenizer_; }
    const std::string& origin() const { return origin_; }
    // For the status line and tooltips, e.g. "X = LayerNorm(token + position + token type), as
    // BERT builds it; WordPiece, 30522 tokens, lower-cased (tokenizer_config.json); up to 512 tokens".
    std::string description() const;

    // The whole model the layer belongs to, when it runs whole (core/pipeline/layer_input.hpp
    // attaches it before the input is shared), and the layer's model-order index; else null, -1.
    // The Model and Predictions views run it on the typed sentences.
    void setWholeModel(std::shared_ptr<const PretrainedModel> model, Index modelIndex);
    const std::shared_ptr<const PretrainedModel>& wholeModel() const { return wholeModel_; }
    Index wholeModelLayer() const { return wholeModelLayer_; }

private:
    SubwordTokenizer tokenizer_;
    ModelInputTables tables_;      // the first layer's recipe (without hiddenStates_)
    HiddenStatesOf hiddenStates_;  // a later layer's, or empty
    HiddenStatesShape shape_;
    std::string origin_;
    std::shared_ptr<const PretrainedModel> wholeModel_;
    Index wholeModelLayer_ = -1;
};

// "X = LayerNorm(token + position + token type), as BERT builds it" / "X = ln_1(token +
// position), as GPT-2 builds it": the formula, one spelling for the app and the command line.
std::string_view modelInputFormula(ModelInputRecipe recipe);

}  // namespace qkv
