#include "ui/document/compute_runner.hpp"

#include <new>

#include "core/cost/cost_model.hpp"
#include "ui/background/work_placement.hpp"

namespace qkv::ui {

ComputeRunner::ComputeRunner(QObject* parent)
    : QObject(parent), task_([this](const Outcome& outcome) { deliver(outcome); })
{
    task_.setBusyCallback([this](bool busy) { emit busyChanged(busy); });
}

double ComputeRunner::estimatedFlops(const qkv::ComputeRequest& request)
{
    return static_cast<double>(qkv::attentionForwardFlops(request.queryTokenCount(), request.keyTokenCount(),
                                                          request.config.d_model, request.config.headCount));
}

ComputeRunner::Outcome ComputeRunner::run(const qkv::ComputeRequest& request, qkv::GeneratedWeightsCache* cache)
{
    try {
        auto computed = qkv::compute(request, cache);
        if (!computed) return {nullptr, QString::fromStdString(computed.error())};
        return {computed.value(), {}};
    } catch (const std::bad_alloc&) {
        // Validation bounds the sizes, but a large model can still exceed this machine's memory.
        return {nullptr, tr("Not enough memory for d_model = %1 with these sentences.").arg(request.config.d_model)};
    }
}

void ComputeRunner::request(std::shared_ptr<const qkv::ComputeRequest> request, qkv::GeneratedWeightsCache* cache)
{
    // Fitting a positional preset or factoring a basis takes ~0.3-1 s the first time (then it
    // is cached): never on the GUI thread, however small the sentences.
    const bool presetsNeedWork = cache && cache->presets().needsWork(request->config);
    // A multiply-add is two floating-point operations.
    const auto where =
        presetsNeedWork ? LatestTaskBase::Run::InBackground : placementFor(estimatedFlops(*request) / 2);
    task_.request([request = std::move(request), cache] { return run(*request, cache); }, where);
}

void ComputeRunner::deliver(const Outcome& outcome)
{
    if (outcome.result)
        emit resultReady(outcome.result);
    else
        emit failed(outcome.error);
}

}  // namespace qkv::ui
