#include "ui/document/compute_runner.hpp"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

#include "core/cost/cost_model.hpp"
#include "core/text/tokenizer.hpp"

namespace qkv::ui {

ComputeRunner::ComputeRunner(QObject* parent) : QObject(parent) {}

double ComputeRunner::estimatedFlops(const qkv::Config& config)
{
    const auto tokens = [](const std::string& text) { return static_cast<qkv::Count>(qkv::tokenize(text).size()); };
    const qkv::Count source = tokens(config.sourceText), target = tokens(config.targetText);
    const qkv::Count n_q = config.queriesFromTarget() ? target : source;
    const qkv::Count n_k = config.keysFromTarget() ? target : source;
    return static_cast<double>(qkv::attentionForwardFlops(n_q, n_k, config.d_model, config.headCount));
}

ComputeRunner::Outcome ComputeRunner::run(const qkv::Config& config, const qkv::UserInputs& inputs,
                                          qkv::GeneratedWeightsCache* cache)
{
    auto computed = qkv::compute(config, inputs, cache);
    if (!computed) return {nullptr, QString::fromStdString(computed.error())};
    return {computed.value(), {}};
}

void ComputeRunner::request(const qkv::Config& config, const qkv::UserInputs& inputs,
                            qkv::GeneratedWeightsCache* cache)
{
    Request next{config, inputs, cache, ++generation_};
    if (running_) {
        pending_ = std::move(next);  // replaces any older waiting request
        return;
    }
    if (estimatedFlops(config) < asyncThresholdFlops_) {
        deliver(next.generation, run(next.config, next.inputs, next.cache));
        return;
    }
    start(std::move(next));
}

void ComputeRunner::start(Request request)
{
    running_ = true;
    emit busyChanged(true);
    auto* watcher = new QFutureWatcher<Outcome>(this);
    const quint64 generation = request.generation;
    connect(watcher, &QFutureWatcher<Outcome>::finished, this, [this, watcher, generation] {
        const Outcome outcome = watcher->result();
        watcher->deleteLater();
        running_ = false;
        if (pending_) {
            Request next = std::move(*pending_);
            pending_.reset();
            start(std::move(next));
        } else {
            emit busyChanged(false);
        }
        deliver(generation, outcome);
    });
    watcher->setFuture(QtConcurrent::run([config = std::move(request.config),
                                          inputs = std::move(request.inputs), cache = request.cache] {
        return run(config, inputs, cache);
    }));
}

void ComputeRunner::deliver(quint64 generation, const Outcome& outcome)
{
    if (generation != generation_) return;  // a newer request superseded this one
    if (outcome.result)
        emit resultReady(outcome.result);
    else
        emit failed(outcome.error);
}

}  // namespace qkv::ui
