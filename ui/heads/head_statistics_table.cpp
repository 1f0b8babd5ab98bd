#include "ui/heads/head_statistics_table.hpp"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

#include "ui/document/head_selection.hpp"
#include "ui/matrices/figure_text.hpp"

namespace qkv::ui {
namespace {

QStandardItem* numberItem(double value, int decimals)
{
    auto* item = new QStandardItem(std::isnan(value) ? QStringLiteral("—") : QString::number(value, 'f', decimals));
    // NaN (no row with a distribution) sorts below every number.
    item->setData(std::isnan(value) ? -std::numeric_limits<double>::infinity() : value, Qt::UserRole);
    item->setData(value, Qt::UserRole + 1);  // the exact number, for tests and copying
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    item->setEditable(false);
    return item;
}

}  // namespace

HeadStatisticsTable::HeadStatisticsTable(HeadSelection* selection, QWidget* parent)
    : QWidget(parent), selection_(selection), caption_(new QLabel(this)), table_(new QTableView(this)),
      model_(new QStandardItemModel(this)), task_([this](Computed computed) { show(std::move(computed)); })
{
    caption_->setWordWrap(true);
    caption_->setText(tr("<b>Per-head statistics</b> (means over the query rows)"));
    model_->setColumnCount(ColumnCount);
    const QStringList headers = {tr("Head"), tr("Entropy"), tr("Norm."), tr("Distance"), tr("Max"), tr("Self")};
    const QStringList tips = {
        tr("Heads from 1; click a row to select the head"),
        tr("Entropy of each query's attention row, −Σ_j a_ij ln a_ij (nats), averaged over the queries"),
        tr("Normalised entropy: entropy ÷ ln(number of visible keys); 0 = all weight on one key, 1 = uniform"),
        tr("Mean attention distance Σ_j a_ij |j − i|, in token positions: how far a query looks on average"),
        tr("Largest weight of each row, averaged: how peaked the head is"),
        tr("Weight on own position a_ii, averaged (self-attention only)")};
    model_->setHorizontalHeaderLabels(headers);
    for (int c = 0; c < ColumnCount; ++c) model_->horizontalHeaderItem(c)->setToolTip(tips[c]);
    model_->setSortRole(Qt::UserRole);

    table_->setModel(model_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(HeadColumn, Qt::AscendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setHighlightSections(false);
    table_->setAlternatingRowColors(true);
    table_->setWordWrap(false);
    table_->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    table_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(caption_);
    layout->addWidget(table_, 1);

    connect(table_, &QTableView::clicked, this, [this](const QModelIndex& index) {
        const int head = headOfRow(index.row());
        if (head >= 0) selection_->setHead(head);
    });
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                const int head = headOfRow(current.row());
                if (head >= 0) selection_->setHead(head);  // keyboard: ↑↓ in the table
            });
    connect(selection_, &HeadSelection::headChanged, this, &HeadStatisticsTable::followSelection);
}

HeadStatisticsTable::~HeadStatisticsTable() = default;  // task_ waits for its running work

QSize HeadStatisticsTable::sizeHint() const
{
    // As wide as the columns need (the grid keeps the rest).
    return {std::max(table_->sizeHint().width(), 240), 300};
}

int HeadStatisticsTable::headOfRow(int row) const
{
    const QStandardItem* item = model_->item(row, HeadColumn);
    return item ? item->data(Qt::UserRole).toInt() : -1;
}

void HeadStatisticsTable::setResult(std::shared_ptr<const qkv::Result> result)
{
    if (result == result_) return;
    result_ = result;
    if (!result) {
        task_.cancel();
        show({});
        return;
    }
    const qkv::AttentionResult& a = result->attention;
    const double work = static_cast<double>(a.headCount() * a.queryCount() * a.keyCount());
    caption_->setText(tr("<b>Per-head statistics</b> (means over the query rows) · computing…"));
    task_.request([result] { return Computed{result, qkv::headStatisticsSummaries(*result)}; },
                  work <= kAsynchronousWork ? LatestTaskBase::Run::InlineWhenIdle : LatestTaskBase::Run::InBackground);
}

void HeadStatisticsTable::show(Computed computed)
{
    summaries_ = std::move(computed.summaries);
    const bool self = computed.result && qkv::hasOwnPosition(computed.result->config.mode);
    const int sortColumn = table_->horizontalHeader()->sortIndicatorSection();
    const Qt::SortOrder order = table_->horizontalHeader()->sortIndicatorOrder();
    table_->setSortingEnabled(false);
    model_->setRowCount(0);
    for (std::size_t i = 0; i < summaries_.size(); ++i) {
        const qkv::HeadStatisticsSummary& s = summaries_[i];
        auto* head = new QStandardItem(figuretext::headName(static_cast<qkv::Index>(i)));
        head->setData(static_cast<int>(i), Qt::UserRole);
        head->setEditable(false);
        if (computed.result && computed.result->attention.isAblated(static_cast<qkv::Index>(i)))
            head->setText(tr("%1 (off)").arg(head->text()));
        model_->appendRow({head, numberItem(s.entropy, 3), numberItem(s.normalizedEntropy, 3),
                           numberItem(s.meanDistance, 2), numberItem(s.maxWeight, 3), numberItem(s.selfWeight, 3)});
    }
    table_->setColumnHidden(SelfWeight, !self);
    table_->setSortingEnabled(true);
    table_->sortByColumn(sortColumn, order);
    updateGeometry();
    caption_->setText(computed.result ? tr("<b>Per-head statistics</b> (means over %1 query rows; click a header to sort)")
                                            .arg(summaries_.empty() ? 0 : summaries_.front().rows)
                                      : tr("<b>Per-head statistics</b>"));
    followSelection();
    emit summariesReady();
}

void HeadStatisticsTable::followSelection()
{
    for (int row = 0; row < model_->rowCount(); ++row) {
        if (headOfRow(row) != selection_->head()) continue;
        const QSignalBlocker blocker(table_->selectionModel());
        table_->selectRow(row);
        table_->selectionModel()->setCurrentIndex(model_->index(row, 0), QItemSelectionModel::NoUpdate);
        table_->viewport()->update();
        return;
    }
}

}  // namespace qkv::ui
