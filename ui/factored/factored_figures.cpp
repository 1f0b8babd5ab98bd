#include "ui/factored/factored_figures.hpp"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QStringList>

#include <algorithm>
#include <cmath>

#include "ui/render/heatmap_layout.hpp"
#include "ui/render/heatmap_painter.hpp"

namespace qkv::ui {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("qkv::ui::FactoredFigures", text); }

constexpr double kGap = 6.0;
constexpr double kStripShare = 0.35;  // a factor strip takes at most this share of W_i's side
constexpr double kHeatmapMargin = 2.0;  // paintHeatmap keeps 2 px right and below the cells

MatrixF toFloat(const MatrixD& m) { return m.cast<float>(); }

double symmetricRange(double maxAbsValue) { return maxAbsValue > 0.0 ? maxAbsValue : 1.0; }

// paintHeatmap without labels or titles, so its cells fill `cells` exactly (square cells of
// cells.width() / cols == cells.height() / rows).
void paintCells(QPainter& painter, const QRectF& cells, const MatrixD& values, double range)
{
    if (values.size() == 0) {
        return;
    }
    HeatmapStyle style;
    style.colormap = ColormapName::RedBlue;
    style.minValue = -range;
    style.maxValue = range;
    style.drawLabels = false;
    const QRectF target = cells.adjusted(0, 0, kHeatmapMargin, kHeatmapMargin);
    paintHeatmap(painter, target, toFloat(values), style);
}

QStringList toQStrings(const std::vector<std::string>& labels)
{
    QStringList out;
    out.reserve(static_cast<qsizetype>(labels.size()));
    for (const std::string& label : labels) {
        out.push_back(QString::fromStdString(label));
    }
    return out;
}

// Text rotated 90 degrees counter-clockwise, centred in `box` (box is the unrotated area).
void drawVerticalText(QPainter& painter, const QRectF& box, const QString& text)
{
    painter.save();
    painter.translate(box.center());
    painter.rotate(-90);
    const QRectF rotated(-box.height() / 2.0, -box.width() / 2.0, box.height(), box.width());
    const QFontMetricsF metrics(painter.font());
    painter.drawText(rotated, Qt::AlignCenter,
                     metrics.elidedText(text, Qt::ElideRight, rotated.width()));
    painter.restore();
}

void drawElided(QPainter& painter, const QRectF& box, int flags, const QString& text)
{
    const QFontMetricsF metrics(painter.font());
    painter.drawText(box, flags, metrics.elidedText(text, Qt::ElideRight, box.width()));
}

QString legendTickWidthSample() { return QStringLiteral("-0.000e-00"); }

}  // namespace

QString formatNumber(double value)
{
    if (!std::isfinite(value)) {
        return std::isnan(value) ? QStringLiteral("NaN") : (value > 0 ? QStringLiteral("∞") : QStringLiteral("-∞"));
    }
    if (value == 0.0) {
        return QStringLiteral("0");
    }
    const double magnitude = std::abs(value);
    if (magnitude >= 1e-3 && magnitude < 1e5) {
        return QString::number(value, 'g', 4);
    }
    return QString::number(value, 'e', 2);
}

// ---- the factor product ---------------------------------------------------------------

MatrixWindow clampWindow(MatrixWindow window, Index d_model, Index minSide)
{
    if (d_model <= 0) {
        return {};
    }
    Index side = std::max(window.rows, window.cols);
    side = std::clamp<Index>(side, std::min(minSide, d_model), d_model);
    window.rows = window.cols = side;
    window.row0 = std::clamp<Index>(window.row0, 0, d_model - side);
    window.col0 = std::clamp<Index>(window.col0, 0, d_model - side);
    return window;
}

FactorProductGeometry factorProductGeometry(const QRectF& target, const QFontMetricsF& metrics,
                                            Index d_k, const MatrixWindow& window)
{
    FactorProductGeometry g;
    const Index windowSide = std::max<Index>(1, std::min(window.rows, window.cols));
    const double line = metrics.height();
    const double titleBand = line * 1.4;           // the figure's title
    const double stripTitle = line + kGap;         // above (W_i^K)^T
    const double leftTitle = line + kGap;          // beside W_i^Q, rotated
    const double caption = 2.0 * line + 2 * kGap;  // below W_i: its title and the window
    const double legendWidth = metrics.horizontalAdvance(legendTickWidthSample()) + 24.0;

    const double availableWidth = target.width() - leftTitle - legendWidth - 2 * kGap;
    const double availableHeight = target.height() - titleBand - stripTitle - caption;
    const double available = std::max(8.0, std::min(availableWidth, availableHeight));

    // side * (1 + stripShare) + kGap = available, stripShare = min(d_k / bins, 0.35);
    // bins depends on side (one cell per pixel at most), so settle it in two passes.
    double side = available / (1.0 + kStripShare);
    for (int pass = 0; pass < 2; ++pass) {
        const Index bins = std::clamp<Index>(static_cast<Index>(std::floor(side)), 1, windowSide);
        const double share = std::min(static_cast<double>(d_k) / static_cast<double>(bins), kStripShare);
        side = std::max(4.0, (available - kGap) / (1.0 + share));
    }
    g.productBins = std::clamp<Index>(static_cast<Index>(std::floor(side)), 1, windowSide);
    g.cell = std::floor(side / static_cast<double>(g.productBins) * 8.0) / 8.0;  // crisp edges
    g.cell = std::max(g.cell, side / static_cast<double>(g.productBins) * 0.5);
    side = g.cell * static_cast<double>(g.productBins);
    g.stripBins = std::clamp<Index>(static_cast<Index>(std::floor(kStripShare * side / g.cell)), 1,
                                    std::max<Index>(1, d_k));
    const double strip = g.cell * static_cast<double>(g.stripBins);

    const double blockWidth = leftTitle + strip + kGap + side + kGap + legendWidth;
    const double x0 = target.left() + std::max(0.0, (target.width() - blockWidth) / 2.0) + leftTitle;
    const double y0 = target.top() + titleBand + stripTitle;
    g.leftFactor = QRectF(x0, y0 + strip + kGap, strip, side);
    g.topFactor = QRectF(x0 + strip + kGap, y0, side, strip);
    g.product = QRectF(x0 + strip + kGap, y0 + strip + kGap, side, side);
    const double legendX = g.product.right() + kGap * 2;
    const double legendW = legendWidth - kGap;
    g.factorLegend = QRectF(legendX, g.topFactor.top() - stripTitle + line + 2,
                            legendW, std::max(strip + stripTitle - line, side * 0.3));
    const double productLegendTop = std::max(g.product.top(), g.factorLegend.bottom() + line + kGap);
    g.productLegend = QRectF(legendX, productLegendTop, legendW, g.product.bottom() - productLegendTop);
    return g;
}

FactorProductPicture factorProductPicture(const FactoredHeadModel& model,
                                          const FactorProductGeometry& geometry,
                                          const MatrixWindow& window)
{
    FactorProductPicture picture;
    if (!model.valid()) {
        return picture;
    }
    const FactoredMatrix& f = *model.factored;
    const Index d_k = f.d_k();
    // W_i^Q: the window's rows, all d_k columns, pooled to the drawn cells.
    picture.left = poolMatrix(f.left(), MatrixWindow{window.row0, 0, window.rows, d_k},
                              geometry.productBins, geometry.stripBins);
    // (W_i^K)^T: the window's columns of W_i are rows of W_i^K.
    picture.top = poolMatrix(f.right(), MatrixWindow{window.col0, 0, window.cols, d_k},
                             geometry.productBins, geometry.stripBins)
                      .transpose();
    // W_i at the drawn resolution only: block means from the pooled factors.
    picture.product = pooledProduct(f, window, geometry.productBins, geometry.productBins);
    picture.factorRange = symmetricRange(std::max(maxAbs(picture.left), maxAbs(picture.top)));
    picture.productRange = symmetricRange(maxAbs(picture.product));
    return picture;
}

void paintFactorProduct(QPainter& painter, const QRectF& target, const FactoredHeadModel& model,
                        const MatrixWindow& requested, const FigurePalette& palette)
{
    if (!model.valid()) {
        painter.setPen(palette.mutedText);
        painter.drawText(target, Qt::AlignCenter, tr("No result yet"));
        return;
    }
    const QFontMetricsF metrics(painter.font(), painter.device());
    const MatrixWindow window = clampWindow(requested, model.d_model);
    const FactorProductGeometry g = factorProductGeometry(target, metrics, model.d_k, window);
    const FactorProductPicture picture = factorProductPicture(model, g, window);
    const double line = metrics.height();

    paintCells(painter, g.leftFactor, picture.left, picture.factorRange);
    paintCells(painter, g.topFactor, picture.top, picture.factorRange);
    paintCells(painter, g.product, picture.product, picture.productRange);

    // Frames, so near-zero (white) cells still show the matrix's extent.
    painter.setPen(QPen(palette.outline, 1.0));
    painter.setBrush(Qt::NoBrush);
    for (const QRectF& r : {g.leftFactor, g.topFactor, g.product}) {
        painter.drawRect(r);
    }

    painter.setPen(palette.text);
    const QString d = QString::number(model.d_model);
    const QString dk = QString::number(model.d_k);
    QFont bold = painter.font();
    bold.setBold(true);
    painter.save();
    painter.setFont(bold);
    drawElided(painter, QRectF(target.left(), target.top(), target.width(), line * 1.4),
               Qt::AlignLeft | Qt::AlignVCenter,
               tr("Head %1 of %2: W_i = W_i^Q (W_i^K)ᵀ, a %3 × %3 matrix of rank ≤ d_k = %4")
                   .arg(model.head + 1)
                   .arg(model.headCount)
                   .arg(d)
                   .arg(dk));
    painter.restore();

    // Factor titles with their shapes.
    drawVerticalText(painter, QRectF(g.leftFactor.left() - line - kGap, g.leftFactor.top(), line, g.leftFactor.height()),
                     tr("W_i^Q   (d_model × d_k = %1 × %2)").arg(d, dk));
    drawElided(painter, QRectF(g.topFactor.left(), g.topFactor.top() - line - kGap / 2, g.topFactor.width(), line),
               Qt::AlignLeft | Qt::AlignBottom,
               tr("(W_i^K)ᵀ   (d_k × d_model = %1 × %2)").arg(dk, d));

    // W_i's caption: shape, window, resolution.
    const QRectF caption1(g.product.left() - g.leftFactor.width() - kGap, g.product.bottom() + kGap,
                          g.product.width() + g.leftFactor.width() + kGap, line);
    drawElided(painter, caption1, Qt::AlignHCenter | Qt::AlignTop,
               tr("W_i = W_i^Q (W_i^K)ᵀ   (d_model × d_model = %1 × %1)").arg(d));
    const bool whole = window.rows == model.d_model && window.cols == model.d_model;
    const double perCell = static_cast<double>(window.rows) / static_cast<double>(g.productBins);
    QString detail = whole ? tr("all rows and columns")
                           : tr("rows %1–%2, columns %3–%4")
                                 .arg(window.row0)
                                 .arg(window.row0 + window.rows - 1)
                                 .arg(window.col0)
                                 .arg(window.col0 + window.cols - 1);
    if (perCell > 1.0001) {
        detail += tr("; a cell = mean of ≈%1×%1 entries")
                      .arg(QString::number(perCell, 'f', 1));
    } else {
        detail += tr("; one cell per entry");
    }
    painter.setPen(palette.mutedText);
    drawElided(painter, caption1.translated(0, line + 2), Qt::AlignHCenter | Qt::AlignTop, detail);

    painter.setPen(palette.text);
    paintColorLegend(painter, g.factorLegend, ColormapName::RedBlue, -picture.factorRange,
                     picture.factorRange, tr("factors"));
    paintColorLegend(painter, g.productLegend, ColormapName::RedBlue, -picture.productRange,
                     picture.productRange, tr("W_i"));
}

// ---- the fused layout -----------------------------------------------------------------

std::vector<std::pair<Index, Index>> headColumnPartition(Index d_model, Index headCount)
{
    std::vector<std::pair<Index, Index>> blocks;
    if (headCount < 1 || d_model < 1 || d_model % headCount != 0) {
        return blocks;
    }
    const Index d_k = d_model / headCount;
    for (Index i = 0; i < headCount; ++i) {
        blocks.emplace_back(i * d_k, d_k);  // W_i^Q = W^Q[:, i*d_k : (i+1)*d_k]
    }
    return blocks;
}

std::vector<QRectF> headBlockOutlines(const QRectF& cells, Index d_model, Index headCount)
{
    std::vector<QRectF> outlines;
    const double scale = d_model > 0 ? cells.width() / static_cast<double>(d_model) : 0.0;
    for (const auto& [first, width] : headColumnPartition(d_model, headCount)) {
        outlines.emplace_back(cells.left() + static_cast<double>(first) * scale, cells.top(),
                              static_cast<double>(width) * scale, cells.height());
    }
    return outlines;
}

FusedLayoutGeometry fusedLayoutGeometry(const QRectF& target, const QFontMetricsF& metrics,
                                        Index d_model, Index headCount)
{
    FusedLayoutGeometry g;
    const double line = metrics.height();
    const double titleBand = line * 1.4;
    const double headLabels = line + 4;
    const double caption = 2.0 * line + 2 * kGap;
    const double legendWidth = metrics.horizontalAdvance(legendTickWidthSample()) + 24.0;
    const double availableWidth = target.width() - legendWidth - 2 * kGap - line;
    const double availableHeight = target.height() - titleBand - headLabels - caption;
    double side = std::max(8.0, std::min(availableWidth, availableHeight));
    g.bins = std::clamp<Index>(static_cast<Index>(std::floor(side)), 1, std::max<Index>(1, d_model));
    const double cell = side / static_cast<double>(g.bins);
    side = cell * static_cast<double>(g.bins);
    const double blockWidth = line + side + 2 * kGap + legendWidth;
    const double x0 = target.left() + std::max(0.0, (target.width() - blockWidth) / 2.0) + line;
    g.cells = QRectF(x0, target.top() + titleBand + headLabels, side, side);
    g.legend = QRectF(g.cells.right() + 2 * kGap, g.cells.top() + side * 0.15, legendWidth - kGap, side * 0.7);
    g.outlines = headBlockOutlines(g.cells, d_model, headCount);
    return g;
}

void paintFusedLayout(QPainter& painter, const QRectF& target, const FactoredHeadModel& model,
                      const FigurePalette& palette)
{
    if (!model.valid()) {
        return;
    }
    const Result& r = *model.result;
    const QFontMetricsF metrics(painter.font(), painter.device());
    const double line = metrics.height();
    const FusedLayoutGeometry g = fusedLayoutGeometry(target, metrics, model.d_model, model.headCount);

    // The whole W^Q, drawn at the resolution of the cells.
    const MatrixF& wq = r.weights->queryProjection;  // d_model x d_model
    const MatrixF drawn = poolMatrix(wq, MatrixWindow::whole(wq.rows(), wq.cols()), g.bins, g.bins);
    const double range = symmetricRange(maxAbs(drawn));
    paintCells(painter, g.cells, drawn.cast<double>(), range);

    // Dim the other heads a little, then outline every block; the selected one stands out.
    for (std::size_t i = 0; i < g.outlines.size(); ++i) {
        if (static_cast<Index>(i) != model.head) {
            painter.fillRect(g.outlines[i], QColor(255, 255, 255, 70));
        }
    }
    painter.setBrush(Qt::NoBrush);
    painter.setPen(QPen(palette.outline, 1.0));
    for (const QRectF& block : g.outlines) {
        painter.drawRect(block);
    }

    // Head numbers above the blocks, thinned so they never overlap.
    const double blockWidth = g.outlines.empty() ? 0.0 : g.outlines.front().width();
    const double labelWidth = metrics.horizontalAdvance(QString::number(model.headCount - 1)) + 4.0;
    const Index step = blockWidth > 0 ? std::max<Index>(1, static_cast<Index>(std::ceil(labelWidth / blockWidth))) : 1;
    painter.setPen(palette.mutedText);
    for (std::size_t i = 0; i < g.outlines.size(); ++i) {
        const bool selected = static_cast<Index>(i) == model.head;
        if (!selected && static_cast<Index>(i) % step != 0) {
            continue;
        }
        const QRectF block = g.outlines[i];
        const QRectF label(block.center().x() - labelWidth, g.cells.top() - line - 2, 2 * labelWidth, line);
        if (selected) {
            QFont bold = painter.font();
            bold.setBold(true);
            painter.save();
            painter.setFont(bold);
            painter.setPen(palette.emphasis);
            painter.drawText(label, Qt::AlignCenter, QString::number(i + 1));
            painter.restore();
        } else {
            painter.drawText(label, Qt::AlignCenter, QString::number(i + 1));
        }
    }
    if (model.head >= 0 && model.head < static_cast<Index>(g.outlines.size())) {
        const QRectF block = g.outlines[static_cast<std::size_t>(model.head)];
        painter.setPen(QPen(Qt::white, 4.0));
        painter.drawRect(block);
        painter.setPen(QPen(palette.emphasis, 2.5));
        painter.drawRect(block);
    }

    painter.setPen(palette.text);
    QFont bold = painter.font();
    bold.setBold(true);
    painter.save();
    painter.setFont(bold);
    drawElided(painter, QRectF(target.left(), target.top(), target.width(), line * 1.4),
               Qt::AlignLeft | Qt::AlignVCenter, tr("Fused layout: one W^Q split into h = %1 heads").arg(model.headCount));
    painter.restore();
    drawVerticalText(painter, QRectF(g.cells.left() - line - 2, g.cells.top(), line, g.cells.height()),
                     tr("d_model = %1 input features").arg(model.d_model));
    const QRectF caption(target.left(), g.cells.bottom() + kGap, target.width(), line);
    drawElided(painter, caption, Qt::AlignHCenter | Qt::AlignTop,
               tr("W^Q (%1 × %1): head i owns columns [(i−1)·d_k, i·d_k), d_k = %2")
                   .arg(model.d_model)
                   .arg(model.d_k));
    painter.setPen(palette.mutedText);
    drawElided(painter, caption.translated(0, line + 2), Qt::AlignHCenter | Qt::AlignTop,
               tr("head %1 = columns %2–%3 (from 0); changing h re-partitions the same matrix")
                   .arg(model.head + 1)
                   .arg(model.head * model.d_k)
                   .arg((model.head + 1) * model.d_k - 1));
    painter.setPen(palette.text);
    paintColorLegend(painter, g.legend, ColormapName::RedBlue, -range, range, tr("W^Q"));
}

// ---- the equivalence --------------------------------------------------------------------

QString equivalenceSentence(const FactoredHeadModel& model)
{
    if (!model.valid() || !model.scoresReady) {
        return {};
    }
    const EquivalenceReport& report = model.scores.report;
    return tr("max |difference| = %1 (relative to the largest score %2: %3). The same scores: "
              "Q_i K_iᵀ = (X_q W_i^Q)(X_kv W_i^K)ᵀ = X_q W_i X_kvᵀ (shown before the 1/√d_k scale).")
        .arg(formatNumber(report.maxAbsDifference), formatNumber(report.maxAbsScore),
             formatNumber(report.relativeError));
}

QString biasSentence(const FactoredHeadModel& model)
{
    if (!model.hasBias()) {
        return {};
    }
    return tr("With biases, (X_q W_i^Q + b_i^Q)(X_kv W_i^K + b_i^K)ᵀ = X_q W_i X_kvᵀ "
              "+ X_q W_i^Q b_i^Kᵀ + b_i^Q (X_kv W_i^K)ᵀ + b_i^Q b_i^Kᵀ: a per-query term, a per-key "
              "term and a constant are added (the constant and the per-query term cancel in the "
              "softmax over each row). The maps above are the bias-free part.");
}

void paintScoreEquivalence(QPainter& painter, const QRectF& target, const FactoredHeadModel& model,
                           const FigurePalette& palette)
{
    if (model.valid() && !model.scoresReady) {
        painter.setPen(palette.mutedText);
        painter.drawText(target, Qt::AlignCenter,
                         tr("Computing the scores both ways (the full W_i is %1 × %1)…").arg(model.d_model));
        return;
    }
    if (!model.valid() || model.scores.factored.size() == 0) {
        painter.setPen(palette.mutedText);
        painter.drawText(target, Qt::AlignCenter, tr("No scores to compare"));
        return;
    }
    const Result& r = *model.result;
    const QFontMetricsF metrics(painter.font(), painter.device());
    const double line = metrics.height();

    // Text below the maps, word-wrapped; measure it first.
    QString text = equivalenceSentence(model);
    const QString bias = biasSentence(model);
    if (!bias.isEmpty()) {
        text += QLatin1Char('\n') + bias;
    }
    const QRectF textBounds = metrics.boundingRect(QRectF(0, 0, target.width(), 10000),
                                                   Qt::TextWordWrap | Qt::AlignLeft, text);
    const double textHeight = std::min(textBounds.height() + 2, target.height() * 0.45);

    const double titleBand = line * 1.4;
    const double legendWidth = metrics.horizontalAdvance(legendTickWidthSample()) + 24.0;
    const QRectF maps(target.left(), target.top() + titleBand,
                      target.width() - legendWidth - kGap,
                      target.height() - titleBand - textHeight - kGap);
    const double range = symmetricRange(
        std::max(maxAbs(model.scores.factored), maxAbs(model.scores.full)));

    HeatmapStyle style;
    style.colormap = ColormapName::RedBlue;
    style.minValue = -range;
    style.maxValue = range;
    style.rowLabels = toQStrings(r.queryLabels);
    style.columnLabels = toQStrings(r.keyLabels);
    style.rowAxisTitle = tr("query");
    style.columnAxisTitle = tr("key");
    style.textColor = palette.text;

    const double half = maps.width() / 2.0;
    const QRectF leftRect(maps.left(), maps.top(), half - kGap, maps.height());
    const QRectF rightRect(maps.left() + half + kGap, maps.top(), half - kGap, maps.height());
    style.title = tr("factored: (X_q W_i^Q)(X_kv W_i^K)ᵀ");
    painter.setPen(palette.text);
    paintHeatmap(painter, leftRect, toFloat(model.scores.factored), style);
    style.title = tr("full: X_q W_i X_kvᵀ");
    paintHeatmap(painter, rightRect, toFloat(model.scores.full), style);

    painter.setPen(palette.text);
    QFont bold = painter.font();
    bold.setBold(true);
    painter.save();
    painter.setFont(bold);
    drawElided(painter, QRectF(target.left(), target.top(), target.width(), titleBand),
               Qt::AlignLeft | Qt::AlignVCenter, tr("The same scores two ways: head %1, %2 queries × %3 keys, unscaled, no biases")
                   .arg(model.head + 1)
                   .arg(model.scores.factored.rows())
                   .arg(model.scores.factored.cols()));
    painter.restore();
    paintColorLegend(painter, QRectF(maps.right() + kGap, maps.top() + maps.height() * 0.1, legendWidth - kGap, maps.height() * 0.7),
                     ColormapName::RedBlue, -range, range, tr("score"));
    painter.drawText(QRectF(target.left(), target.bottom() - textHeight, target.width(), textHeight),
                     Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignTop, text);
}

}  // namespace qkv::ui
