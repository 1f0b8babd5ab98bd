#include "ui/train/snapshot_maker.hpp"

#include <algorithm>

#include "core/training/trained_model.hpp"

namespace qkv::ui {
namespace {

// Held-out examples the head scores read at each snapshot: enough for a steady number, few
// enough that a snapshot costs a small part of the time between two.
constexpr std::size_t kScoredExamples = 32;
// The shown example is the longest of these first held-out ones.
constexpr std::size_t kExampleCandidates = 16;

std::vector<std::string> tokensOf(const qkv::Vocabulary& vocabulary, const std::vector<std::int32_t>& ids)
{
    std::vector<std::string> out;
    out.reserve(ids.size());
    for (std::int32_t id : ids)
        out.push_back(id >= 0 && id < vocabulary.size() ? vocabulary.token(id) : std::string("?"));
    return out;
}

// y_1 .. y_n: the target's words, without the <eos> the decoder ends with.
std::vector<std::int32_t> targetWords(const qkv::SequencePair& pair)
{
    std::vector<std::int32_t> out;
    for (std::int32_t id : pair.targetOutput)
        if (id >= 0 && id != qkv::Vocabulary::eos && id != qkv::Vocabulary::pad) out.push_back(id);
    return out;
}

}  // namespace

const qkv::TaskExample& shownExample(const qkv::TaskData& data)
{
    const std::vector<qkv::TaskExample>& heldOut = data.heldOut();
    const std::size_t candidates = std::min(heldOut.size(), kExampleCandidates);
    std::size_t best = 0;
    const auto length = [](const qkv::TaskExample& e) { return e.ids.source.size() + e.ids.targetInput.size(); };
    for (std::size_t i = 1; i < candidates; ++i)
        if (length(heldOut[i]) > length(heldOut[best])) best = i;
    return heldOut[best];
}

SnapshotMaker::SnapshotMaker(const qkv::TaskData& data) : task_(data.settings().kind)
{
    if (!data.heldOut().empty()) example_ = shownExample(data);
    const std::size_t scored = std::min(data.heldOut().size(), kScoredExamples);
    scored_.assign(data.heldOut().begin(), data.heldOut().begin() + static_cast<std::ptrdiff_t>(scored));
    const qkv::Vocabulary& vocabulary = data.vocabulary();
    sourceTokens_ = tokensOf(vocabulary, example_.ids.source);
    targetInputTokens_ = tokensOf(vocabulary, example_.ids.targetInput);
    if (data.isSequenceToSequence()) targetTokens_ = tokensOf(vocabulary, targetWords(example_.ids));
}

std::shared_ptr<const TrainingSnapshot> SnapshotMaker::make(const std::vector<const qkv::TrainingRun*>& runs,
                                                            TrainingSnapshot::State state, long totalSteps,
                                                            double seconds, double stepsPerSecond) const
{
    auto out = std::make_shared<TrainingSnapshot>();
    out->example = example_;
    out->sourceTokens = sourceTokens_;
    out->targetInputTokens = targetInputTokens_;
    out->targetTokens = targetTokens_;
    out->state = state;
    out->totalSteps = totalSteps;
    out->seconds = seconds;
    out->stepsPerSecond = stepsPerSecond;
    for (const qkv::TrainingRun* run : runs) {
        TrainedVariant variant;
        variant.model = qkv::TrainedModel::snapshot(*run);
        variant.trace = qkv::traceExample(run->parameters(), example_.ids);
        variant.heads = qkv::scoreHeads(run->parameters(), task_, scored_);
        out->steps = run->stepsDone();
        out->variants.push_back(std::move(variant));
    }
    return out;
}

}  // namespace qkv::ui
