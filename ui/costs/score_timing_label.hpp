#pragma once
// The measured time of one head's scores both ways on this machine (score_timing.hpp), measured
// off the GUI thread through the latest-only task: a newer request supersedes the running one.

#include <QLabel>

#include <memory>
#include <optional>

#include "core/pipeline/compute.hpp"
#include "ui/background/latest_task.hpp"
#include "ui/costs/score_timing.hpp"

namespace qkv::ui {

class ScoreTimingLabel : public QLabel {
    Q_OBJECT
public:
    explicit ScoreTimingLabel(QWidget* parent = nullptr);

    // Measures head `head` (0-based) of `result`; says "Measuring…" until it arrives. A null
    // result drops what is being measured.
    void measure(const std::shared_ptr<const Result>& result, int head);
    std::optional<ScoreTiming> lastTiming() const { return timing_; }
    // The sentence shown once a measurement has arrived (it names the head last asked for).
    QString timingText() const;

signals:
    void timingUpdated();

private:
    int head_ = 0;
    std::optional<ScoreTiming> timing_;
    LatestTask<ScoreTiming> task_;
};

}  // namespace qkv::ui
