#pragma once
// One immutable Result: what compute() returns for a Config and every view, export and analysis
// reads (design: Config + Weights -> Result -> views). Below the pipeline, so that analysis/,
// export/ and the UI read a Result without including the code that computes it.

#include <memory>
#include <string>
#include <vector>

#include "core/attention/multi_head_attention.hpp"
#include "core/attention/streamed_attention.hpp"
#include "core/common/matrix.hpp"
#include "core/config/config.hpp"
#include "core/text/tokenizer.hpp"
#include "core/weights/attention_weights.hpp"

namespace qkv {

struct PretrainedModel;  // core/pretrained/pretrained_model.hpp

struct Result {
    Config config;
    std::vector<Token> queryTokens;         // tokens of the sentence that gives the queries
    std::vector<Token> keyTokens;           // ... that gives the keys and values
    // With the model's own input, these are its subword tokens ("##ing", "·cat", "[CLS]").
    std::vector<std::string> queryLabels;   // token texts, or t0, t1, ... for user embeddings
    std::vector<std::string> keyLabels;     //   whose row count differs from the token count
    MatrixF queryInput;                     // X_q,  n_q x d_model
    MatrixF keyValueInput;                  // X_kv, n_k x d_model
    // The weights before the scale sliders: the user's or generated, with the head presets
    // applied (what the weights editor edits). Never null in a Result.
    std::shared_ptr<const AttentionWeights> unscaledWeights;
    // As used: unscaledWeights times the scales (the same object when every scale is 1).
    std::shared_ptr<const AttentionWeights> weights;
    AttentionResult attention;
    // A long layer's heads (ComputeRequest::plan streamed, streamed_layer.hpp): each head's map
    // pooled (with its value norms when planned) and its row statistics. attention.heads' maps
    // are then empty: a region is recomputed exactly with headAttentionRegion.
    std::vector<StreamedAttention> streamedHeads;
    MatrixD transformedNorms;  // with pooled value norms: ||f_i(x_j)||, n_k x h
    double computeMilliseconds = 0.0;       // wall time of compute(), for the status bar
    // The whole pretrained model this layer belongs to, when its input is the model's own and
    // the model runs whole (ModelInput::wholeModel), or a trained model's layer's model
    // (core/pretrained/trained_model_recipe.hpp), else null; the layer's model-order index.
    std::shared_ptr<const PretrainedModel> wholeModel;
    Index wholeModelLayer = -1;

    const HeadGrouping& grouping() const { return attention.grouping; }
    bool streamed() const { return !streamedHeads.empty(); }
};

}  // namespace qkv
