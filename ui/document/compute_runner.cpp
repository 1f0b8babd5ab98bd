#include "ui/document/compute_runner.hpp"

#include <new>

#include "core/cost/cost_model.hpp"
#include "ui/background/work_placement.hpp"

namespace qkv::ui {

ComputeRunner::ComputeRunner(QObject* parent)
    : QObject(parent), task_([this](const Outcome& outcome) { deliver(outcome); })
{
    task_.setBusyCallback([this](bool busy) {
        if (!busy) reportProgress();  // the last count, then total 0 if it has ended
        emit busyChanged(busy);
    });
    progressTimer_.setInterval(250);
    connect(&progressTimer_, &QTimer::timeout, this, &ComputeRunner::reportProgress);
}

void ComputeRunner::stop()
{
    if (stream_) stream_->stop = true;
}

void ComputeRunner::reportProgress()
{
    if (!stream_ || !task_.isBusy()) {
        progressTimer_.stop();
        stream_.reset();
        emit progress(0, 0);
        return;
    }
    emit progress(stream_->rowsDone.load(), stream_->totalRows);
}

double ComputeRunner::estimatedFlops(const qkv::ComputeRequest& request)
{
    return static_cast<double>(qkv::attentionForwardFlops(request.queryTokenCount(), request.keyTokenCount(),
                                                          request.config.d_model, request.config.headCount));
}

ComputeRunner::Outcome ComputeRunner::run(const qkv::ComputeRequest& request, qkv::GeneratedWeightsCache* cache,
                                          Stream* stream)
{
    try {
        const qkv::StreamControl control{stream ? &stream->rowsDone : nullptr, stream ? &stream->stop : nullptr};
        auto computed = qkv::compute(request, cache, control);
        if (!computed && stream && stream->stop) return {nullptr, {}, true};
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
    // A superseded long computation is stopped: its result would be dropped.
    if (stream_) stream_->stop = true;
    stream_.reset();
    std::shared_ptr<Stream> stream;
    if (request->plan.streamed()) {
        stream = std::make_shared<Stream>();
        stream->totalRows = request->config.headCount * request->queryTokenCount();
        stream_ = stream;
        progressTimer_.start();
    }
    task_.request(
        [this, request = std::move(request), cache, stream] {
            Outcome outcome = run(*request, cache, stream.get());
            if (outcome.stopped) ++stoppedCount_;
            return outcome;
        },
        stream ? LatestTaskBase::Run::InBackground : where);
}

void ComputeRunner::deliver(const Outcome& outcome)
{
    if (outcome.stopped)
        emit stopped();
    else if (outcome.result)
        emit resultReady(outcome.result);
    else
        emit failed(outcome.error);
}

}  // namespace qkv::ui
