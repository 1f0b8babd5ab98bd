#include "ui/predict/head_ranking_panel.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalBlocker>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <new>

#include "ui/figures/shown_text.hpp"
#include "ui/predict/table_cell.hpp"
#include "ui/wholemodel/whole_model_runs.hpp"

namespace qkv::ui {
namespace {

enum Column { HeadColumn, LayerColumn, BeforeColumn, AfterColumn, ChangeColumn, ColumnCount };

const qkv::PositionPredictions* baselineAt(const qkv::ModelOverview& overview, qkv::Index position)
{
    for (const qkv::PositionPredictions& p : overview.baselinePredictions)
        if (p.position == position) return &p;
    return nullptr;
}

}  // namespace

HeadRankingPanel::HeadRankingPanel(WholeModelRuns* runs, QWidget* parent)
    : QWidget(parent), runs_(runs), tokenBox_(new QComboBox(this)),
      rankButton_(new QPushButton(tr("Ran&k heads"), this)), stopButton_(new QPushButton(tr("Stop"), this)),
      progress_(new QProgressBar(this)), status_(new QLabel(this)), table_(new QTableWidget(0, ColumnCount, this)),
      switchOffButton_(new QPushButton(tr("Switch off"), this)), progressTimer_(new QTimer(this))
{
    tokenBox_->setToolTip(tr("The token whose probability the ranking follows: one of the top 5 with every head "
                             "on, with its probability then"));
    // As wide as its longest entry: a token is never cut.
    tokenBox_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    tokenBox_->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    rankButton_->setToolTip(
        tr("Switch each head that is on off in turn, re-run the model from its layer, and rank "
           "the heads by how much the token's probability changes"));
    auto* forLabel = new QLabel(tr("for"), this);
    forLabel->setBuddy(tokenBox_);
    tokenBox_->setAccessibleName(tr("Token the ranking follows"));
    auto* bar = new QHBoxLayout;
    bar->addWidget(rankButton_);
    bar->addWidget(forLabel);
    bar->addWidget(tokenBox_);
    bar->addStretch(1);
    progress_->setTextVisible(true);
    progress_->setFormat(tr("%v of %m heads"));
    progress_->hide();
    status_->setWordWrap(true);
    status_->setTextFormat(Qt::PlainText);
    table_->setHorizontalHeaderLabels({tr("head"), tr("layer"), tr("p before"), tr("p after"), tr("change")});
    table_->horizontalHeaderItem(HeadColumn)
        ->setToolTip(tr("layer.head as --ablate writes it (layer as --list-layers "
                        "numbers it, head from 1)"));
    table_->horizontalHeaderItem(ChangeColumn)->setToolTip(tr("p after − p before, in percentage points"));
    table_->verticalHeader()->setVisible(false);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setTabKeyNavigation(false);  // Tab leaves the table; arrow keys move between its cells
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setSectionResizeMode(LayerColumn, QHeaderView::Stretch);
    table_->setMinimumHeight(120);
    table_->setWordWrap(false);
    table_->setTextElideMode(Qt::ElideMiddle);
    table_->setAccessibleName(tr("Heads ranked by their effect on the prediction"));
    switchOffButton_->setToolTip(
        tr("Switch the selected row's head off in the whole model (also: double-click a row)"));
    auto* bottom = new QHBoxLayout;
    bottom->addWidget(status_, 1);
    // Stop beside Switch off, not beside the token: the sentence "Rank heads for «·h» (98.9 %)"
    // keeps its room at 1000 x 700.
    bottom->addWidget(stopButton_, 0, Qt::AlignTop);
    bottom->addWidget(switchOffButton_, 0, Qt::AlignTop);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(progress_);
    layout->addLayout(bottom);
    layout->addWidget(table_, 1);
    // Tab in reading order: the bar left to right, the buttons below it, then the table.
    const QList<QWidget*> reading{rankButton_, tokenBox_, stopButton_, switchOffButton_, table_};
    for (qsizetype i = 1; i < reading.size(); ++i) setTabOrder(reading[i - 1], reading[i]);

    progressTimer_->setInterval(100);
    connect(progressTimer_, &QTimer::timeout, this, &HeadRankingPanel::showProgress);
    connect(rankButton_, &QPushButton::clicked, this, &HeadRankingPanel::rank);
    connect(stopButton_, &QPushButton::clicked, this, &HeadRankingPanel::stop);
    connect(tokenBox_, &QComboBox::activated, this, &HeadRankingPanel::setTokenIndex);
    connect(switchOffButton_, &QPushButton::clicked, this, [this] {
        const QList<QTableWidgetItem*> selected = table_->selectedItems();
        if (!selected.isEmpty()) switchOffRow(selected.front()->row());
    });
    connect(table_, &QTableWidget::cellDoubleClicked, this, [this](int row, int) { switchOffRow(row); });
    connect(table_, &QTableWidget::itemSelectionChanged, this, &HeadRankingPanel::updateControls);
    ranking_.setBusyCallback([this](bool busy) {
        if (busy)
            progressTimer_->start();
        else
            progressTimer_->stop();
        updateControls();
    });
    updateControls();
}

HeadRankingPanel::~HeadRankingPanel()
{
    // The running candidate finishes; the rest are skipped, so the task's destructor waits briefly.
    if (progressState_) progressState_->stop = true;
}

void HeadRankingPanel::setTarget(std::shared_ptr<const qkv::ModelOverview> overview, qkv::Index position,
                                 std::shared_ptr<const PredictedTokenNames> names)
{
    // Another sentence or model (another baseline run), or another prediction: what was ranked
    // (or is being ranked) no longer answers the question shown.
    const auto baselineOf = [](const std::shared_ptr<const qkv::ModelOverview>& o) {
        return o ? o->baseline : nullptr;
    };
    const bool sameQuestion =
        overview && overview_ && baselineOf(overview) == baselineOf(overview_) && position == position_;
    if (!sameQuestion) {
        cancelRanking();
        clearRanking();
        tokenIndex_ = 0;
    }
    overview_ = std::move(overview);
    names_ = std::move(names);
    position_ = position;
    fillTokens();
    if (sameQuestion) fillTable();  // the heads now off are marked
    updateControls();
}

void HeadRankingPanel::fillTokens()
{
    const QSignalBlocker blocker(tokenBox_);
    tokenBox_->clear();
    const qkv::PositionPredictions* top = overview_ ? baselineAt(*overview_, position_) : nullptr;
    if (!top) return;
    for (const qkv::TokenProbability& token : top->top)
        tokenBox_->addItem(
            tr("«%1» (%2)").arg(names_->of(token.id), probabilityText(token.probability)), token.id);
    tokenIndex_ = std::clamp(tokenIndex_, 0, tokenBox_->count() - 1);
    tokenBox_->setCurrentIndex(tokenIndex_);
}

void HeadRankingPanel::setTokenIndex(int index)
{
    if (index < 0 || index >= tokenBox_->count() || index == tokenIndex_) return;
    tokenIndex_ = index;
    const QSignalBlocker blocker(tokenBox_);
    tokenBox_->setCurrentIndex(index);
    cancelRanking();
    clearRanking();
    updateControls();
}

std::int32_t HeadRankingPanel::tokenId() const
{
    return tokenBox_->count() > 0 ? static_cast<std::int32_t>(tokenBox_->itemData(tokenIndex_).toInt()) : -1;
}

void HeadRankingPanel::rank()
{
    if (!overview_ || position_ < 0 || tokenBox_->count() == 0) return;
    cancelRanking();
    clearRanking();
    auto progress = std::make_shared<Progress>();
    progressState_ = progress;
    rankedOverview_ = overview_;
    progress_->setRange(0, 0);  // busy until the first candidate reports the total
    progress_->show();
    status_->setText(tr("Ranking the heads: each one switched off in turn, the model re-run from its layer…"));
    ranking_.request([overview = overview_, position = position_, id = tokenId(), progress] {
        Outcome outcome;
        try {
            qkv::Expected<std::vector<qkv::HeadEffect>> ranked =
                qkv::rankHeadsAtPosition(*overview, position, id, [&progress](qkv::Index done, qkv::Index total) {
                    progress->done = done;
                    progress->total = total;
                    return !progress->stop.load();
                });
            if (ranked)
                outcome.effects = std::move(*ranked);
            else if (progress->stop)
                outcome.stopped = true;
            else
                outcome.problem = QString::fromStdString(ranked.error());
        } catch (const std::bad_alloc&) {
            outcome.problem = tr("Not enough memory to rank the heads on these sentences: shorten them.");
        }
        outcome.done = progress->done;
        outcome.total = progress->total;
        return outcome;
    });
    updateControls();
}

void HeadRankingPanel::stop()
{
    if (!progressState_ || !ranking_.isBusy()) return;
    progressState_->stop = true;
    status_->setText(tr("Stopping after the head under way…"));
}

void HeadRankingPanel::cancelRanking()
{
    if (progressState_) progressState_->stop = true;
    progressState_.reset();
    ranking_.cancel();
    progress_->hide();
}

void HeadRankingPanel::clearRanking()
{
    effects_.clear();
    rankedOverview_.reset();
    table_->setRowCount(0);
    status_->setText(overview_ || position_ >= 0 ? tr("Rank the heads to see which ones this prediction depends on.")
                                                 : QString());
}

void HeadRankingPanel::deliver(Outcome outcome)
{
    progress_->hide();
    progressState_.reset();
    if (outcome.stopped) {
        clearRanking();
        status_->setText(tr("Stopped after %1 of %2 heads; nothing ranked.").arg(outcome.done).arg(outcome.total));
    } else if (!outcome.problem.isEmpty()) {
        clearRanking();
        status_->setText(outcome.problem);
    } else {
        effects_ = std::move(outcome.effects);
        const int count = static_cast<int>(effects_.size());
        const QString off = headsOffText(*rankedOverview_->model, rankedOverview_->ablatedHeads());
        const bool masked = rankedOverview_->model->recipe.readout == qkv::ReadoutKind::MaskedLm;
        const QString what = (masked ? tr("p(«%1») at %2") : tr("p(«%1») %2"))
                                 .arg(names_->of(tokenId()), predictionPositionName(*rankedOverview_, position_));
        const QString heads = count == 1 ? tr("1 head") : tr("%1 heads").arg(count);
        const QString how = off.isEmpty() ? tr("%1, each switched off alone.").arg(heads)
                                          : tr("%1, each switched off with %2.").arg(heads, off);
        status_->setText(tr("%1: %2 Double-click a row to switch it off.").arg(what, how));
        fillTable();
        // The head that matters most, ready for "Switch off".
        if (table_->rowCount() > 0) table_->selectRow(0);
    }
    updateControls();
    emit rankingEnded();
}

void HeadRankingPanel::fillTable()
{
    if (!rankedOverview_) return;
    const qkv::PretrainedModel& model = *rankedOverview_->model;
    table_->setRowCount(static_cast<int>(effects_.size()));
    const Qt::Alignment right = Qt::AlignRight | Qt::AlignVCenter;
    for (int row = 0; row < table_->rowCount(); ++row) {
        const qkv::HeadEffect& effect = effects_[static_cast<std::size_t>(row)];
        const qkv::ModelHead head{effect.candidate.layer, effect.candidate.head};
        const bool off = overview_ && overview_->isAblated(head);
        const QString name = off ? tr("%1 (off)").arg(headText(model, head)) : headText(model, head);
        table_->setItem(row, HeadColumn, readOnlyCell(name));
        QTableWidgetItem* layer = readOnlyCell(QString::fromStdString(rankedOverview_->layer(head.layer).layer.name));
        layer->setToolTip(plainAsRichText(layer->text()));  // a layer's name is the file's data
        table_->setItem(row, LayerColumn, layer);
        table_->setItem(row, BeforeColumn, readOnlyCell(probabilityText(effect.change.before), right));
        table_->setItem(row, AfterColumn, readOnlyCell(probabilityText(effect.change.after), right));
        table_->setItem(row, ChangeColumn, readOnlyCell(pointsText(effect.change.change), right));
    }
}

void HeadRankingPanel::switchOffRow(int row)
{
    if (row < 0 || row >= static_cast<int>(effects_.size())) return;
    const qkv::HeadCandidate& candidate = effects_[static_cast<std::size_t>(row)].candidate;
    runs_->setHeadOff({candidate.layer, candidate.head}, true);
}

void HeadRankingPanel::updateControls()
{
    const bool busy = ranking_.isBusy();
    rankButton_->setEnabled(!busy && overview_ && position_ >= 0 && tokenBox_->count() > 0);
    tokenBox_->setEnabled(!busy && tokenBox_->count() > 1);
    stopButton_->setEnabled(busy);
    // A row whose head is off already has nothing to switch off.
    const QList<QTableWidgetItem*> selected = table_->selectedItems();
    const int row = selected.isEmpty() ? -1 : selected.front()->row();
    const bool on = row >= 0 && row < static_cast<int>(effects_.size()) && overview_ &&
                    !overview_->isAblated({effects_[static_cast<std::size_t>(row)].candidate.layer,
                                           effects_[static_cast<std::size_t>(row)].candidate.head});
    switchOffButton_->setEnabled(!busy && on);
}

void HeadRankingPanel::showProgress()
{
    if (!progressState_) return;
    const qkv::Index total = progressState_->total;
    if (total <= 0) return;
    progress_->setRange(0, static_cast<int>(total));
    progress_->setValue(static_cast<int>(progressState_->done));
}

}  // namespace qkv::ui
