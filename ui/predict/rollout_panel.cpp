#include "ui/predict/rollout_panel.hpp"

#include <QComboBox>
#include <QFormLayout>
#include <QPainter>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include "ui/background/work_placement.hpp"
#include "ui/figure_widgets/figure_canvas.hpp"

namespace qkv::ui {

RolloutPanel::RolloutPanel(QWidget* parent)
    : QWidget(parent), stopBox_(new QComboBox(this)), canvas_(new FigureCanvas(QSize(560, 600), this))
{
    stopBox_->setToolTip(
        tr("The rollout multiplies the layers' attention up to this layer (numbered and named as "
           "--list-layers prints them)"));
    // As wide as its longest layer name, never cut; where the panel is narrower than the label and
    // the box, the box goes under its label.
    stopBox_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    stopBox_->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    auto* bar = new QFormLayout;
    bar->setRowWrapPolicy(QFormLayout::WrapLongRows);
    bar->setFieldGrowthPolicy(QFormLayout::FieldsStayAtSizeHint);
    bar->addRow(tr("Stop after la&yer"), stopBox_);
    canvas_->setMinimumHint(QSize(260, 320));
    canvas_->setAccessibleName(tr("Attention rollout"));
    canvas_->setPaint([this](QPainter& painter, const QRectF& rect) {
        if (!overview_) return;
        paintRollout(painter, rect, picture_, widgetFigureOptions(*canvas_));
    });
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(canvas_, 1);
    connect(stopBox_, &QComboBox::activated, this, [this](int index) { setStop(index); });
}

qkv::Index RolloutPanel::stopCount() const { return stopBox_->count(); }

void RolloutPanel::setOverview(std::shared_ptr<const qkv::ModelOverview> overview)
{
    if (overview == overview_) return;
    const bool sameModel = overview && overview_ && overview->model == overview_->model;
    overview_ = std::move(overview);
    {
        const QSignalBlocker blocker(stopBox_);
        stopBox_->clear();
        if (overview_)
            for (const qkv::Index layer : qkv::rolloutLayers(*overview_->model, *overview_->run))
                stopBox_->addItem(layerLabel(*overview_, layer));
        // A new model starts at its last layer; the same model keeps the user's stop.
        if (!sameModel || stop_ < 0 || stop_ >= stopBox_->count()) stop_ = stopBox_->count() - 1;
        stopBox_->setCurrentIndex(static_cast<int>(stop_));
    }
    stopBox_->setEnabled(stopBox_->count() > 1);
    recompute();
}

void RolloutPanel::setStop(qkv::Index stop)
{
    if (stop < 0 || stop >= stopBox_->count() || stop == stop_) return;
    stop_ = stop;
    const QSignalBlocker blocker(stopBox_);
    stopBox_->setCurrentIndex(static_cast<int>(stop));
    emit stopChanged(stop_);
    recompute();
}

void RolloutPanel::recompute()
{
    if (!overview_) {
        build_.cancel();
        show({});
        return;
    }
    const auto n = static_cast<double>(overview_->sentences.sequence.tokens.size());
    // Â_l R_{l-1} per layer: n^3 multiply-adds (attention_rollout.hpp), and the pixels.
    const double work = n * n * n * static_cast<double>(stop_ + 1) + n * n * kMultiplyAddsPerEntry;
    build_.request([overview = overview_, stop = stop_] { return makeRolloutPicture(*overview, stop); },
                   placementFor(work));
}

void RolloutPanel::show(RolloutPicture picture)
{
    picture_ = std::move(picture);
    canvas_->update();
    emit pictureChanged();
}

}  // namespace qkv::ui
