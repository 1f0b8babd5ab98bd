#include "ui/heads/head_statistics_table.hpp"

#include <QEvent>
#include <QFontMetrics>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QScrollBar>
#include <QSplitter>
#include <QStandardItemModel>
#include <QStyle>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

#include "ui/background/work_placement.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/figures/figure_text.hpp"

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
      model_(new QStandardItemModel(this)), computingCaption_(new QTimer(this)),
      task_([this](Computed computed) { show(std::move(computed)); })
{
    computingCaption_->setSingleShot(true);
    computingCaption_->setInterval(250);
    connect(computingCaption_, &QTimer::timeout, this, [this] {
        caption_->setText(tr("<b>Per-head statistics</b> (means over the query rows) · computing…"));
    });
    caption_->setWordWrap(true);
    caption_->setText(tr("<b>Per-head statistics</b> (means over the query rows)"));
    model_->setColumnCount(ColumnCount);
    const QStringList headers = {tr("Head"), tr("Entropy"), tr("Norm."), tr("Dist."), tr("Max"), tr("Self")};
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
    table_->setAccessibleName(tr("Statistics of every head"));
    // Tab leaves the table (arrow keys move between its cells): a table of many cells is no trap.
    table_->setTabKeyNavigation(false);
    table_->setSortingEnabled(true);
    table_->sortByColumn(HeadColumn, Qt::AscendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    table_->horizontalHeader()->setHighlightSections(false);
    table_->setAlternatingRowColors(true);
    table_->setWordWrap(false);
    table_->setMinimumWidth(120);
    QFont compact = table_->font();  // a little smaller, like the grid's labels
    compact.setPointSizeF(compact.pointSizeF() * 0.9);
    table_->setFont(compact);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(caption_);
    layout->addWidget(table_, 1);
    layout->addStretch(0);  // beside the grid, under a table as tall as its rows and its footer

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
    connect(table_->horizontalHeader(), &QHeaderView::sortIndicatorChanged, this, [this] { fitColumnWidths(); });
}

HeadStatisticsTable::~HeadStatisticsTable() = default;  // task_ waits for its running work

void HeadStatisticsTable::setFooter(QWidget* footer)
{
    footer_ = footer;
    fitTableHeight();
}

bool HeadStatisticsTable::isBeside() const
{
    const auto* splitter = qobject_cast<const QSplitter*>(parentWidget());
    return !splitter || splitter->orientation() == Qt::Horizontal;
}

int HeadStatisticsTable::rowsHeight() const
{
    const int scrollBar = table_->horizontalScrollBar()->isVisible() ? table_->horizontalScrollBar()->height() : 0;
    return table_->verticalHeader()->length() + table_->horizontalHeader()->height() + scrollBar +
           2 * table_->frameWidth();
}

void HeadStatisticsTable::fitTableHeight()
{
    auto* box = static_cast<QVBoxLayout*>(layout());
    const int stretch = box->indexOf(table_);
    // The footer in the room beside the grid; under it, the table takes all its pane and the
    // footer goes back to its owner's layout (footerPlaced).
    const bool beside = isBeside();
    if (footer_ && beside != (footer_->parentWidget() == this)) {
        if (!beside) box->removeWidget(footer_);
        emit footerPlaced(beside);                  // its owner takes it out of, or into, its layout
        if (beside) box->insertWidget(2, footer_);  // under the table, above the stretch
    }
    if (beside) {
        table_->setMaximumHeight(std::max(rowsHeight(), table_->minimumSizeHint().height()));
        box->setStretch(stretch, 0);
        box->setStretch(box->count() - 1, 1);
    } else {
        table_->setMaximumHeight(QWIDGETSIZE_MAX);
        box->setStretch(stretch, 1);
        box->setStretch(box->count() - 1, 0);
    }
}

QSize HeadStatisticsTable::sizeHint() const
{
    // As wide as the columns need (fitInSplitter() keeps it to 2/5 of the splitter).
    return {std::max(columnsWidth(), 200), 300};
}

void HeadStatisticsTable::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (placed_) return;
    auto* splitter = qobject_cast<QSplitter*>(parentWidget());
    if (!splitter || splitter->count() != 2) return;
    placed_ = true;
    splitter->installEventFilter(this);
    fitInSplitter(true);
}

bool HeadStatisticsTable::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == parentWidget() && event->type() == QEvent::Resize) {
        // Crossing the width where the columns stop fitting beside the grid moves the table.
        const auto* splitter = static_cast<QSplitter*>(parentWidget());
        fitInSplitter(fitsBeside(splitter->width()) != (splitter->orientation() == Qt::Horizontal));
    }
    return QWidget::eventFilter(watched, event);
}

void HeadStatisticsTable::fitColumnWidths()
{
    // Qt's ResizeToContents leaves room for the sort arrow in every column (a header's height
    // each: a third of the table); only the sorted column shows it.
    QHeaderView* header = table_->horizontalHeader();
    const int margin = style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header);
    const QFontMetrics metrics(header->font());
    for (int c = 0; c < ColumnCount; ++c) {
        if (table_->isColumnHidden(c)) continue;
        int width = metrics.horizontalAdvance(model_->headerData(c, Qt::Horizontal).toString()) + 4 * margin;
        if (c == header->sortIndicatorSection()) width += header->sizeHint().height() + margin;
        header->resizeSection(c, std::max(width, static_cast<const QAbstractItemView*>(table_)->sizeHintForColumn(c)));
    }
}

int HeadStatisticsTable::columnsWidth() const
{
    return table_->horizontalHeader()->length() + 2 * table_->frameWidth() + 4;
}

bool HeadStatisticsTable::fitsBeside(int splitterWidth) const { return columnsWidth() <= splitterWidth * 2 / 5; }

void HeadStatisticsTable::fitInSplitter(bool first)
{
    auto* splitter = qobject_cast<QSplitter*>(parentWidget());
    if (!splitter || splitter->width() <= 0 || !isVisible()) return;
    fitColumnWidths();
    // Beside the grid while every column fits in 2/5 of the width; else under it, whole.
    const Qt::Orientation orientation = fitsBeside(splitter->width()) ? Qt::Horizontal : Qt::Vertical;
    if (splitter->orientation() != orientation) {
        splitter->setOrientation(orientation);
        first = true;
    }
    const bool beside = orientation == Qt::Horizontal;
    const int length = beside ? splitter->width() : splitter->height();
    const int most = length * 2 / 5;
    const int needed = beside ? std::max(columnsWidth(), 200) : wholeTableHeight();
    const int current = beside ? width() : height();
    const int wanted = first ? std::min(needed, most) : std::min(current, most);
    if (!first && wanted == current) return;
    fitTableHeight();
    QList<int> sizes{length - wanted - splitter->handleWidth(), wanted};
    if (splitter->indexOf(this) == 0) std::swap(sizes[0], sizes[1]);
    splitter->setSizes(sizes);
}

int HeadStatisticsTable::wholeTableHeight() const
{
    return caption_->sizeHint().height() + rowsHeight() + 8;
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
    const double cells = static_cast<double>(a.headCount() * a.queryCount() * a.keyCount());
    computingCaption_->start();
    task_.request(
        [result] {
            return Computed{result, qkv::headStatisticsSummaries(*result)};
        },
        placementFor(cells * kMultiplyAddsPerEntry));
}

void HeadStatisticsTable::show(Computed computed)
{
    computingCaption_->stop();
    summaries_ = std::move(computed.summaries);
    const bool self = computed.result && qkv::hasOwnPosition(computed.result->config.mode);
    const int sortColumn = table_->horizontalHeader()->sortIndicatorSection();
    const Qt::SortOrder order = table_->horizontalHeader()->sortIndicatorOrder();
    table_->setSortingEnabled(false);
    model_->setRowCount(0);
    for (std::size_t i = 0; i < summaries_.size(); ++i) {
        const qkv::HeadStatisticsSummary& s = summaries_[i];
        // The number alone, under the column's "Head": the table stays narrow beside the grid.
        auto* head = new QStandardItem(QString::number(i + 1));
        head->setData(static_cast<int>(i), Qt::UserRole);
        head->setEditable(false);
        if (computed.result && computed.result->attention.isAblated(static_cast<qkv::Index>(i)))
            head->setText(tr("%1 (off)").arg(head->text()));
        model_->appendRow({head, numberItem(s.entropy, 2), numberItem(s.normalizedEntropy, 2),
                           numberItem(s.meanDistance, 1), numberItem(s.maxWeight, 2), numberItem(s.selfWeight, 2)});
    }
    table_->setColumnHidden(SelfWeight, !self);
    table_->setSortingEnabled(true);
    table_->sortByColumn(sortColumn, order);
    fitColumnWidths();
    fitTableHeight();
    // The layouts above hear of a new size only: each notice relays out up to the tabs, whose
    // widget then repaints whole.
    if (sizeHint() != shownSizeHint_) {
        shownSizeHint_ = sizeHint();
        updateGeometry();
    }
    if (placed_ && !summaries_.empty()) fitInSplitter(true);
    caption_->setText(computed.result ? tr("<b>Per-head statistics</b>, means over %1 query rows (sortable)")
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
