// The factor product figure (factored_figures.hpp): W_i^Q, (W_i^K)^T and W_i laid out as a
// matrix product, short labels beside each matrix, the shapes in a caption that wraps, and the
// colour bars beside them: the two factors' stacked, W_i's at full height.
#include <QCoreApplication>
#include <QFontMetricsF>

#include <algorithm>
#include <cmath>

#include "ui/background/work_placement.hpp"
#include "ui/factored/factored_figure_helpers.hpp"
#include "ui/factored/factored_figures.hpp"
#include "ui/figures/text_layout.hpp"
#include "ui/render/color_legend.hpp"
#include "ui/render/heatmap_painter.hpp"

namespace qkv::ui {
using factored_figure::Text;

namespace {

constexpr double kGap = 6.0;
constexpr double kStripShare = 0.35;  // a factor strip takes at most this share of W_i's side

// Bold text is ~10 % wider than `metrics` says; the title is measured with some room.
double titleHeight(const QFontMetricsF& metrics, double width, const QString& title)
{
    return wrappedTextRect(metrics, width / 1.2, title).height() * 1.1 + 2;
}

}  // namespace

QString factorProductTitle(const FactoredHeadModel& model)
{
    return Text::tr("Head %1 of %2: W_i = W_i^Q (W_i^K)ᵀ, a %3 × %3 matrix of rank ≤ d_k = %4")
        .arg(model.head + 1)
        .arg(model.headCount)
        .arg(model.d_model)
        .arg(model.d_k);
}

QString factorProductCaption(const FactoredHeadModel& model, const MatrixWindow& window, Index productBins)
{
    const QString d = QString::number(model.d_model), dk = QString::number(model.d_k);
    const bool whole = window.rows == model.d_model && window.cols == model.d_model;
    const double perCell = productBins > 0 ? static_cast<double>(window.rows) / static_cast<double>(productBins) : 1.0;
    QString shown = whole ? Text::tr("all rows and columns")
                          : Text::tr("rows %1–%2, columns %3–%4 (from 0)")
                                .arg(window.row0)
                                .arg(window.row0 + window.rows - 1)
                                .arg(window.col0)
                                .arg(window.col0 + window.cols - 1);
    shown += perCell > 1.0001
                 ? Text::tr("; a cell is the mean of ≈%1 × %1 entries").arg(QString::number(perCell, 'f', 1))
                 : Text::tr("; one cell per entry");
    return Text::tr(
               "W_i^Q: d_model × d_k = %1 × %2 · (W_i^K)ᵀ: d_k × d_model = %2 × %1 · W_i: d_model × d_model = %1 × %1, "
               "%3. Each matrix has its own colour range.")
        .arg(d, dk, shown);
}

MatrixWindow clampWindow(MatrixWindow window, Index d_model, Index minSide)
{
    if (d_model <= 0) return {};
    Index side = std::max(window.rows, window.cols);
    side = std::clamp<Index>(side, std::min(minSide, d_model), d_model);
    window.rows = window.cols = side;
    window.row0 = std::clamp<Index>(window.row0, 0, d_model - side);
    window.col0 = std::clamp<Index>(window.col0, 0, d_model - side);
    return window;
}

FactorProductGeometry factorProductGeometry(const QRectF& target, const QFontMetricsF& metrics,
                                            const FactoredHeadModel& model, const MatrixWindow& window)
{
    FactorProductGeometry g;
    const Index d_k = std::max<Index>(1, model.d_k);
    const Index windowSide = std::max<Index>(1, std::min(window.rows, window.cols));
    const double line = metrics.height();
    const double titleBand = titleHeight(metrics, target.width(), factorProductTitle(model)) + kGap;
    const double topLabel = line + kGap;   // "(W_i^K)ᵀ" above the top strip
    const double leftLabel = line + kGap;  // "W_i^Q" beside the left strip, rotated
    const double legendWidth = verticalLegendWidth(metrics, QStringLiteral("−0.125"));
    // Two columns of colour bars: the factors' one above the other, W_i's as tall as the
    // matrices. Never three in one column: a short box turns a colour bar horizontal, and its
    // ticks run into each other.
    const double legendsWidth = 2 * legendWidth + kGap;
    // The caption's height depends a little on the resolution it names: measure it twice.
    double caption = 2 * line;
    double side = 0;
    for (int pass = 0; pass < 2; ++pass) {
        const double availableWidth = target.width() - leftLabel - legendsWidth - 3 * kGap;
        const double availableHeight = target.height() - titleBand - topLabel - caption - 2 * kGap;
        const double available = std::max(8.0, std::min(availableWidth, availableHeight));
        // side * (1 + share) + kGap = available, share = min(d_k / bins, 0.35); bins depends on
        // side (one cell per pixel at most).
        side = available / (1.0 + kStripShare);
        for (int inner = 0; inner < 2; ++inner) {
            const Index bins = std::clamp<Index>(static_cast<Index>(std::floor(side)), 1, windowSide);
            const double share = std::min(static_cast<double>(d_k) / static_cast<double>(bins), kStripShare);
            side = std::max(4.0, (available - kGap) / (1.0 + share));
        }
        g.productBins = std::clamp<Index>(static_cast<Index>(std::floor(side)), 1, windowSide);
        caption =
            wrappedTextRect(metrics, target.width(), factorProductCaption(model, window, g.productBins)).height() + 2;
    }
    g.cell = std::floor(side / static_cast<double>(g.productBins) * 8.0) / 8.0;  // crisp edges
    g.cell = std::max(g.cell, side / static_cast<double>(g.productBins) * 0.5);
    side = g.cell * static_cast<double>(g.productBins);
    g.stripBins = std::clamp<Index>(static_cast<Index>(std::floor(kStripShare * side / g.cell)), 1, d_k);
    const double strip = g.cell * static_cast<double>(g.stripBins);

    const double blockWidth = leftLabel + strip + kGap + side + 2 * kGap + legendsWidth;
    const double blockHeight = topLabel + strip + kGap + side;
    const double x0 = target.left() + std::max(0.0, (target.width() - blockWidth) / 2.0) + leftLabel;
    const double free = target.height() - titleBand - blockHeight - caption - kGap;
    const double y0 = target.top() + titleBand + std::max(0.0, free / 2) + topLabel;
    g.title = QRectF(target.left(), target.top(), target.width(), titleBand - kGap);
    g.leftFactor = QRectF(x0, y0 + strip + kGap, strip, side);
    g.topFactor = QRectF(x0 + strip + kGap, y0, side, strip);
    g.product = QRectF(x0 + strip + kGap, y0 + strip + kGap, side, side);
    // W_i^Q's and (W_i^K)^T's colour bars in the first column, W_i's in the second.
    const double legendX = g.product.right() + 2 * kGap;
    const double legendHeight = g.product.bottom() - g.topFactor.top();
    const double half = (legendHeight - 3 * kGap) / 2;
    g.queryFactorLegend = QRectF(legendX, g.topFactor.top(), legendWidth, half);
    g.keyFactorLegend = QRectF(legendX, g.product.bottom() - half, legendWidth, half);
    g.productLegend = QRectF(legendX + legendWidth + kGap, g.topFactor.top(), legendWidth, legendHeight);
    g.caption = QRectF(target.left(), g.product.bottom() + kGap, target.width(), caption);
    return g;
}

FactorProductPicture factorProductPicture(const FactoredHeadModel& model, const FactorProductGeometry& geometry,
                                          const MatrixWindow& window)
{
    FactorProductPicture picture;
    if (!model.valid()) return picture;
    const FactoredMatrix& f = *model.factored;
    const Index d_k = f.d_k();
    // W_i^Q: the window's rows, all d_k columns, pooled to the drawn cells.
    picture.left =
        poolMatrix(f.left(), MatrixWindow{window.row0, 0, window.rows, d_k}, geometry.productBins, geometry.stripBins);
    // (W_i^K)^T: the window's columns of W_i are rows of W_i^K.
    picture.top =
        poolMatrix(f.right(), MatrixWindow{window.col0, 0, window.cols, d_k}, geometry.productBins, geometry.stripBins)
            .transpose();
    // W_i at the drawn resolution only: block means from the pooled factors.
    picture.product = pooledProduct(f, window, geometry.productBins, geometry.productBins);
    const auto range = [](double largest) { return largest > 0.0 ? largest : 1.0; };
    picture.queryFactorRange = range(maxAbs(picture.left));
    picture.keyFactorRange = range(maxAbs(picture.top));
    picture.productRange = range(maxAbs(picture.product));
    return picture;
}

double factorProductWork(const FactoredHeadModel& model, const MatrixWindow& window, const QSizeF& size)
{
    if (!model.valid()) return 0.0;
    const double d_k = static_cast<double>(model.d_k);
    const double side = static_cast<double>(std::min(window.rows, window.cols));
    const double bins = std::min(side, std::max(1.0, std::min(size.width(), size.height())));
    // Pooling copies and sums each entry of the window's factor rows (twice: rows, then columns).
    const double pooling = 2.0 * static_cast<double>(window.rows + window.cols) * d_k;
    return pooling + bins * bins * d_k + 3.0 * bins * bins * kMultiplyAddsPerEntry;
}

void paintFactorProduct(QPainter& painter, const QRectF& target, const FactoredHeadModel& model,
                        const MatrixWindow& requested, const FigurePalette& palette)
{
    if (!model.valid()) {
        painter.setPen(palette.mutedText);
        painter.drawText(target, Qt::AlignCenter, Text::tr("No result yet"));
        return;
    }
    const QFontMetricsF metrics(painter.font(), painter.device());
    const MatrixWindow window = clampWindow(requested, model.d_model);
    const FactorProductGeometry g = factorProductGeometry(target, metrics, model, window);
    const FactorProductPicture picture = factorProductPicture(model, g, window);
    const double line = metrics.height();

    paintMatrixCells(painter, g.leftFactor, picture.left, picture.queryFactorRange);
    paintMatrixCells(painter, g.topFactor, picture.top, picture.keyFactorRange);
    paintMatrixCells(painter, g.product, picture.product, picture.productRange);
    // Frames, so near-zero (white) cells still show the matrix's extent.
    painter.setPen(QPen(palette.outline, 1.0));
    painter.setBrush(Qt::NoBrush);
    for (const QRectF& r : {g.leftFactor, g.topFactor, g.product}) painter.drawRect(r);

    painter.setPen(palette.text);
    const QFont base = painter.font();
    painter.setFont(figureTitleFont(base));
    painter.drawText(g.title, Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignTop, factorProductTitle(model));
    painter.setFont(base);
    // Short names beside the matrices (always whole); the shapes are in the caption.
    painter.save();
    painter.translate(g.leftFactor.left() - kGap - line / 2, g.leftFactor.center().y());
    painter.rotate(-90);
    painter.drawText(QRectF(-g.leftFactor.height() / 2, -line / 2, g.leftFactor.height(), line), Qt::AlignCenter,
                     Text::tr("W_i^Q"));
    painter.restore();
    painter.drawText(QRectF(g.topFactor.left(), g.topFactor.top() - line - kGap / 2, g.topFactor.width(), line),
                     Qt::AlignLeft | Qt::AlignBottom, Text::tr("(W_i^K)ᵀ"));
    const QRectF product = g.product.adjusted(4, 4, -4, -4);
    const QString productName = Text::tr("W_i");
    QRectF nameBox(product.topLeft(), QSizeF(metrics.horizontalAdvance(productName) + 8, line + 2));
    QColor box = palette.text.lightness() > 128 ? QColor(0, 0, 0, 150) : QColor(255, 255, 255, 190);
    painter.fillRect(nameBox, box);
    painter.drawText(nameBox, Qt::AlignCenter, productName);
    painter.setPen(palette.mutedText);
    painter.drawText(g.caption, Qt::TextWordWrap | Qt::AlignHCenter | Qt::AlignTop,
                     factorProductCaption(model, window, g.productBins));
    painter.setPen(palette.text);
    paintColorLegend(painter, g.keyFactorLegend, kDivergingColormap, -picture.keyFactorRange, picture.keyFactorRange,
                     Text::tr("(W_i^K)ᵀ"));
    paintColorLegend(painter, g.queryFactorLegend, kDivergingColormap, -picture.queryFactorRange,
                     picture.queryFactorRange, Text::tr("W_i^Q"));
    paintColorLegend(painter, g.productLegend, kDivergingColormap, -picture.productRange, picture.productRange,
                     Text::tr("W_i"));
}

}  // namespace qkv::ui
