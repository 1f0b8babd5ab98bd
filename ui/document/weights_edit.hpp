#pragma once
// What Document::editWeights() stores: the weights a head editor hands over, merged head by
// head into the weights the document keeps (Qt-free, so it is tested on its own).

#include <string>
#include <vector>

#include "core/session/session.hpp"
#include "core/weights/attention_weights.hpp"

namespace qkv::ui {

// Empty when `edited` can replace weights of `config`'s shape (d_model, g d_k, biases),
// `heads` name heads of the config (0-based) and every value is finite; otherwise why not.
std::string weightsEditProblem(const qkv::AttentionWeights& edited, const std::vector<qkv::Index>& heads,
                               const qkv::Config& config);

// `base` (the stored or generated weights, before presets) with the blocks of `heads` taken
// from `edited`: W^Q columns [i d_k, (i+1) d_k), the W^K and W^V columns of head i's key/value
// head, W^O rows [i d_k, (i+1) d_k), the matching bias entries; and b^O, which belongs to no
// head. Every other entry is base's. Shapes must agree (weightsEditProblem).
qkv::AttentionWeights mergeEditedHeads(const qkv::AttentionWeights& base, const qkv::AttentionWeights& edited,
                                       const std::vector<qkv::Index>& heads, const qkv::HeadGrouping& grouping);

// The provenance after editing `heads` of weights whose provenance is `before` (`stored`:
// whether the weights were stored, i.e. loaded or edited, rather than generated): one origin
// per head, the edited ones Edited.
qkv::WeightsProvenance editedProvenance(const qkv::WeightsProvenance& before, bool stored, qkv::Index headCount,
                                        const std::vector<qkv::Index>& heads);

}  // namespace qkv::ui
