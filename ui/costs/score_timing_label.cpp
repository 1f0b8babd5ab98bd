#include "ui/costs/score_timing_label.hpp"

#include "core/weights/attention_weights.hpp"

namespace qkv::ui {

namespace {

QString formatMilliseconds(double ms)
{
    if (ms >= 1.0) {
        return ScoreTimingLabel::tr("%1 ms").arg(QString::number(ms, 'f', 2));
    }
    return ScoreTimingLabel::tr("%1 µs").arg(QString::number(ms * 1000.0, ms * 1000.0 >= 10.0 ? 'f' : 'g', ms * 1000.0 >= 10.0 ? 1 : 3));
}

}  // namespace

ScoreTimingLabel::ScoreTimingLabel(QWidget* parent)
    : QLabel(parent), task_([this](const ScoreTiming& timing) {
          timing_ = timing;
          setText(timingText());
          emit timingUpdated();
      })
{
    setWordWrap(true);
    setTextInteractionFlags(Qt::TextSelectableByMouse);
}

void ScoreTimingLabel::measure(const std::shared_ptr<const Result>& result, int head)
{
    head_ = head;
    if (!result || head < 0 || head >= result->attention.headCount()) {
        task_.cancel();
        return;
    }
    setText(tr("Measuring both ways on this machine, a moment."));
    // The worker shares the immutable Result (kept alive by the capture) and cuts the head's
    // columns itself: at d_model 4096 and h 1 the two copies are 128 MB, too much for the GUI thread.
    task_.request([result, head] {
        // The layer's own head layout: with g < h key/value heads, query head i reads key head
        // i / (h / g), whose columns are not W^K's i-th block.
        const HeadGrouping& grouping = result->attention.grouping;
        return timeScoresBothWays(result->queryInput, result->keyValueInput, result->weights->queryHead(head, grouping),
                                  result->weights->keyHead(head, grouping));
    });
}

QString ScoreTimingLabel::timingText() const
{
    if (!timing_ || !timing_->valid()) {
        return tr("Measuring both ways on this machine, a moment.");
    }
    const ScoreTiming& t = *timing_;
    const double ratio = t.factoredMilliseconds > 0 ? t.fullMilliseconds / t.factoredMilliseconds : 0.0;
    // The spread is said, so that two measurements that differ are not read as a contradiction.
    return tr("Measured here (head %1, float, Eigen, one thread; median of %2 samples of %3 runs): factored %4, "
              "full W_i %5, so the full W_i takes %6× as long (half of the samples between %7× and %8×; "
              "other work on this machine moves single samples).")
        .arg(head_ + 1)  // heads count from 1 on screen
        .arg(t.repetitions)
        .arg(t.evaluationsPerSample)
        .arg(formatMilliseconds(t.factoredMilliseconds), formatMilliseconds(t.fullMilliseconds))
        .arg(QString::number(ratio, 'f', 1), QString::number(t.ratioLow, 'f', 1), QString::number(t.ratioHigh, 'f', 1));
}

}  // namespace qkv::ui
