#pragma once
// Runs qkv::compute() for the document: on the GUI thread when the work is small (no latency
// added), on the thread pool when it is large. A generation counter drops stale results, and
// at most one request waits while one runs, so dragging a slider never queues stale work.

#include <QObject>
#include <QString>

#include <memory>
#include <optional>

#include "core/pipeline/compute.hpp"

namespace qkv::ui {

class ComputeRunner : public QObject {
    Q_OBJECT
public:
    explicit ComputeRunner(QObject* parent = nullptr);

    // Supersedes every earlier request.
    // `cache` (may be null) keeps generated weights between requests; it must outlive them.
    void request(const qkv::Config& config, const qkv::UserInputs& inputs,
                 qkv::GeneratedWeightsCache* cache = nullptr);
    bool isBusy() const { return running_; }
    quint64 generation() const { return generation_; }

    // Work above this many floating-point operations runs off the GUI thread.
    void setAsyncThresholdFlops(double flops) { asyncThresholdFlops_ = flops; }
    // Multiply-adds of one forward pass (projections, scores, weighted sums, output), counted
    // from the token counts of the sentences the mode uses.
    static double estimatedFlops(const qkv::Config& config);

signals:
    void resultReady(std::shared_ptr<const qkv::Result> result);
    void failed(const QString& message);
    void busyChanged(bool busy);

private:
    struct Request {
        qkv::Config config;
        qkv::UserInputs inputs;
        qkv::GeneratedWeightsCache* cache = nullptr;
        quint64 generation = 0;
    };
    struct Outcome {
        std::shared_ptr<const qkv::Result> result;
        QString error;
    };
    static Outcome run(const qkv::Config& config, const qkv::UserInputs& inputs, qkv::GeneratedWeightsCache* cache);
    void start(Request request);
    void deliver(quint64 generation, const Outcome& outcome);

    quint64 generation_ = 0;
    bool running_ = false;
    std::optional<Request> pending_;
    double asyncThresholdFlops_ = 5e7;
};

}  // namespace qkv::ui
