#include "ui/predict/prediction_panel.hpp"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include <algorithm>

#include "ui/figure_widgets/chart_view.hpp"
#include "ui/predict/prediction_figures.hpp"
#include "ui/wholemodel/whole_model_runs.hpp"

namespace qkv::ui {

PredictionPanel::PredictionPanel(WholeModelRuns* runs, QWidget* parent)
    : QWidget(parent), runs_(runs), positionBox_(new QComboBox(this)), problem_(new QLabel(this)),
      chart_(new ChartView(this)), headsOffLabel_(new QLabel(this)),
      switchOnButton_(new QPushButton(tr("Switch all back on"), this))
{
    positionBox_->setToolTip(
        tr("Where the model predicts: the next token after a token (causal LM), or the token "
           "that fills a [MASK] (masked LM). Selecting a query row in another view chooses it "
           "too."));
    // As wide as its longest position, never cut; under its label where the panel is narrow.
    positionBox_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    positionBox_->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    auto* bar = new QFormLayout;
    bar->setRowWrapPolicy(QFormLayout::WrapLongRows);
    bar->setFieldGrowthPolicy(QFormLayout::FieldsStayAtSizeHint);
    bar->addRow(tr("Predict &at"), positionBox_);
    problem_->setWordWrap(true);
    problem_->setTextFormat(Qt::PlainText);
    problem_->hide();
    headsOffLabel_->setWordWrap(true);
    headsOffLabel_->setToolTip(
        tr("layer.head: the layer as --list-layers numbers it, the head from 1. The model is run "
           "again from the first switched-off head's layer on."));
    headsOffLabel_->setTextFormat(Qt::PlainText);
    switchOnButton_->setToolTip(tr("Switch every head of the model back on"));
    auto* off = new QHBoxLayout;
    off->addWidget(headsOffLabel_, 1);
    off->addWidget(switchOnButton_, 0, Qt::AlignTop);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(problem_);
    layout->addWidget(chart_, 1);
    layout->addLayout(off);
    connect(positionBox_, &QComboBox::activated, this,
            [this](int index) { setPosition(positionBox_->itemData(index).toLongLong()); });
    connect(switchOnButton_, &QPushButton::clicked, this, [this] { runs_->setHeadsOff({}); });
    showComparison();
}

void PredictionPanel::setOverview(std::shared_ptr<const qkv::ModelOverview> overview,
                                  std::shared_ptr<const PredictedTokenNames> names)
{
    overview_ = std::move(overview);
    names_ = std::move(names);
    fillPositions();
    showComparison();
}

void PredictionPanel::fillPositions()
{
    const QSignalBlocker blocker(positionBox_);
    positionBox_->clear();
    if (!overview_) return;
    const std::vector<qkv::Index> positions = overviewPredictionPositions(*overview_);
    for (const qkv::Index p : positions)
        positionBox_->addItem(predictionPositionName(*overview_, p), QVariant::fromValue<qlonglong>(p));
    const qkv::Index previous = position_;
    if (std::find(positions.begin(), positions.end(), position_) == positions.end())
        position_ = defaultPredictionPosition(*overview_);
    positionBox_->setCurrentIndex(positionBox_->findData(QVariant::fromValue<qlonglong>(position_)));
    positionBox_->setEnabled(positions.size() > 1);
    if (position_ != previous) emit positionChanged(position_);
}

void PredictionPanel::setPosition(qkv::Index position)
{
    if (!overview_ || position == position_) return;
    const int index = positionBox_->findData(QVariant::fromValue<qlonglong>(position));
    if (index < 0) return;
    position_ = position;
    {
        const QSignalBlocker blocker(positionBox_);
        positionBox_->setCurrentIndex(index);
    }
    showComparison();
    emit positionChanged(position_);
}

void PredictionPanel::showComparison()
{
    comparison_ = {};
    QString problem;
    if (overview_ && position_ >= 0) {
        qkv::Expected<PredictionComparison> comparison = comparePredictions(*overview_, position_, *names_);
        if (comparison)
            comparison_ = std::move(*comparison);
        else
            problem = QString::fromStdString(comparison.error());
    } else if (overview_) {
        problem =
            overview_->model->recipe.readout == qkv::ReadoutKind::None
                ? tr("This model has no readout (language-model head): it predicts no tokens.")
                : tr("This model fills [MASK] tokens: type [MASK] in the sentence to see what it predicts there.");
    }
    problem_->setText(problem);
    problem_->setVisible(!problem.isEmpty());
    chart_->setVisible(!comparison_.rows.empty());
    if (!comparison_.rows.empty()) {
        chart_->setModel(predictionsChart(comparison_));
        // Room for every token's bars and the values at their ends (up to 10 tokens when the
        // two top 5 differ), the title, the axis and the legend.
        chart_->setMinimumHeight(130 + 30 * static_cast<int>(comparison_.rows.size()));
    }
    const bool anyOff = overview_ && !overview_->ablatedHeads().empty();
    switchOnButton_->setEnabled(anyOff);
    switchOnButton_->setVisible(anyOff);
    if (anyOff)
        headsOffLabel_->setText(tr("Switched off: %1 (as --ablate writes them)")
                                    .arg(headsOffText(*overview_->model, overview_->ablatedHeads())));
    else if (overview_)
        headsOffLabel_->setText(
            tr("Every head is on. To switch one off: right-click a head in the Model tab, or rank "
               "the heads below and double-click a row."));
    else
        headsOffLabel_->clear();
}

}  // namespace qkv::ui
