#include "ui/steps/step_figures.hpp"

#include <QCoreApplication>
#include <QPainter>

#include <algorithm>
#include <cmath>

#include "ui/matrices/figure_text.hpp"
#include "ui/matrices/matrix_picture.hpp"
#include "ui/render/heatmap_painter.hpp"

namespace qkv::ui {
namespace {

QString tr(const char* text) { return QCoreApplication::translate("StepFigure", text); }

constexpr double kMargin = 8.0;
constexpr double kColumnGap = 28.0;
constexpr double kWeightColumn = 58.0;  // ⑧'s column of weights between V_i and a_ij v_j
constexpr double kMinBars = 36.0;
constexpr double kTwoColumnWidth = 880.0;  // narrower: the two columns go one below the other
constexpr double kOneColumnWidth = 460.0;

const QColor kQueryColor(0x2c, 0x7f, 0xb8), kKeyColor(0x1b, 0x9e, 0x77), kProductColor(0x75, 0x70, 0xb3),
    kProductNegative(0xd9, 0x5f, 0x02), kWeightColor(0x66, 0x66, 0xcc), kOutputColor(0xe7, 0x29, 0x8a),
    kHighlight(0xff, 0x8c, 0x00);

double wrappedHeight(const QFontMetricsF& metrics, const QString& text, double width)
{
    if (text.isEmpty()) return 0;
    return metrics.boundingRect(QRectF(0, 0, std::max(width, 10.0), 1e6), Qt::TextWordWrap, text).height();
}

double labelsWidth(const QStringList& labels, const QFontMetricsF& metrics)
{
    double widest = 0;
    for (const QString& label : labels) widest = std::max(widest, metrics.horizontalAdvance(label));
    return std::min(widest, metrics.averageCharWidth() * 9) + 6;
}

double barLabelsHeight(const QStringList& labels, const QFontMetricsF& metrics)
{
    return labels.isEmpty() ? 0 : labelsWidth(labels, metrics);
}

// Token chips in `strip`: all of them when they fit, else a window around `selected` with an
// ellipsis chip standing for each side left out.
std::vector<TokenChip> layoutChips(const QRectF& strip, const QStringList& labels, int selected,
                                   const QFontMetricsF& metrics)
{
    std::vector<TokenChip> chips;
    const int count = static_cast<int>(labels.size());
    if (count == 0) return chips;
    constexpr double kSpacing = 3.0, kPadding = 8.0;
    auto width = [&](int i) {
        return std::min(metrics.horizontalAdvance(labels[i]), metrics.averageCharWidth() * 12) + kPadding;
    };
    const double ellipsis = metrics.horizontalAdvance(QStringLiteral("…")) + kPadding;
    int first = 0, last = count - 1;
    double total = 0;
    for (int i = 0; i < count; ++i) total += width(i) + kSpacing;
    if (total > strip.width()) {
        // Grow a window from the selected token outwards while it fits with two ellipses.
        selected = std::clamp(selected, 0, count - 1);
        first = last = selected;
        double used = width(selected) + kSpacing + 2 * (ellipsis + kSpacing);
        bool grew = true;
        while (grew) {
            grew = false;
            if (last + 1 < count && used + width(last + 1) + kSpacing <= strip.width()) {
                used += width(++last) + kSpacing;
                grew = true;
            }
            if (first > 0 && used + width(first - 1) + kSpacing <= strip.width()) {
                used += width(--first) + kSpacing;
                grew = true;
            }
        }
    }
    double x = strip.left();
    auto add = [&](double w, int position) {
        chips.push_back({QRectF(x, strip.top(), w, strip.height()), position});
        x += w + kSpacing;
    };
    if (first > 0) add(ellipsis, -1);
    for (int i = first; i <= last; ++i) add(width(i), i);
    if (last < count - 1) add(ellipsis, -1);
    return chips;
}

// One column of the figure: items stacked top to bottom, fixed heights plus shares of the rest.
struct StackItem {
    double fixed = 0, weight = 0, minimum = 0;
    QRectF* out = nullptr;
    double maximum = 1e9;  // of the share
};
double stackMinimum(const std::vector<StackItem>& items)
{
    double total = 0;
    for (const StackItem& item : items) total += item.fixed + item.minimum;
    return total;
}
void stack(const QRectF& column, std::vector<StackItem>& items)
{
    // Items at their maximum give the rest of their share to the others.
    std::vector<bool> capped(items.size(), false);
    double share = 0;
    for (int pass = 0; pass < 3; ++pass) {
        double fixed = 0, weights = 0;
        for (std::size_t i = 0; i < items.size(); ++i) {
            fixed += items[i].fixed + (capped[i] ? items[i].maximum : 0);
            if (!capped[i]) weights += items[i].weight;
        }
        share = weights > 0 ? std::max(0.0, column.height() - fixed) / weights : 0;
        bool changed = false;
        for (std::size_t i = 0; i < items.size(); ++i)
            if (!capped[i] && items[i].weight * share > items[i].maximum) capped[i] = changed = true;
        if (!changed) break;
    }
    double y = column.top();
    for (std::size_t i = 0; i < items.size(); ++i) {
        StackItem& item = items[i];
        const double grown = capped[i] ? item.maximum : item.weight * share;
        const double height = item.fixed + std::max(item.minimum, grown);
        if (item.out) *item.out = QRectF(column.left(), y, column.width(), height);
        y += height;
    }
}

QColor muted(const QColor& text)
{
    QColor c = text;
    c.setAlpha(170);
    return c;
}

}  // namespace

BarsStyle softmaxBarsStyle(const StepNumbers& n, const FigureOptions& options)
{
    BarsStyle style;
    style.positive = style.negative = kWeightColor;
    style.text = options.text;
    style.highlight = kHighlight;
    style.highlighted = n.key;
    style.percent = true;
    style.labels = n.keyLabels;
    style.hatched = n.keyMasked;
    style.axisTitle = tr("keys (%1): weights in %; hatched: masked").arg(figuretext::keySentence(n.mode));
    return style;
}

StepGeometry stepGeometry(const QRectF& target, const StepNumbers& n, const QFontMetricsF& metrics)
{
    StepGeometry g;
    const StepTexts texts = stepTexts(n);
    const double line = metrics.lineSpacing();
    const QRectF area = target.adjusted(kMargin, kMargin, -kMargin, -kMargin);
    double y = area.top();
    g.title = QRectF(area.left(), y, area.width(), line * 1.3);
    y += g.title.height();
    g.subtitle = QRectF(area.left(), y, area.width(), line);
    y += line + 4;
    const double chip = line + 4;
    const double stripLabel = std::max(metrics.horizontalAdvance(tr("queries:")), metrics.horizontalAdvance(tr("keys and values:"))) + 10;
    g.queryStripLabel = QRectF(area.left(), y, stripLabel, chip);
    g.queryChips = layoutChips(QRectF(area.left() + stripLabel, y, area.width() - stripLabel, chip), n.queryLabels,
                               n.query, metrics);
    y += chip + 3;
    g.keyStripLabel = QRectF(area.left(), y, stripLabel, chip);
    g.keyChips = layoutChips(QRectF(area.left() + stripLabel, y, area.width() - stripLabel, chip), n.keyLabels, n.key,
                             metrics);
    y += chip + 8;

    // Two columns (weights left, values right) when there is room, else one below the other.
    const bool oneColumn = area.width() < kTwoColumnWidth - 2 * kMargin;
    const double leftWidth = oneColumn ? area.width() : (area.width() - kColumnGap) * 0.44;
    const double rightWidth = oneColumn ? area.width() : area.width() - kColumnGap - leftWidth;
    const QRectF left(area.left(), y, leftWidth, area.bottom() - y);
    const QRectF right(oneColumn ? area.left() : left.right() + kColumnGap, y, rightWidth, area.bottom() - y);
    g.names.assign(10, QRectF());
    g.formulas.assign(10, QRectF());
    auto formula = [&](int step, double width) { return wrappedHeight(metrics, texts.formulas[step], width) + 2; };

    // Left: ① to ⑥.
    const double softmaxExtra = barLabelsHeight(n.keyLabels, metrics) + line + 6;
    std::vector<StackItem> leftItems = {
        {line, 0, 0, &g.names[0]}, {formula(0, leftWidth), 0, 0, &g.formulas[0]}, {0, 1, kMinBars, &g.queryBars},
        {line, 0, 0, &g.names[1]}, {formula(1, leftWidth), 0, 0, &g.formulas[1]}, {0, 1, kMinBars, &g.keyBars},
        {line, 0, 0, &g.names[2]}, {formula(2, leftWidth), 0, 0, &g.formulas[2]}, {0, 1, kMinBars, &g.productBars},
        {line, 0, 0, &g.names[3]}, {formula(3, leftWidth), 0, 0, &g.formulas[3]},
        {line, 0, 0, &g.names[4]}, {formula(4, leftWidth), 0, 0, &g.formulas[4]},
        {line, 0, 0, &g.names[5]}, {formula(5, leftWidth), 0, 0, &g.formulas[5]},
        {softmaxExtra, 1.5, kMinBars, &g.softmaxBars},
    };
    // Small gaps between steps.
    for (std::size_t i = 0; i < leftItems.size(); ++i)
        if (leftItems[i].out && (leftItems[i].out == &g.names[1] || leftItems[i].out == &g.names[2] ||
                                 leftItems[i].out == &g.names[3] || leftItems[i].out == &g.names[4] ||
                                 leftItems[i].out == &g.names[5]))
            leftItems[i].fixed += 6;
    if (!oneColumn) stack(left, leftItems);

    // Right: ⑦ to ⑩.
    const qkv::Index keys = n.values.rows();
    QRectF heatmaps, sumRow, legends, concatRow, gap1, gap2;
    const double outputExtra = line + 4;
    std::vector<StackItem> rightItems = {
        {line, 0, 0, &g.names[6]},
        {formula(6, rightWidth), 0, 0, &g.formulas[6]},
        {line + 4, 0, 0, &g.names[7]},
        {formula(7, rightWidth), 0, 0, &g.formulas[7]},
        {line, 2.4, std::max<double>(40.0, std::min<double>(static_cast<double>(keys) * 2.0, 120.0)), &heatmaps,
         std::max(120.0, static_cast<double>(keys) * 26.0)},
        {chip + 2, 0, 0, &sumRow},
        {line * 2.4, 0, 0, &legends},
        {line + 6, 0, 0, &g.names[8]},
        {formula(8, rightWidth), 0, 0, &g.formulas[8]},
        {22 + line + 4 + line * 2.4, 0, 0, &concatRow},
        {line + 6, 0, 0, &g.names[9]},
        {formula(9, rightWidth), 0, 0, &g.formulas[9]},
        {outputExtra, 1.0, kMinBars, &g.outputBars},
    };
    std::vector<StackItem> allItems = leftItems;
    if (oneColumn) {
        rightItems.front().fixed += 12;  // a gap between the two halves
        allItems.insert(allItems.end(), rightItems.begin(), rightItems.end());
        stack(left, allItems);
    } else {
        stack(right, rightItems);
    }

    // ⑦ ⑧: [key labels][V_i][weights][a_ij v_j], the sum under a_ij v_j.
    const double labels = labelsWidth(n.keyLabels, metrics);
    const double cellsWidth = std::max(20.0, (rightWidth - labels - kWeightColumn - 16) / 2);
    g.valueLabels = QRectF(right.left(), heatmaps.top() + line + 2, labels, heatmaps.height() - line - 4);
    g.valueCells = QRectF(g.valueLabels.right(), g.valueLabels.top(), cellsWidth, g.valueLabels.height());
    g.weightColumn = QRectF(g.valueCells.right() + 8, g.valueCells.top(), kWeightColumn, g.valueCells.height());
    g.weightedCells = QRectF(g.weightColumn.right() + 8, g.valueCells.top(), cellsWidth, g.valueCells.height());
    g.sumCells = QRectF(g.weightedCells.left(), sumRow.top() + 2, cellsWidth, chip - 2);
    const double legendWidth = std::min(cellsWidth + labels, rightWidth / 2 - 8);
    g.valueLegend = QRectF(right.left(), legends.top() + 2, legendWidth, legends.height() - 4);
    g.weightedLegend = QRectF(g.weightedCells.right() - legendWidth, legends.top() + 2, legendWidth,
                              legends.height() - 4);
    g.concatCells = QRectF(right.left(), concatRow.top() + 2, rightWidth, 20);
    g.concatLabels = QRectF(right.left(), g.concatCells.bottom() + 1, rightWidth, line);
    g.concatLegend = QRectF(right.left(), g.concatLabels.bottom() + 2, std::min(rightWidth, 2 * legendWidth), line * 2.4 - 4);
    for (qkv::Index i = 0; i < n.headCount; ++i)
        g.headBlocks.push_back(matrixColumnBlock(g.concatCells, n.d_model, i * n.d_k, n.d_k));

    g.stepBottoms = {g.queryBars.bottom(),     g.keyBars.bottom(),        g.productBars.bottom(),
                     g.formulas[3].bottom(),   g.formulas[4].bottom(),    g.softmaxBars.bottom(),
                     g.valueCells.bottom(),    g.weightedLegend.bottom(), g.concatLegend.bottom(),
                     g.outputBars.bottom()};
    const double headerHeight = y - area.top();
    g.minimumSize = oneColumn ? QSizeF(kOneColumnWidth, headerHeight + stackMinimum(allItems) + 2 * kMargin)
                              : QSizeF(kTwoColumnWidth, headerHeight + std::max(stackMinimum(leftItems), stackMinimum(rightItems)) +
                                                            2 * kMargin);
    g.fits = target.width() >= g.minimumSize.width() - 0.5 && target.height() >= g.minimumSize.height() - 0.5;
    return g;
}

StepHit stepHitAt(const StepGeometry& g, const StepNumbers& n, const QPointF& point, const QFontMetricsF& metrics)
{
    StepHit hit;
    if (!n.valid) return hit;
    for (const TokenChip& chip : g.queryChips)
        if (chip.position >= 0 && chip.rect.contains(point)) hit.query = chip.position;
    for (const TokenChip& chip : g.keyChips)
        if (chip.position >= 0 && chip.rect.contains(point)) hit.key = chip.position;
    if (hit.query >= 0 || hit.key >= 0) return hit;
    const BarsGeometry softmax =
        barsGeometry(g.softmaxBars, static_cast<int>(n.rowWeights.size()), softmaxBarsStyle(n, FigureOptions{}), metrics);
    if (const int bar = softmax.barAt(point); bar >= 0) {
        hit.key = bar;
        return hit;
    }
    const qkv::Index keys = n.values.rows();
    for (const QRectF& cells : {g.valueLabels, g.valueCells, g.weightColumn, g.weightedCells}) {
        if (!cells.contains(point) || keys == 0) continue;
        hit.key = std::clamp(static_cast<int>((point.y() - cells.top()) / cells.height() * static_cast<double>(keys)), 0,
                             static_cast<int>(keys) - 1);
        return hit;
    }
    for (std::size_t i = 0; i < g.headBlocks.size(); ++i) {
        const QRectF& block = g.headBlocks[i];
        const QRectF column(block.left(), g.concatCells.top(), block.width(), g.concatLabels.bottom() - g.concatCells.top());
        if (column.contains(point)) hit.head = static_cast<int>(i);
    }
    return hit;
}

namespace {

void drawChips(QPainter& painter, const std::vector<TokenChip>& chips, const QStringList& labels, int selected,
               const QColor& text, const QColor& accent)
{
    const QFontMetricsF metrics(painter.font(), painter.device());
    for (const TokenChip& chip : chips) {
        if (chip.position < 0) {
            painter.setPen(muted(text));
            painter.drawText(chip.rect, Qt::AlignCenter, QStringLiteral("…"));
            continue;
        }
        const bool chosen = chip.position == selected;
        QColor fill = chosen ? accent : muted(text);
        fill.setAlpha(chosen ? 255 : 28);
        painter.setPen(chosen ? QPen(accent.darker(130), 1) : QPen(muted(text), 0.6));
        painter.setBrush(fill);
        painter.drawRoundedRect(chip.rect.adjusted(0.5, 0.5, -0.5, -0.5), 4, 4);
        painter.setPen(chosen ? QColor(Qt::black) : text);
        painter.drawText(chip.rect, Qt::AlignCenter,
                         metrics.elidedText(labels[chip.position], Qt::ElideRight, chip.rect.width() - 4));
    }
    painter.setBrush(Qt::NoBrush);
}

void drawName(QPainter& painter, const QRectF& rect, const QString& text)
{
    painter.save();
    QFont bold = painter.font();
    bold.setBold(true);
    painter.setFont(bold);
    const QFontMetricsF metrics(bold, painter.device());
    painter.drawText(rect, Qt::AlignLeft | Qt::AlignBottom, metrics.elidedText(text, Qt::ElideRight, rect.width()));
    painter.restore();
}

void drawFormula(QPainter& painter, const QRectF& rect, const QString& text)
{
    painter.drawText(rect, Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, text);
}

// Key labels left of ⑦'s rows, thinned so they never overlap; the chosen key drawn always.
void drawRowLabels(QPainter& painter, const QRectF& rect, const QStringList& labels, int chosen, const QColor& text)
{
    const QFontMetricsF metrics(painter.font(), painter.device());
    const int rows = static_cast<int>(labels.size());
    if (rows == 0) return;
    const double pitch = rect.height() / rows;
    const int step = pitch >= metrics.ascent() + 1 ? 1 : static_cast<int>(std::ceil((metrics.ascent() + 1) / pitch));
    for (int r = 0; r < rows; ++r) {
        if (r % step != 0 && r != chosen) continue;
        const double centre = rect.top() + (r + 0.5) * pitch;
        painter.setPen(r == chosen ? kHighlight : text);
        painter.drawText(QRectF(rect.left(), centre - metrics.height() / 2, rect.width() - 4, metrics.height()),
                         Qt::AlignRight | Qt::AlignVCenter, metrics.elidedText(labels[r], Qt::ElideRight, rect.width() - 4));
    }
}

void outlineRow(QPainter& painter, const QRectF& cells, qkv::Index rows, qkv::Index row)
{
    if (row < 0 || row >= rows) return;
    painter.setPen(QPen(kHighlight, 2));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(matrixRowBand(cells, rows, row).adjusted(-1, -1, 1, 1));
}

void drawWeightColumn(QPainter& painter, const QRectF& rect, const StepNumbers& n, const QColor& text)
{
    const QFontMetricsF metrics(painter.font(), painter.device());
    const int rows = static_cast<int>(n.rowWeights.size());
    if (rows == 0) return;
    const double pitch = rect.height() / rows;
    const bool withText = pitch >= metrics.height() - 2;
    // Bar lengths relative to the row's largest weight (the text gives the weight itself).
    double largest = 0;
    for (float w : n.rowWeights) largest = std::max(largest, static_cast<double>(w));
    if (!(largest > 0)) largest = 1;
    for (int r = 0; r < rows; ++r) {
        const QRectF row(rect.left(), rect.top() + r * pitch, rect.width(), pitch);
        const double w = std::clamp(static_cast<double>(n.rowWeights[static_cast<std::size_t>(r)]) / largest, 0.0, 1.0);
        QColor fill = kWeightColor;
        fill.setAlpha(r == n.key ? 255 : 150);
        painter.fillRect(QRectF(row.left(), row.top() + pitch * 0.15, row.width() * w, std::max(pitch * 0.7, 1.0)), fill);
        if (withText) {
            painter.setPen(r == n.key ? kHighlight : text);
            painter.drawText(row, Qt::AlignRight | Qt::AlignVCenter,
                             QStringLiteral("%1 %").arg(n.rowWeights[static_cast<std::size_t>(r)] * 100.0, 0, 'f', 1));
        }
    }
}

}  // namespace

void paintSteps(QPainter& painter, const QRectF& target, const StepNumbers& n, const FigureOptions& options)
{
    painter.save();
    painter.setFont(options.font);
    painter.fillRect(target, options.background);
    painter.setPen(options.text);
    if (!n.valid) {
        painter.drawText(target, Qt::AlignCenter, tr("No result yet, or the selected cell is outside it."));
        painter.restore();
        return;
    }
    const QFontMetricsF metrics(painter.font(), painter.device());
    const StepGeometry g = stepGeometry(target, n, metrics);
    const StepTexts texts = stepTexts(n);
    const QColor text = options.text;

    // Title, subtitle and the token strips.
    {
        QFont big = painter.font();
        big.setBold(true);
        big.setPointSizeF(big.pointSizeF() * 1.12);
        painter.setFont(big);
        const QFontMetricsF bigMetrics(big, painter.device());
        painter.drawText(g.title, Qt::AlignLeft | Qt::AlignVCenter, bigMetrics.elidedText(texts.title, Qt::ElideRight, g.title.width()));
        painter.setFont(options.font);
        painter.setPen(muted(text));
        painter.drawText(g.subtitle, Qt::AlignLeft | Qt::AlignVCenter,
                         metrics.elidedText(texts.subtitle, Qt::ElideRight, g.subtitle.width()));
        painter.setPen(text);
        painter.drawText(g.queryStripLabel, Qt::AlignLeft | Qt::AlignVCenter, tr("queries:"));
        painter.drawText(g.keyStripLabel, Qt::AlignLeft | Qt::AlignVCenter, tr("keys and values:"));
        painter.setRenderHint(QPainter::Antialiasing, true);
        drawChips(painter, g.queryChips, n.queryLabels, n.query, text, kQueryColor.lighter(150));
        drawChips(painter, g.keyChips, n.keyLabels, n.key, text, kHighlight);
    }
    painter.setPen(text);
    for (int s = 0; s < 10; ++s) {
        drawName(painter, g.names[static_cast<std::size_t>(s)], texts.names[static_cast<std::size_t>(s)]);
        drawFormula(painter, g.formulas[static_cast<std::size_t>(s)], texts.formulas[static_cast<std::size_t>(s)]);
    }

    // ① ② ③ bars.
    BarsStyle q;
    q.positive = kQueryColor;
    q.negative = kQueryColor.lighter(150);
    q.text = text;
    q.hollow = n.qBeforeRotation;
    paintBars(painter, g.queryBars, n.q, q);
    BarsStyle k = q;
    k.positive = kKeyColor;
    k.negative = kKeyColor.lighter(150);
    k.hollow = n.kBeforeRotation;
    paintBars(painter, g.keyBars, n.k, k);
    BarsStyle product = q;
    product.positive = kProductColor;
    product.negative = kProductNegative;
    product.hollow.clear();
    paintBars(painter, g.productBars, n.products, product);

    // ⑥ the softmax row.
    const BarsStyle softmax = softmaxBarsStyle(n, options);
    paintBars(painter, g.softmaxBars, n.rowWeights, softmax);

    // ⑦ V_i and ⑧ a_ij v_j with their sum.
    const qkv::Index keys = n.values.rows();
    // Three colour ranges: the values, their weighted parts (each a_ij times smaller: with many
    // keys they would vanish on the values' scale), and the head outputs (the sum and Concat).
    const MatrixPicture values = makeSignedPicture(n.values);
    const MatrixPicture parts = makeSignedPicture(n.weightedValues);
    const qkv::MatrixF sumRow = Eigen::Map<const qkv::RowVectorF>(n.headOutput.data(), static_cast<qkv::Index>(n.headOutput.size()));
    const qkv::MatrixF concatRow = Eigen::Map<const qkv::RowVectorF>(n.concat.data(), static_cast<qkv::Index>(n.concat.size()));
    double outputsRange = std::max(largestMagnitude(sumRow), largestMagnitude(concatRow));
    if (!(outputsRange > 0)) outputsRange = 1;
    const MatrixPicture sum = makePicture(sumRow, ColormapName::RedBlue, -outputsRange, outputsRange);
    paintPicture(painter, g.valueCells, values);
    paintPicture(painter, g.weightedCells, parts);
    paintPicture(painter, g.sumCells, sum);
    painter.setRenderHint(QPainter::Antialiasing, false);
    QColor frame = text;
    frame.setAlpha(120);
    painter.setPen(QPen(frame, 1));
    painter.setBrush(Qt::NoBrush);
    for (const QRectF& r : {g.valueCells, g.weightedCells, g.sumCells}) painter.drawRect(r);
    drawRowLabels(painter, g.valueLabels, n.keyLabels, n.key, text);
    drawWeightColumn(painter, g.weightColumn, n, text);
    outlineRow(painter, g.valueCells, keys, n.key);
    outlineRow(painter, g.weightedCells, keys, n.key);
    painter.setPen(text);
    painter.drawText(QRectF(g.weightColumn.left(), g.sumCells.top(), g.weightColumn.width() + 6, g.sumCells.height()),
                     Qt::AlignRight | Qt::AlignVCenter, tr("Σ_j ="));
    painter.drawText(QRectF(g.valueLabels.left(), g.sumCells.top(), g.valueCells.right() - g.valueLabels.left(), g.sumCells.height()),
                     Qt::AlignLeft | Qt::AlignVCenter, metrics.elidedText(tr("head_%1 row %2 (1 × %3)").arg(n.head + 1).arg(n.query).arg(n.d_k), Qt::ElideRight, g.valueCells.right() - g.valueLabels.left()));
    const QRectF headings(g.valueCells.left(), g.valueCells.top() - metrics.height() - 2, g.weightedCells.right() - g.valueCells.left(),
                          metrics.height());
    painter.drawText(QRectF(g.valueCells.left(), headings.top(), g.valueCells.width(), headings.height()), Qt::AlignCenter,
                     tr("v_j (rows of V_%1)").arg(n.head + 1));
    painter.drawText(QRectF(g.weightColumn.left() - 8, headings.top(), g.weightColumn.width() + 16, headings.height()),
                     Qt::AlignCenter, tr("× a_ij"));
    painter.drawText(QRectF(g.weightedCells.left(), headings.top(), g.weightedCells.width(), headings.height()),
                     Qt::AlignCenter, tr("= a_ij v_j"));
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setPen(text);
    paintColorLegend(painter, g.valueLegend, values.colormap, values.minValue, values.maxValue, tr("v_j (rows of V_i)"));
    paintColorLegend(painter, g.weightedLegend, parts.colormap, parts.minValue, parts.maxValue, tr("a_ij v_j"));

    // ⑨ Concat: one strip, head blocks marked, switched-off heads hatched.
    paintPicture(painter, g.concatCells, makePicture(concatRow, ColormapName::RedBlue, -outputsRange, outputsRange));
    painter.setRenderHint(QPainter::Antialiasing, false);
    for (std::size_t i = 0; i < g.headBlocks.size(); ++i) {
        const QRectF& block = g.headBlocks[i];
        const bool off = i < n.ablated.size() && n.ablated[i];
        if (off) {
            QColor hatch = text;
            hatch.setAlpha(110);
            painter.fillRect(block, QBrush(hatch, Qt::BDiagPattern));
        }
        const bool chosen = static_cast<int>(i) == n.head;
        painter.setPen(chosen ? QPen(kHighlight, 2.5) : QPen(frame, 1));
        painter.drawRect(chosen ? block.adjusted(-1, -1, 1, 1) : block);
        QString name = off ? tr("Head %1 off").arg(i + 1) : figuretext::headName(static_cast<qkv::Index>(i));
        if (metrics.horizontalAdvance(name) > block.width() - 2) name = off ? tr("%1 off").arg(i + 1) : QString::number(i + 1);
        if (metrics.horizontalAdvance(name) > block.width() + 2) name = QString::number(i + 1);
        if (metrics.horizontalAdvance(name) <= block.width() + 8 || chosen) {
            painter.setPen(chosen ? kHighlight : text);
            painter.drawText(QRectF(block.left() - 4, g.concatLabels.top(), block.width() + 8, g.concatLabels.height()),
                             Qt::AlignCenter, name);
        }
    }
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setPen(text);
    paintColorLegend(painter, g.concatLegend, ColormapName::RedBlue, -outputsRange, outputsRange,
                     tr("head outputs (Σ_j row and Concat)"));

    // ⑩ the output row.
    BarsStyle output;
    output.positive = kOutputColor;
    output.negative = kOutputColor.lighter(150);
    output.text = text;
    output.axisTitle = tr("components 0 … %1 of the output row").arg(n.d_model - 1);
    paintBars(painter, g.outputBars, n.output, output);

    if (!g.fits) {
        painter.setPen(muted(text));
        painter.drawText(target.adjusted(0, 0, -4, -2), Qt::AlignRight | Qt::AlignBottom, tr("(crowded: enlarge the window)"));
    }
    painter.restore();
}

std::vector<Figure> stepsFigures()
{
    Figure figure;
    figure.name = QStringLiteral("steps");
    figure.title = tr("Step by step: one query through the layer");
    figure.view = QStringLiteral("steps");
    figure.defaultSize = QSizeF(1400, 900);
    figure.unavailable = [](const FigureInput& input) {
        if (!input.result) return tr("No result yet.");
        const qkv::AttentionResult& a = input.result->attention;
        if (input.options.head >= a.headCount() || input.options.query >= a.queryCount() ||
            input.options.key >= a.keyCount())
            return tr("The selected head, query or key is outside this result.");
        return QString();
    };
    figure.paint = [](QPainter& painter, const QRectF& rect, const FigureInput& input) {
        const FigureOptions& o = input.options;
        const StepNumbers numbers = input.result ? gatherStepNumbers(*input.result, static_cast<int>(o.head),
                                                                     static_cast<int>(o.query), static_cast<int>(o.key))
                                                 : StepNumbers{};
        paintSteps(painter, rect, numbers, o);
    };
    return {figure};
}

}  // namespace qkv::ui
