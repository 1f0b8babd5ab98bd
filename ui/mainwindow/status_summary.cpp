#include "ui/mainwindow/status_summary.hpp"

#include <algorithm>

namespace qkv::ui {

StatusSummary::StatusSummary(QWidget* parent) : QLabel(parent)
{
    setTextFormat(Qt::PlainText);
    refresh();
}

void StatusSummary::setResult(std::shared_ptr<const qkv::Result> result)
{
    result_ = std::move(result);
    error_.clear();
    refresh();
}

void StatusSummary::setBusy(bool busy)
{
    busy_ = busy;
    refresh();
}

void StatusSummary::setLoading(bool loading)
{
    loading_ = loading;
    refresh();
}

void StatusSummary::setModelLoad(qkv::Index done, qkv::Index total)
{
    modelDone_ = done;
    modelTotal_ = total;
    refresh();
}

void StatusSummary::setComputeProgress(qkv::Index done, qkv::Index total)
{
    computeDone_ = done;
    computeTotal_ = total;
    refresh();
}

void StatusSummary::setInvalid(bool invalid)
{
    invalid_ = invalid;
    refresh();
}

void StatusSummary::setError(const QString& error)
{
    error_ = error;
    refresh();
}

void StatusSummary::refresh()
{
    QStringList parts;
    if (result_) {
        const qkv::Config& c = result_->config;
        parts << tr("n_q = %1").arg(result_->attention.queryCount()) << tr("n_k = %1").arg(result_->attention.keyCount())
              << tr("d_model = %1").arg(c.d_model) << tr("h = %1").arg(c.headCount) << tr("d_k = %1").arg(c.d_k())
              << tr("computed in %1 ms").arg(result_->computeMilliseconds, 0, 'f', result_->computeMilliseconds < 10 ? 2 : 1);
    }
    if (loading_ && modelTotal_ > 0)
        parts << tr("reading the model: block %1 of %2…").arg(modelDone_).arg(modelTotal_);
    else if (loading_)
        parts << tr("reading a file…");
    if (busy_ && computeTotal_ > 0)
        parts << tr("computing the long layer: %1%…")
                     .arg(std::min<qkv::Index>(100, 100 * computeDone_ / computeTotal_));
    else if (busy_)
        parts << tr("computing…");
    if (invalid_) parts << tr("invalid settings: showing the last valid result");
    if (!error_.isEmpty()) parts << error_;
    setText(parts.join(QStringLiteral("  ·  ")));
}

}  // namespace qkv::ui
