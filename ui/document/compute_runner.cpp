#include "ui/document/compute_runner.hpp"

#include <new>

#include "core/cost/cost_model.hpp"
#include "core/embedding/model_own_input.hpp"
#include "core/text/tokenizer.hpp"
#include "ui/background/work_placement.hpp"

namespace qkv::ui {

ComputeRunner::ComputeRunner(QObject* parent)
    : QObject(parent), task_([this](const Outcome& outcome) { deliver(outcome); })
{
    task_.setBusyCallback([this](bool busy) { emit busyChanged(busy); });
}

double ComputeRunner::estimatedFlops(const qkv::Config& config, const qkv::UserInputs& inputs)
{
    const auto tokens = [&](const std::string& text, const std::shared_ptr<const qkv::MatrixF>& user) -> qkv::Count {
        if (user) return user->rows();
        if (config.embeddings == qkv::EmbeddingKind::Model && inputs.modelInput) {
            // Subwords outnumber words; +2 for the [CLS] and [SEP] BERT adds.
            if (const auto encoded = inputs.modelInput->tokenizer().encode(text))
                return static_cast<qkv::Count>(encoded->tokens.size()) + 2;
        }
        return static_cast<qkv::Count>(qkv::tokenize(text).size());
    };
    const qkv::Count source = tokens(config.sourceText, inputs.sourceEmbeddings);
    const qkv::Count target = tokens(config.targetText, inputs.targetEmbeddings);
    const qkv::Count n_q = config.queriesFromTarget() ? target : source;
    const qkv::Count n_k = config.keysFromTarget() ? target : source;
    return static_cast<double>(qkv::attentionForwardFlops(n_q, n_k, config.d_model, config.headCount));
}

ComputeRunner::Outcome ComputeRunner::run(const qkv::Config& config, const qkv::UserInputs& inputs,
                                          qkv::GeneratedWeightsCache* cache)
{
    try {
        auto computed = qkv::compute(config, inputs, cache);
        if (!computed) return {nullptr, QString::fromStdString(computed.error())};
        return {computed.value(), {}};
    } catch (const std::bad_alloc&) {
        // Validation bounds the sizes, but a large model can still exceed this machine's memory.
        return {nullptr, tr("Not enough memory for d_model = %1 with these sentences.").arg(config.d_model)};
    }
}

void ComputeRunner::request(const qkv::Config& config, const qkv::UserInputs& inputs, qkv::GeneratedWeightsCache* cache)
{
    // Fitting a positional preset or factoring a basis takes ~0.3-1 s the first time (then it
    // is cached): never on the GUI thread, however small the sentences.
    const bool presetsNeedWork = cache && cache->presets().needsWork(config);
    // A multiply-add is two floating-point operations.
    const auto where =
        presetsNeedWork ? LatestTaskBase::Run::InBackground : placementFor(estimatedFlops(config, inputs) / 2);
    task_.request([config, inputs, cache] { return run(config, inputs, cache); }, where);
}

void ComputeRunner::deliver(const Outcome& outcome)
{
    if (outcome.result)
        emit resultReady(outcome.result);
    else
        emit failed(outcome.error);
}

}  // namespace qkv::ui
