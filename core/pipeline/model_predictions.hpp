#pragma once
// What a pretrained model predicts at the positions its readout reads: the top tokens after a
// causal LM's every position, or at each [MASK] of a masked LM. The Predict tab, the whole-model
// overview and the whole-model export all read these.

#include <string>
#include <vector>

#include "core/analysis/predictions.hpp"
#include "core/common/expected.hpp"
#include "core/pipeline/pretrained_run.hpp"

namespace qkv {

// The 5 most likely tokens at one position of the readout.
struct PositionPredictions {
    Index position = 0;  // in the sequence the readout reads (a decoder's, for an encoder-decoder)
    std::vector<TokenProbability> top;
};

// The positions the export predicts at: every position of a causal LM's (or an encoder-decoder's
// decoder) sequence, each [MASK] (or <mask>) of a masked LM's; none without a readout.
std::vector<Index> predictionPositions(const PretrainedModel& model, const ModelSentences& sentences);

// The top `k` tokens at each of predictionPositions. Fails on logits that are not finite.
// `earlier`: predictions of a run whose positions before `kept` are this run's (a causal model
// typed on): those positions are taken from it.
Expected<std::vector<PositionPredictions>> modelPredictions(const PretrainedModel& model, const ModelRun& run,
                                                            const ModelSentences& sentences, Index k = 5,
                                                            const std::vector<PositionPredictions>* earlier = nullptr,
                                                            Index kept = 0);

// The sequence the readout reads: the decoder's for an encoder-decoder, else the one sequence.
const SubwordTokenization& readoutSequence(const PretrainedModel& model, const ModelSentences& sentences);

}  // namespace qkv
