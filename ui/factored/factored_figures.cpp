#include "ui/factored/factored_figures.hpp"

#include <cmath>

#include "ui/factored/factored_figure_helpers.hpp"
#include "ui/figures/number_format.hpp"
#include "ui/render/heatmap_painter.hpp"

namespace qkv::ui {

using namespace factored_figure;

FigurePalette figurePalette(const FigureOptions& options)
{
    FigurePalette palette;
    palette.text = options.text;
    palette.background = options.background;
    const bool dark = options.background.lightness() < 128;
    palette.mutedText = dark ? options.text.darker(130) : QColor(90, 90, 90);
    palette.emphasis = emphasisColor(options);
    palette.outline = options.text;
    palette.outline.setAlpha(160);
    return palette;
}

void paintMatrixCells(QPainter& painter, const QRectF& cells, const MatrixD& values, double range)
{
    if (values.size() == 0) return;
    HeatmapStyle style;
    style.colormap = kDivergingColormap;
    style.minValue = -range;
    style.maxValue = range;
    style.drawLabels = false;
    paintHeatmap(painter, cells.adjusted(0, 0, kHeatmapMargin, kHeatmapMargin), toFloat(values), style);
}

// ---- all four -----------------------------------------------------------------------------

void paintFactoredOverview(QPainter& painter, const QRectF& target, const FactoredHeadModel& model,
                           const MatrixWindow& window, const FigurePalette& palette)
{
    // The tab's proportions: the product and the spectrum on the left, a little wider.
    constexpr double kLeftShare = 11.0 / 20.0, kTopShare = 11.0 / 20.0;
    const double leftWidth = target.width() * kLeftShare;
    const double topHeight = target.height() * kTopShare;
    const auto inset = [](const QRectF& r) { return r.adjusted(8, 8, -8, -8); };
    paintFactorProduct(painter, inset(QRectF(target.left(), target.top(), leftWidth, topHeight)), model, window,
                       palette);
    paintFusedLayout(painter,
                     inset(QRectF(target.left() + leftWidth, target.top(), target.width() - leftWidth, topHeight)),
                     model, palette);
    paintSpectrum(painter,
                  inset(QRectF(target.left(), target.top() + topHeight, leftWidth, target.height() - topHeight)), model,
                  palette);
    paintScoreEquivalence(painter,
                          inset(QRectF(target.left() + leftWidth, target.top() + topHeight, target.width() - leftWidth,
                                       target.height() - topHeight)),
                          model, palette);
}

// ---- the registry -------------------------------------------------------------------------

namespace {

// The scores both ways need the dense W_i (O(d_model^2 d_k)): only for the figures showing them.
FactoredHeadModel modelFor(const FigureInput& input, bool withScores)
{
    return FactoredHeadModel::build(input.result, input.options.head, withScores);
}

MatrixWindow windowFor(const FigureInput& input, Index d_model)
{
    const QRect w = input.options.productWindow;
    if (w.isNull() || w.isEmpty()) return MatrixWindow::whole(d_model, d_model);
    return clampWindow(MatrixWindow{w.y(), w.x(), w.height(), w.width()}, d_model);
}

QString unavailable(const FigureInput& input)
{
    const FactoredHeadModel model = FactoredHeadModel::build(input.result, input.options.head, false);
    return model.valid() ? QString() : Text::tr("the weights of this head cannot be factored");
}

template <void (*Paint)(QPainter&, const QRectF&, const FactoredHeadModel&, const FigurePalette&), bool WithScores>
void paintWith(QPainter& painter, const QRectF& rect, const FigureInput& input)
{
    Paint(painter, rect.adjusted(12, 12, -12, -12), modelFor(input, WithScores), figurePalette(input.options));
}

void paintProduct(QPainter& painter, const QRectF& rect, const FigureInput& input)
{
    const FactoredHeadModel model = modelFor(input, false);
    paintFactorProduct(painter, rect.adjusted(12, 12, -12, -12), model, windowFor(input, model.d_model),
                       figurePalette(input.options));
}

void paintOverview(QPainter& painter, const QRectF& rect, const FigureInput& input)
{
    const FactoredHeadModel model = modelFor(input, true);
    paintFactoredOverview(painter, rect.adjusted(4, 4, -4, -4), model, windowFor(input, model.d_model),
                          figurePalette(input.options));
}

}  // namespace

std::vector<Figure> factoredFigures()
{
    const QString view = kFactoredViewId;
    return {
        Figure{QStringLiteral("factored"), Text::tr("Factored W_i: all four panels"), view, QSizeF(1600, 1000),
               QSizeF(1300, 860), &unavailable, &paintOverview},
        Figure{QStringLiteral("factor-product"), Text::tr("W_i = W_i^Q (W_i^K)ᵀ"), view, QSizeF(900, 900),
               QSizeF(440, 440), &unavailable, &paintProduct},
        Figure{QStringLiteral("spectrum"), Text::tr("Spectrum of W_i"), view, QSizeF(900, 600), QSizeF(520, 380),
               &unavailable, &paintWith<&paintSpectrum, false>},
        Figure{QStringLiteral("fused-layout"), Text::tr("Fused layout of W^Q"), view, QSizeF(800, 800),
               QSizeF(400, 400), &unavailable, &paintWith<&paintFusedLayout, false>},
        Figure{QStringLiteral("equivalence"), Text::tr("Scores both ways"), view, QSizeF(1100, 650), QSizeF(760, 460),
               &unavailable, &paintWith<&paintScoreEquivalence, true>},
    };
}

}  // namespace qkv::ui
