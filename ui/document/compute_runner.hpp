#pragma once
// Runs qkv::compute() for the document through the one latest-only task (ui/views/
// latest_task.hpp): on the GUI thread when the work is small (no latency added), on the thread
// pool when it is large or a head preset must be fitted first (PresetCache::needsWork). A
// newer request supersedes the older ones, so dragging a slider never queues stale work.
// A long layer (a streamed plan, seconds at 32,768 tokens) reports its progress and can be
// stopped; a newer request stops it at once, since its result would be dropped anyway.

#include <QObject>
#include <QString>
#include <QTimer>

#include <atomic>
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
    // Ends the latest request's streamed computation: it delivers stopped(), never a result, so
    // whoever shows the earlier result keeps it. Nothing while no streamed computation runs.
    void stop();
    // Computations that ended early because they were stopped, by stop() or by a newer request.
    int stoppedCount() const { return stoppedCount_.load(); }

    // Multiply-adds of one forward pass (projections, scores, weighted sums, output), counted
    // from the token counts of the request's sentences, as compute() will see them.
    static double estimatedFlops(const qkv::ComputeRequest& request);

signals:
    void resultReady(std::shared_ptr<const qkv::Result> result);
    void failed(const QString& message);
    void busyChanged(bool busy);
    // A streamed computation's query rows finished, every head's together, of `total` (h n_q),
    // every quarter second while it runs; total 0 when it has ended.
    void progress(qkv::Index done, qkv::Index total);
    // The latest request was stopped (stop()): no result comes for it.
    void stopped();

private:
    // One streamed request's progress and stop flag, shared with its work on the pool.
    struct Stream {
        std::atomic<qkv::Index> rowsDone{0};
        std::atomic<bool> stop{false};
        qkv::Index totalRows = 0;
    };
    struct Outcome {
        std::shared_ptr<const qkv::Result> result;
        QString error;
        bool stopped = false;
    };
    static Outcome run(const qkv::ComputeRequest& request, qkv::GeneratedWeightsCache* cache, Stream* stream);
    void deliver(const Outcome& outcome);
    void reportProgress();

    std::shared_ptr<Stream> stream_;  // the latest request's, while it is streamed
    QTimer progressTimer_;
    std::atomic<int> stoppedCount_{0};
    LatestTask<Outcome> task_;  // last member: its destructor waits for the running work
};

}  // namespace qkv::ui
