#include "ui/compare/compare_view.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "ui/accessibility/accessible_cell_table.hpp"
#include "ui/accessibility/cell_table.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/figure_widgets/figure_canvas.hpp"
#include "ui/figures/figure_text.hpp"
#include "ui/figures/number_format.hpp"

namespace qkv::ui {

CompareView::CompareView(HeadSelection* selection, QWidget* parent)
    : ModelView(selection, Change::Head | Change::Cell,
                {.minimum = QSize(480, 360), .accessibleName = tr("Differences per head")}, parent),
      pinButton_(new QPushButton(tr("Pi&n the live result"), this)), unpinButton_(new QPushButton(tr("Unpin"), this)),
      pinnedLabel_(new QLabel(this)), modeBox_(new QComboBox(this)), quantityBox_(new QComboBox(this))
{
    pinButton_->setToolTip(tr("Keep the current result; every later change is compared with it"));
    modeBox_->addItem(tr("pinned − live"), static_cast<int>(CompareMode::PinnedMinusLive));
    modeBox_->addItem(tr("each head − the selected head"), static_cast<int>(CompareMode::HeadsMinusReference));
    quantityBox_->addItem(tr("attention weights"), static_cast<int>(CompareQuantity::Attention));
    quantityBox_->addItem(tr("scaled scores"), static_cast<int>(CompareQuantity::ScaledScores));
    quantityBox_->setItemData(1, tr("scaled score = q·k/√d_k, before the mask"), Qt::ToolTipRole);
    pinnedLabel_->setForegroundRole(QPalette::PlaceholderText);
    pinnedLabel_->setWordWrap(true);
    pinnedLabel_->setTextFormat(Qt::PlainText);
    pinnedLabel_->setMinimumWidth(80);

    auto* pinBar = new QHBoxLayout;
    pinBar->addWidget(pinButton_);
    pinBar->addWidget(unpinButton_);
    pinBar->addWidget(pinnedLabel_, 1);
    auto* bar = new QHBoxLayout;
    auto* showLabel = new QLabel(tr("Sho&w"), this);
    showLabel->setBuddy(modeBox_);
    bar->addWidget(showLabel);
    bar->addWidget(modeBox_);
    auto* ofLabel = new QLabel(tr("&of"), this);
    ofLabel->setBuddy(quantityBox_);
    bar->addWidget(ofLabel);
    bar->addWidget(quantityBox_);
    bar->addStretch(1);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 4);
    layout->addLayout(pinBar);
    layout->addLayout(bar);
    layout->addWidget(canvas(), 1);

    connect(pinButton_, &QPushButton::clicked, this, &CompareView::pin);
    connect(unpinButton_, &QPushButton::clicked, this, &CompareView::unpin);
    connect(modeBox_, &QComboBox::activated, this,
            [this](int index) { setMode(static_cast<CompareMode>(modeBox_->itemData(index).toInt())); });
    connect(quantityBox_, &QComboBox::activated, this,
            [this](int index) { setQuantity(static_cast<CompareQuantity>(quantityBox_->itemData(index).toInt())); });
    updatePinnedLabel();
    makeAccessibleTable();
}

void CompareView::makeAccessibleTable()
{
    // Pinned − live: the selected head's map (the head a click picks, as in the Heads tab).
    // Each head − the selected head: the selected head is the reference, so a cell names every
    // other head's difference, the row of panels a sighted reader scans.
    const auto shown = [this] { return model() && model()->ok() ? model().get() : nullptr; };
    CellTable table;
    table.caption = [this, shown] {
        const AttentionDifference* d = shown();
        if (!d) return model() ? model()->problem : tr("Differences per head: nothing to compare");
        return d->mode == CompareMode::PinnedMinusLive
                   ? tr("%1: pinned minus live").arg(headName(selection()->head()))
                   : tr("Each head minus %1").arg(headName(d->reference));
    };
    table.rowCount = [shown] { return shown() ? static_cast<int>(shown()->live->attention.queryCount()) : 0; };
    table.columnCount = [shown] { return shown() ? static_cast<int>(shown()->live->attention.keyCount()) : 0; };
    table.rowHeader = [shown](int row) { return tokenText(shown()->live->queryLabels, row); };
    table.columnHeader = [shown](int column) { return tokenText(shown()->live->keyLabels, column); };
    table.cellName = [this, shown](int row, int column) {
        const AttentionDifference& d = *shown();
        const auto difference = [&d, row, column](qkv::Index head) {
            const double value = d.differences[static_cast<std::size_t>(head)](row, column);
            return std::isnan(value) ? tr("masked") : preciseNumber(value);
        };
        const QString where = tr("query %1, key %2").arg(tokenName(d.live->queryLabels, row), tokenName(d.live->keyLabels, column));
        if (d.mode == CompareMode::PinnedMinusLive) {
            const qkv::Index head = std::clamp<qkv::Index>(selection()->head(), 0, d.live->attention.headCount() - 1);
            return tr("%1, %2: difference %3").arg(headName(head), where, difference(head));
        }
        QStringList heads;
        for (qkv::Index head = 0; head < static_cast<qkv::Index>(d.differences.size()); ++head)
            if (head != d.reference) heads << tr("%1 %2").arg(headName(head), difference(head));
        return tr("%1: differences from %2: %3").arg(where, headName(d.reference), heads.join(QStringLiteral(", ")));
    };
    table.cellDescription = [this, shown](int row, int column) {
        if (shown()->mode != CompareMode::PinnedMinusLive) return QString();
        return plainTextOfToolTip(cellTip(selection()->head(), row, column));
    };
    table.currentCell = [this, shown] {
        return shown() ? TableCell{selection()->queryRow(), selection()->keyColumn()} : TableCell{};
    };
    canvas()->setCellTable(std::move(table), selection());
}

QString CompareView::title() const { return tr("C&ompare"); }
QString CompareView::summary() const { return tr("Pin a result and compare: pinned minus live attention, or each head minus a reference head"); }

void CompareView::pin()
{
    if (result() && result()->streamed()) return;  // a long layer holds no maps to compare
    pinned_ = result();
    updatePinnedLabel();
    invalidate();
}

void CompareView::unpin()
{
    pinned_.reset();
    updatePinnedLabel();
    invalidate();
}

void CompareView::setMode(CompareMode mode)
{
    if (mode == mode_) return;
    mode_ = mode;
    const QSignalBlocker blocker(modeBox_);
    modeBox_->setCurrentIndex(modeBox_->findData(static_cast<int>(mode)));
    invalidate();
}

void CompareView::setQuantity(CompareQuantity quantity)
{
    if (quantity == quantity_) return;
    quantity_ = quantity;
    const QSignalBlocker blocker(quantityBox_);
    quantityBox_->setCurrentIndex(quantityBox_->findData(static_cast<int>(quantity)));
    invalidate();
}

void CompareView::updatePinnedLabel()
{
    unpinButton_->setEnabled(pinned_ != nullptr);
    if (!pinned_) {
        pinnedLabel_->setText(tr("Nothing pinned"));
        return;
    }
    const qkv::AttentionResult& a = pinned_->attention;
    pinnedLabel_->setText(tr("Pinned: %1, %2 × %3, %4 heads, seed %5")
                              .arg(modeTitle(pinned_->config.mode))
                              .arg(a.queryCount())
                              .arg(a.keyCount())
                              .arg(a.headCount())
                              .arg(pinned_->config.seed));
}

void CompareView::refresh(Changes changes)
{
    // A change of cell only moves the mark; of head, only the reference in head mode.
    const bool needed = changes.testFlag(Change::Result) || changes.testFlag(Change::Options) ||
                        (changes.testFlag(Change::Head) && mode_ == CompareMode::HeadsMinusReference) || !model();
    if (needed)
        recompute();
    else
        canvas()->update();
}

void CompareView::paintModel(QPainter& painter, const QRectF& rect)
{
    paintCompare(painter, rect, *model(), screenFigureOptions(*canvas(), *selection()));
}

void CompareView::recompute()
{
    auto live = result();
    auto pinned = pinned_;
    const CompareMode mode = mode_;
    const CompareQuantity quantity = quantity_;
    const qkv::Index reference = selection()->head();
    double cells = 0;
    if (live)
        cells = static_cast<double>(live->attention.headCount() * live->attention.queryCount() *
                                    live->attention.keyCount());
    requestModel(cells * kMultiplyAddsPerEntry, [live, pinned, mode, quantity, reference] {
        return mode == CompareMode::PinnedMinusLive
                   ? AttentionDifference::pinnedMinusLive(pinned, live, quantity)
                   : AttentionDifference::headsMinusReference(live, reference, quantity);
    });
}

CompareGeometry CompareView::geometry() const
{
    if (!model()) return {};
    return compareGeometry(canvas()->figureRect(), *model(), QFontMetricsF(canvas()->font(), canvas()));
}

void CompareView::clickAt(const QPointF& position)
{
    if (!model() || !model()->ok()) return;
    const CompareHit hit = compareHitAt(geometry(), *model(), position, QFontMetricsF(canvas()->font(), canvas()));
    if (hit.query >= 0) selection()->setCell(static_cast<int>(hit.query), static_cast<int>(hit.key));
    if (hit.head >= 0 && mode_ == CompareMode::PinnedMinusLive) selection()->setHead(hit.head);
}

QString CompareView::toolTipAt(const QPointF& position) const
{
    if (!model() || !model()->ok()) return {};
    const CompareHit hit = compareHitAt(geometry(), *model(), position, QFontMetricsF(canvas()->font(), canvas()));
    if (hit.head < 0 || hit.query < 0) return {};
    return cellTip(hit.head, hit.query, hit.key);
}

QString CompareView::cellTip(qkv::Index head, qkv::Index query, qkv::Index key) const
{
    const AttentionDifference& d = *model();
    const qkv::Result& r = *d.live;
    if (head < 0 || head >= static_cast<qkv::Index>(d.differences.size())) return {};
    const double value = d.differences[static_cast<std::size_t>(head)](query, key);
    const QString leftName = d.mode == CompareMode::PinnedMinusLive ? tr("pinned") : headName(head);
    const QString rightName = d.mode == CompareMode::PinnedMinusLive ? tr("live") : headName(d.reference);
    return tr("<b>%1</b><br>query %2<br>key %3<br>%4: %5<br>%6: %7<br>difference: <b>%8</b>")
        .arg(headName(head), tokenName(r.queryLabels, query).toHtmlEscaped(),
             tokenName(r.keyLabels, key).toHtmlEscaped(), leftName,
             preciseNumber(d.left(head, query, key)), rightName,
             preciseNumber(d.right(head, query, key)), std::isnan(value) ? tr("masked") : preciseNumber(value));
}

}  // namespace qkv::ui
