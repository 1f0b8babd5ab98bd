#pragma once
// Runs qkv::compute() for the document through the one latest-only task (ui/views/
// latest_task.hpp): on the GUI thread when the work is small (no latency added), on the thread
// pool when it is large or a head preset must be fitted first (PresetCache::needsWork). A
// newer request supersedes the older ones, so dragging a slider never queues stale work.

#include <QObject>
#include <QString>

#include <memory>

#include "core/pipeline/compute.hpp"
#include "ui/background/latest_task.hpp"

namespace qkv::ui {

class ComputeRunner : public QObject {
    Q_OBJECT
public:
    explicit ComputeRunner(QObject* parent = nullptr);

    // Supersedes every earlier request. `request` was prepared (qkv::prepareCompute) and is valid.
    // `cache` (may be null) keeps generated weights between requests; it must outlive the
    // runner (the runner's destructor waits for the running computation).
    void request(std::shared_ptr<const qkv::ComputeRequest> request, qkv::GeneratedWeightsCache* cache = nullptr);
    bool isBusy() const { return task_.isBusy(); }
    quint64 generation() const { return task_.generation(); }

    // Multiply-adds of one forward pass (projections, scores, weighted sums, output), counted
    // from the token counts of the request's sentences, as compute() will see them.
    static double estimatedFlops(const qkv::ComputeRequest& request);

signals:
    void resultReady(std::shared_ptr<const qkv::Result> result);
    void failed(const QString& message);
    void busyChanged(bool busy);

private:
    struct Outcome {
        std::shared_ptr<const qkv::Result> result;
        QString error;
    };
    static Outcome run(const qkv::ComputeRequest& request, qkv::GeneratedWeightsCache* cache);
    void deliver(const Outcome& outcome);

    LatestTask<Outcome> task_;
};

}  // namespace qkv::ui
