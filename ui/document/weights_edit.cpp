#include "ui/document/weights_edit.hpp"

namespace qkv::ui {

std::string weightsEditProblem(const qkv::AttentionWeights& edited, const std::vector<qkv::Index>& heads,
                               const qkv::Config& config)
{
    // The layer's shape: d_model, h d_k and g d_k from the config; W^V and W^O as wide as the
    // edited weights say (d_v is d_k except in a full W_i layer), checked by shapeProblem below.
    const qkv::Index d = config.d_model, width = config.g() * config.d_k(), queryWidth = config.headCount * config.d_k();
    if (edited.queryProjection.rows() != d || edited.queryProjection.cols() != queryWidth ||
        edited.outputProjection.cols() != d || edited.keyProjection.rows() != d || edited.keyProjection.cols() != width ||
        edited.valueProjection.rows() != d)
        return "the edited weights do not have the layer's shape (d_model = " + std::to_string(d) + ", W^Q " +
               std::to_string(d) + " x " + std::to_string(queryWidth) + ", W^K " + std::to_string(d) + " x " +
               std::to_string(width) + ")";
    if (edited.hasBias() != config.withBias)
        return config.withBias ? "the edited weights have no biases, the layer has" : "the edited weights have biases, the layer has none";
    if (const std::string problem = edited.shapeProblem(config.headCount); !problem.empty()) return problem;
    for (const qkv::Index head : heads)
        if (head < 0 || head >= config.headCount)
            return "head " + std::to_string(head + 1) + " is not a head of this layer (h = " +
                   std::to_string(config.headCount) + ")";
    if (!qkv::allFinite(edited)) return "the edited weights hold NaN or infinite values";
    return {};
}

qkv::AttentionWeights mergeEditedHeads(const qkv::AttentionWeights& base, const qkv::AttentionWeights& edited,
                                       const std::vector<qkv::Index>& heads, const qkv::HeadGrouping& grouping)
{
    qkv::AttentionWeights merged = base;
    const qkv::Index d_k = grouping.d_k, d_v = grouping.valueDim();
    for (const qkv::Index head : heads) {
        const qkv::Index kv = grouping.keyValueHeadOf(head);
        merged.queryHead(head, grouping) = edited.queryHead(head, grouping);    // d_model x d_k
        merged.keyHead(head, grouping) = edited.keyHead(head, grouping);        // d_model x d_k (shared by the group)
        merged.valueHead(head, grouping) = edited.valueHead(head, grouping);    // d_model x d_v
        merged.outputHead(head, grouping) = edited.outputHead(head, grouping);  // d_v x d_model
        if (merged.hasBias()) {
            merged.queryBias->segment(head * d_k, d_k) = edited.queryBias->segment(head * d_k, d_k);
            merged.keyBias->segment(kv * d_k, d_k) = edited.keyBias->segment(kv * d_k, d_k);
            merged.valueBias->segment(kv * d_v, d_v) = edited.valueBias->segment(kv * d_v, d_v);
        }
    }
    if (merged.hasBias()) merged.outputBias = edited.outputBias;
    return merged;
}

qkv::WeightsProvenance editedProvenance(const qkv::WeightsProvenance& before, bool stored, qkv::Index headCount,
                                        const std::vector<qkv::Index>& heads)
{
    qkv::WeightsProvenance after = stored ? before : qkv::WeightsProvenance{};
    // Stored weights without per-head origins came whole from their file.
    const qkv::HeadOrigin fill = stored ? qkv::HeadOrigin::File : qkv::HeadOrigin::Generated;
    after.heads.resize(static_cast<std::size_t>(headCount), fill);
    for (const qkv::Index head : heads)
        if (head >= 0 && head < headCount) after.heads[static_cast<std::size_t>(head)] = qkv::HeadOrigin::Edited;
    return after;
}

}  // namespace qkv::ui
