#pragma once
// The logit lens (nostalgebraist 2020, "interpreting GPT: the logit lens"): what a causal language
// model would predict if it stopped after block l. The residual stream after block l (hidden
// state h_{l+1}) goes through the model's final norm and readout, at every position, and the
// softmax (in double, predictions.hpp) gives the top tokens. After the last block that is the run's
// own readout: its logits are the run's, so the last layer's lens equals the predictions.
//
// Symbols: L blocks (one attention layer each, model order), n tokens, V vocabulary.

#include <vector>

#include "core/common/expected.hpp"
#include "core/pipeline/model_predictions.hpp"
#include "core/pretrained/model_run.hpp"
#include "core/pretrained/pretrained_model.hpp"

namespace qkv {

struct LogitLensLayer {
    Index layer = 0;                            // model order
    std::vector<PositionPredictions> positions;  // every position 0..n-1, top k each
};

// `run`: a whole run of a causal language model with a readout, every position's logits
// computed (all, or every position chosen). Refused otherwise, with a message. L entries, one per block.
Expected<std::vector<LogitLensLayer>> logitLens(const PretrainedModel& model, const ModelRun& run, Index k = 5);

}  // namespace qkv
