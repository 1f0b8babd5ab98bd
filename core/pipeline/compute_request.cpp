#include "core/pipeline/compute_request.hpp"

#include <algorithm>

#include "core/common/limits.hpp"
#include "core/pipeline/input_validation.hpp"

namespace qkv {

namespace {

Index tokenCount(const std::shared_ptr<const CutSentence>& cut, const std::shared_ptr<const MatrixF>& userEmbeddings)
{
    if (userEmbeddings) return userEmbeddings->rows();
    if (!cut) return 0;
    if (const SubwordTokenization* tokens = cut->modelTokens()) return static_cast<Index>(tokens->tokens.size());
    return static_cast<Index>(cut->words.size());
}

}  // namespace

Index ComputeRequest::queryTokenCount() const
{
    return config.queriesFromTarget() ? tokenCount(sentences.target, inputs.targetEmbeddings)
                                      : tokenCount(sentences.source, inputs.sourceEmbeddings);
}

Index ComputeRequest::keyTokenCount() const
{
    return config.keysFromTarget() ? tokenCount(sentences.target, inputs.targetEmbeddings)
                                   : tokenCount(sentences.source, inputs.sourceEmbeddings);
}

ComputeRequest prepareCompute(const Config& config, const UserInputs& inputs, const AnalysisPlan& plan,
                              const ComputeRequest* previous)
{
    ComputeRequest request{
        config, inputs, cutSentences(config, inputs, previous ? previous->sentences : CutSentences{}), {}, plan};
    request.issues = validateInputs(config, inputs, plan, request.sentences);
    return request;
}

ComputeRequest prepareDrawnCompute(const Config& config, const UserInputs& inputs, Index pooledBlocks,
                                   const ComputeRequest* previous)
{
    ComputeRequest request{config, inputs, cutSentences(config, inputs, previous ? previous->sentences : CutSentences{}),
                           {}, {}};
    const bool held = std::max(request.queryTokenCount(), request.keyTokenCount()) <= limits::maxFullMapTokens;
    if (!held) request.plan = streamedPlan({}, std::max<Index>(pooledBlocks, 1));
    request.issues = validateInputs(config, inputs, request.plan, request.sentences);
    return request;
}

}  // namespace qkv
