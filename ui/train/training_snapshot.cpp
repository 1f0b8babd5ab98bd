#include "ui/train/training_snapshot.hpp"

namespace qkv::ui {

const qkv::HeadScores* TrainedVariant::scores(qkv::Index layer, qkv::Index head) const
{
    for (const qkv::HeadScores& s : heads)
        if (s.layer == layer && s.head == head) return &s;
    return nullptr;
}

double TrainingSnapshot::secondsLeft() const
{
    if (state == State::Finished) return 0.0;
    if (!(stepsPerSecond > 0.0)) return -1.0;
    return static_cast<double>(totalSteps - steps) / stepsPerSecond;
}

const std::vector<std::string>& TrainingSnapshot::queryTokens(const qkv::AttentionLayerInfo& layer) const
{
    return layer.kind == qkv::AttentionMode::EncoderSelf ? sourceTokens : targetInputTokens;
}

const std::vector<std::string>& TrainingSnapshot::keyTokens(const qkv::AttentionLayerInfo& layer) const
{
    return layer.kind == qkv::AttentionMode::DecoderCausal ? targetInputTokens : sourceTokens;
}

}  // namespace qkv::ui
