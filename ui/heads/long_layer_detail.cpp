#include "ui/heads/long_layer_detail.hpp"

#include <QApplication>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

#include "ui/accessibility/accessible_cell_table.hpp"
#include "ui/background/release_later.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/figures/shown_text.hpp"

namespace qkv::ui {
namespace {

constexpr double kMargin = 6.0;
constexpr double kGap = 16.0;

qkv::Index clampedIndex(int value, qkv::Index count)
{
    return std::clamp<qkv::Index>(value, 0, std::max<qkv::Index>(count - 1, 0));
}

}  // namespace

LongLayerDetail::LongLayerDetail(HeadSelection* selection, QWidget* parent)
    : QWidget(parent), selection_(selection), strip_([this](RowOutcome outcome) { showRow(std::move(outcome)); }),
      region_([this](RegionOutcome outcome) { showRegion(std::move(outcome)); })
{
    setAttribute(Qt::WA_OpaquePaintEvent);
    strip_.setBusyCallback([this](bool) { update(); });
    region_.setBusyCallback([this](bool) { update(); });
    connect(selection_, &HeadSelection::headChanged, this, [this] { followHead(); });
    connect(selection_, &HeadSelection::cellChanged, this, &LongLayerDetail::followCell);
    connect(selection_, &HeadSelection::querySpanChanged, this, [this] { followHead(); });
    makeAccessibleTable();
}

LongLayerDetail::~LongLayerDetail()
{
    releaseLater(std::move(shownRegion_));  // up to 64 MiB at 4,096 x 4,096 positions
}

void LongLayerDetail::setResult(std::shared_ptr<const qkv::Result> result)
{
    if (result == result_) return;
    result_ = std::move(result);
    // Whatever was asked of the previous result is asked again of this one.
    askedRowResult_ = askedRegionResult_ = nullptr;
    if (!result_) {
        strip_.cancel();
        region_.cancel();
        shownRow_.reset();
        releaseLater(std::move(shownRegion_));
        regionImage_ = {};
        stripError_.clear();
        regionError_.clear();
        update();
        return;
    }
    if (!showsRegion()) {  // a held layer: the row only
        region_.cancel();
        releaseLater(std::move(shownRegion_));
        regionImage_ = {};
    }
    wanted_ = regionAround(selection_->queryRow(), selection_->keyColumn(), side_, result_->attention.queryCount(),
                           result_->attention.keyCount());
    requestRow();
    requestRegion();
    update();
}

void LongLayerDetail::setColormap(ColormapName colormap)
{
    colormap_ = colormap;
    if (shownRegion_) regionImage_ = regionImage(*shownRegion_, colormap_);  // at most the screen's pixels
    update();
}

void LongLayerDetail::followHead()
{
    requestRow();
    requestRegion();
    update();
}

void LongLayerDetail::followCell(int queryRow, int keyColumn)
{
    if (!active()) return;
    // A cell selected elsewhere brings the region to it; one inside it only moves the outline.
    if (!wanted_.contains(queryRow, keyColumn))
        wanted_ = regionAround(queryRow, keyColumn, side_, result_->attention.queryCount(), result_->attention.keyCount());
    requestRow();
    requestRegion();
    update();
}

void LongLayerDetail::requestRow()
{
    if (!active()) return;
    if (!isVisible()) {
        stale_ = true;  // hidden views do no work (showEvent asks again)
        return;
    }
    const int head = static_cast<int>(clampedIndex(selection_->head(), result_->attention.headCount()));
    const qkv::Index query = clampedIndex(selection_->queryRow(), result_->attention.queryCount());
    const qkv::Index end = std::clamp<qkv::Index>(selection_->querySpanEnd(), query + 1, result_->attention.queryCount());
    if (askedRowResult_ == result_.get() && askedRowHead_ == head && askedRowQuery_ == query && askedRowEnd_ == end)
        return;
    askedRowResult_ = result_.get();
    askedRowHead_ = head;
    askedRowQuery_ = query;
    askedRowEnd_ = end;
    strip_.request([result = result_, head, query, end]() -> RowOutcome {
        qkv::Expected<RowStrip> strip = computeRowStrip(*result, head, query, end);
        if (!strip) return qkv::Error{strip.error()};
        return std::make_shared<const RowStrip>(std::move(*strip));
    });
}

void LongLayerDetail::requestRegion()
{
    if (!showsRegion()) return;
    if (!isVisible()) {
        stale_ = true;
        return;
    }
    const int head = static_cast<int>(clampedIndex(selection_->head(), result_->attention.headCount()));
    // At most the screen's resolution: more positions than pixels are drawn by block maxima.
    const QSize budget = regionPixels(panels().region, wanted_, QFontMetricsF(font(), this), devicePixelRatioF());
    const QSize pixels(static_cast<int>(std::min<qkv::Index>(budget.width(), wanted_.columns())),
                       static_cast<int>(std::min<qkv::Index>(budget.height(), wanted_.rows())));
    if (askedRegionResult_ == result_.get() && askedRegionHead_ == head && askedBounds_ == wanted_ && askedPixels_ == pixels)
        return;
    askedRegionResult_ = result_.get();
    askedRegionHead_ = head;
    askedBounds_ = wanted_;
    askedPixels_ = pixels;
    region_.request([result = result_, head, bounds = wanted_, pixels, colormap = colormap_]() -> RegionOutcome {
        qkv::Expected<ExactRegion> region = computeExactRegion(*result, head, bounds, pixels.height(), pixels.width());
        if (!region) return {qkv::Error{region.error()}, {}, colormap};
        QImage image = regionImage(*region, colormap);
        return {std::make_shared<const ExactRegion>(std::move(*region)), std::move(image), colormap};
    });
}

void LongLayerDetail::showRow(RowOutcome outcome)
{
    if (outcome.ok()) {
        shownRow_ = std::move(*outcome);
        stripError_.clear();
    } else {
        shownRow_.reset();
        stripError_ = QString::fromStdString(outcome.error());
    }
    update();
}

void LongLayerDetail::showRegion(RegionOutcome outcome)
{
    std::shared_ptr<const ExactRegion> previous = std::move(shownRegion_);
    if (outcome.region.ok()) {
        shownRegion_ = std::move(*outcome.region);
        announceTableChanged(this);
        regionImage_ = outcome.colormap == colormap_ ? std::move(outcome.image) : regionImage(*shownRegion_, colormap_);
        regionError_.clear();
    } else {
        regionImage_ = {};
        regionError_ = QString::fromStdString(outcome.region.error());
    }
    releaseLater(std::move(previous));
    update();
}

LongLayerDetail::Panels LongLayerDetail::panels() const
{
    const QRectF all = QRectF(rect()).adjusted(kMargin, kMargin, -kMargin, -kMargin);
    if (!showsRegion()) return {all, QRectF()};  // a held layer's span: the grid shows its cells
    if (all.width() >= 2.2 * all.height()) {  // wide: the strip on the left, the region beside it
        const double regionWidth = std::min(all.width() * 0.45, all.height() + 200);
        const QRectF strip(all.left(), all.top(), all.width() - regionWidth - kGap, all.height());
        return {strip, QRectF(strip.right() + kGap, all.top(), regionWidth, all.height())};
    }
    const double stripHeight = std::min(all.height() * 0.4, 260.0);  // tall: the strip above
    const QRectF strip(all.left(), all.top(), all.width(), stripHeight);
    return {strip, QRectF(all.left(), strip.bottom() + kGap, all.width(), all.height() - stripHeight - kGap)};
}

HeatmapStyle LongLayerDetail::shownRegionStyle() const
{
    HeatmapStyle style = regionStyle(*shownRegion_, *result_, colormap_,
                                     selection_->queryRow(), selection_->keyColumn());
    style.textColor = palette().color(QPalette::Text);
    return style;
}

HeatmapLayout LongLayerDetail::shownRegionLayout() const
{
    return regionLayout(*shownRegion_, panels().region, shownRegionStyle(), QFontMetricsF(font(), this));
}

void LongLayerDetail::paintBusyNote(QPainter& painter, const QRectF& panel) const
{
    const QString note = tr("computing…");
    const QFontMetricsF metrics(painter.font(), painter.device());
    const QRectF box(panel.right() - metrics.horizontalAdvance(note) - 8, panel.top(), metrics.horizontalAdvance(note) + 8,
                     metrics.height());
    painter.fillRect(box, palette().color(QPalette::Base));
    painter.setPen(palette().color(QPalette::PlaceholderText));
    painter.drawText(box, Qt::AlignCenter, note);
}

void LongLayerDetail::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    painter.fillRect(rect(), palette().color(QPalette::Base));
    if (!active()) return;
    const Panels p = panels();
    const QColor text = palette().color(QPalette::Text);
    painter.setPen(text);
    if (!stripError_.isEmpty()) {
        painter.drawText(p.strip, Qt::AlignCenter | Qt::TextWordWrap, tr("The row could not be computed: %1").arg(stripError_));
    } else if (shownRow_) {
        RowStripStyle style;
        style.text = text;
        if (shownRow_->query == selection_->queryRow()) style.selectedKey = selection_->keyColumn();
        style.text = text;
        paintRowStrip(painter, p.strip, *shownRow_, style);
    }
    if (strip_.isBusy()) paintBusyNote(painter, p.strip);
    if (!showsRegion()) return;
    painter.setPen(text);
    if (!regionError_.isEmpty()) {
        painter.drawText(p.region, Qt::AlignCenter | Qt::TextWordWrap,
                         tr("The region could not be computed: %1").arg(regionError_));
    } else if (shownRegion_) {
        paintExactRegion(painter, p.region, *shownRegion_, shownRegionStyle(), regionImage_);
    }
    if (region_.isBusy()) paintBusyNote(painter, p.region);
    if (!rubberBand_.isNull()) {
        painter.setPen(QPen(palette().color(QPalette::Highlight), 1.5, Qt::DashLine));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(rubberBand_);
    }
}

QString LongLayerDetail::toolTipAt(const QPoint& point) const
{
    if (!active()) return {};
    const Panels p = panels();
    if (shownRow_ && p.strip.contains(point)) {
        const StripHit hit = stripHitAt(point);
        return hit.key < 0 ? QString() : rowStripToolTip(*shownRow_, result_->keyLabels, hit.key, hit.first, hit.end);
    }
    if (shownRegion_ && p.region.contains(point)) {
        const auto [query, key] = regionPositionAt(shownRegionLayout(), shownRegion_->bounds, point);
        if (query >= 0) return regionToolTip(*shownRegion_, *result_, query, key);
    }
    return {};
}

// The named top key under `point` in the legend, or the largest key of the pixel under it in
// the plot (the bar drawn there): what a click selects and a tool tip names.
LongLayerDetail::StripHit LongLayerDetail::stripHitAt(const QPointF& point) const
{
    if (!shownRow_) return {};
    const RowStripLayout layout(panels().strip, *shownRow_, QFontMetricsF(font(), this));
    if (const int entry = layout.legendEntryAt(point); entry >= 0) {
        const qkv::Index key = shownRow_->top[static_cast<std::size_t>(entry)].key;
        return {key, key, key + 1};
    }
    if (!layout.plotRect().contains(point)) return {};
    const auto pixels = std::lround(layout.plotRect().width() * devicePixelRatioF());
    const qkv::Index bins = pixelBins(shownRow_->keyCount(), pixels);
    const auto [first, end] = keysOfPixel(shownRow_->keyCount(), pixels, layout.binAt(point.x(), bins));
    return {largestKey(shownRow_->weights, first, end), first, end};
}

// A pixel of the plot whose hit is `key` (its pixel shows it), so that a test clicks what a person would.
QPoint LongLayerDetail::stripPointOfKey(qkv::Index key) const
{
    if (!shownRow_) return {-1, -1};
    const RowStripLayout layout(panels().strip, *shownRow_, QFontMetricsF(font(), this));
    const int y = static_cast<int>(layout.plotRect().center().y());
    const int from = static_cast<int>(std::floor(layout.xOfKey(key))) - 2;
    const int to = static_cast<int>(std::ceil(layout.xOfKey(key + 1))) + 2;
    for (int x = from; x <= to; ++x)
        if (stripHitAt(QPointF(x, y)).key == key) return {x, y};
    return {-1, -1};
}

QPoint LongLayerDetail::regionPointOfCell(qkv::Index query, qkv::Index key) const
{
    if (!shownRegion_) return {-1, -1};
    return regionPointOf(shownRegionLayout(), shownRegion_->bounds, query, key).toPoint();
}

bool LongLayerDetail::event(QEvent* event)
{
    if (event->type() != QEvent::ToolTip) return QWidget::event(event);
    auto* help = static_cast<QHelpEvent*>(event);
    const QString text = toolTipAt(help->pos());
    if (text.isEmpty()) {
        QToolTip::hideText();
        event->ignore();
    } else {
        // Plain text made rich: a token such as "<b>" is shown as typed, never as markup.
        QToolTip::showText(help->globalPos(), plainAsRichText(text), this);
    }
    return true;
}

void LongLayerDetail::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    requestRegion();  // a new budget of pixels when the region is reduced
}

void LongLayerDetail::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (!stale_) return;
    stale_ = false;
    requestRow();
    requestRegion();
}

// A click on the strip selects the key under it (stripHitAt), and the region recentres there.
void LongLayerDetail::selectFromStrip(const QPointF& point)
{
    const qkv::Index key = stripHitAt(point).key;
    if (key < 0) return;
    const qkv::Index query = shownRow_->query;
    wanted_ = regionAround(query, key, side_, result_->attention.queryCount(), result_->attention.keyCount());
    selection_->setKey(static_cast<int>(key));  // a span stays selected
    requestRegion();
    update();
}

void LongLayerDetail::mousePressEvent(QMouseEvent* event)
{
    if (!active() || event->button() != Qt::LeftButton) return QWidget::mousePressEvent(event);
    const Panels p = panels();
    const QPointF point = event->position();
    if (shownRow_ && p.strip.contains(point)) selectFromStrip(point);
    else if (shownRegion_ && shownRegionLayout().cellsRect().contains(point)) pressed_ = point.toPoint();
}

void LongLayerDetail::mouseMoveEvent(QMouseEvent* event)
{
    if (pressed_.x() < 0 || !shownRegion_) return QWidget::mouseMoveEvent(event);
    const QPoint point = event->position().toPoint();
    if ((point - pressed_).manhattanLength() < QApplication::startDragDistance()) return;
    rubberBand_ = QRect(pressed_, point).normalized().intersected(shownRegionLayout().cellsRect().toAlignedRect());
    update();
}

void LongLayerDetail::mouseReleaseEvent(QMouseEvent* event)
{
    if (pressed_.x() < 0 || !shownRegion_) return QWidget::mouseReleaseEvent(event);
    const QPoint pressed = pressed_;
    const QRect dragged = rubberBand_;
    pressed_ = {-1, -1};
    rubberBand_ = {};
    if (!dragged.isNull()) {
        zoomTo(dragged);
        return;
    }
    const auto [query, key] = regionPositionAt(shownRegionLayout(), shownRegion_->bounds, pressed);
    if (query >= 0) selection_->setCell(static_cast<int>(query), static_cast<int>(key));
}

// The positions under the dragged rectangle's corners become the region.
void LongLayerDetail::zoomTo(const QRect& dragged)
{
    const HeatmapLayout layout = shownRegionLayout();
    const RegionBounds& shown = shownRegion_->bounds;
    const QRectF inside = layout.cellsRect().adjusted(0, 0, -1e-3, -1e-3);
    auto at = [&](QPointF corner) {
        corner.setX(std::clamp(corner.x(), inside.left(), inside.right()));
        corner.setY(std::clamp(corner.y(), inside.top(), inside.bottom()));
        return regionPositionAt(layout, shown, corner);
    };
    const auto [firstRow, firstColumn] = at(dragged.topLeft());
    const auto [lastRow, lastColumn] = at(QPointF(dragged.right() + 1, dragged.bottom() + 1));
    if (firstRow < 0 || lastRow < 0) return;
    wanted_ = {firstRow, lastRow + 1, firstColumn, lastColumn + 1};
    side_ = std::clamp(std::max(wanted_.rows(), wanted_.columns()), kMinRegionSide, kMaxRegionSide);
    requestRegion();
    update();
}

// The wheel halves (forward) or doubles the region's side around the selected cell, or around
// the region's centre when the cell is outside it (after a drag elsewhere).
void LongLayerDetail::wheelEvent(QWheelEvent* event)
{
    const int steps = event->angleDelta().y();
    if (!active() || steps == 0 || !panels().region.contains(event->position())) return QWidget::wheelEvent(event);
    side_ = zoomedSide(std::max(wanted_.rows(), wanted_.columns()), steps > 0);
    qkv::Index query = selection_->queryRow(), key = selection_->keyColumn();
    if (!wanted_.contains(query, key)) {
        query = (wanted_.firstRow + wanted_.endRow) / 2;
        key = (wanted_.firstColumn + wanted_.endColumn) / 2;
    }
    wanted_ = regionAround(query, key, side_, result_->attention.queryCount(), result_->attention.keyCount());
    requestRegion();
    update();
    event->accept();
}

}  // namespace qkv::ui
