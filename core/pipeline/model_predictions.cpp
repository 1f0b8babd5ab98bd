#include "core/pipeline/model_predictions.hpp"

#include <string>

namespace qkv {

namespace {

bool isMaskToken(const SubwordToken& token)
{
    return token.special && (token.piece == "[MASK]" || token.piece == "<mask>");
}

}  // namespace

const SubwordTokenization& readoutSequence(const PretrainedModel& model, const ModelSentences& sentences)
{
    return model.recipe.encoderDecoder() ? sentences.decoder : sentences.sequence;
}

std::vector<Index> predictionPositions(const PretrainedModel& model, const ModelSentences& sentences)
{
    std::vector<Index> positions;
    const SubwordTokenization& sequence = readoutSequence(model, sentences);
    const auto n = static_cast<Index>(sequence.tokens.size());
    switch (model.recipe.readout) {
    case ReadoutKind::None: break;
    case ReadoutKind::CausalLm:
        for (Index p = 0; p < n; ++p) positions.push_back(p);
        break;
    case ReadoutKind::MaskedLm:
        for (Index p = 0; p < n; ++p)
            if (isMaskToken(sequence.tokens[static_cast<std::size_t>(p)])) positions.push_back(p);
        break;
    }
    return positions;
}

Expected<std::vector<PositionPredictions>> modelPredictions(const PretrainedModel& model, const ModelRun& run,
                                                            const ModelSentences& sentences, Index k,
                                                            const std::vector<PositionPredictions>* earlier, Index kept)
{
    std::vector<PositionPredictions> all;
    if (run.logits.size() == 0) return all;
    std::size_t next = 0;  // earlier's entries are in position order
    for (const Index position : predictionPositions(model, sentences)) {
        if (earlier && position < kept) {
            while (next < earlier->size() && (*earlier)[next].position < position) ++next;
            if (next < earlier->size() && (*earlier)[next].position == position &&
                static_cast<Index>((*earlier)[next].top.size()) == k) {
                all.push_back((*earlier)[next]);
                continue;
            }
        }
        const Index row = run.logitRow(position);
        if (row < 0)
            return Error{"the run did not compute the logits at position " + std::to_string(position) +
                         " (ask for it among the run's logit positions)"};
        Expected<std::vector<TokenProbability>> top = topPredictions(run.logits.row(row), k);
        if (!top) return Error{"the logits at position " + std::to_string(position) + ": " + top.error()};
        all.push_back({position, std::move(*top)});
    }
    return all;
}

}  // namespace qkv
