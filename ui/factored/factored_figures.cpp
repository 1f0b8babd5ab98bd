#include "ui/factored/factored_figures.hpp"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QStringList>

#include <algorithm>
#include <cmath>

#include "ui/factored/factored_view.hpp"
#include "ui/figures/figure_text.hpp"
#include "ui/render/chart_painter.hpp"
#include "ui/render/heatmap_layout.hpp"
#include "ui/render/heatmap_painter.hpp"
#include "ui/render/number_format.hpp"
#include "ui/render/text_style.hpp"

namespace qkv::ui {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("qkv::ui::FactoredFigures", text); }

constexpr double kGap = 6.0;
constexpr double kHeatmapMargin = 2.0;  // paintHeatmap keeps 2 px right and below the cells

MatrixF toFloat(const MatrixD& m) { return m.cast<float>(); }

double symmetricRange(double maxAbsValue) { return maxAbsValue > 0.0 ? maxAbsValue : 1.0; }

QStringList toQStrings(const std::vector<std::string>& labels)
{
    QStringList out;
    out.reserve(static_cast<qsizetype>(labels.size()));
    for (const std::string& label : labels) out.push_back(QString::fromStdString(label));
    return out;
}

QRectF wrapped(const QFontMetricsF& metrics, double width, const QString& text)
{
    return metrics.boundingRect(QRectF(0, 0, std::max(width, 1.0), 1e6), Qt::TextWordWrap | Qt::AlignLeft, text);
}

// A bold title, word-wrapped into `width`; returns its height.
double paintTitle(QPainter& painter, const QRectF& box, const QString& text)
{
    const QFont base = painter.font();
    const QFont bold = figureTitleFont(base);
    const QFontMetricsF metrics(bold, painter.device());
    const double height = wrapped(metrics, box.width(), text).height();
    painter.setFont(bold);
    painter.drawText(QRectF(box.left(), box.top(), box.width(), height), Qt::TextWordWrap | Qt::AlignLeft, text);
    painter.setFont(base);
    return height;
}


QString fusedTitle(const FactoredHeadModel& model)
{
    return tr("Fused layout: one W^Q (%1 × %1) split into h = %2 heads of d_k = %3 columns")
        .arg(model.d_model)
        .arg(model.headCount)
        .arg(model.d_k);
}

QString fusedCaption(const FactoredHeadModel& model)
{
    return tr("Rows: the d_model = %1 input features. Columns: head i owns [(i−1)·d_k, i·d_k); head %2 (outlined) is "
              "columns %3–%4 (from 0). Changing h re-partitions the same matrix.")
        .arg(model.d_model)
        .arg(model.head + 1)
        .arg(model.head * model.d_k)
        .arg((model.head + 1) * model.d_k - 1);
}

}  // namespace

FigurePalette figurePalette(const FigureOptions& options)
{
    FigurePalette palette;
    palette.text = options.text;
    palette.background = options.background;
    const bool dark = options.background.lightness() < 128;
    palette.mutedText = dark ? options.text.darker(130) : QColor(90, 90, 90);
    palette.outline = options.text;
    palette.outline.setAlpha(160);
    return palette;
}

void paintMatrixCells(QPainter& painter, const QRectF& cells, const MatrixD& values, double range)
{
    if (values.size() == 0) return;
    HeatmapStyle style;
    style.colormap = ColormapName::RedBlue;
    style.minValue = -range;
    style.maxValue = range;
    style.drawLabels = false;
    paintHeatmap(painter, cells.adjusted(0, 0, kHeatmapMargin, kHeatmapMargin), toFloat(values), style);
}

QString formatNumber(double value)
{
    if (!std::isfinite(value)) return readableNumber(value);
    if (value == 0.0) return QStringLiteral("0");
    const double magnitude = std::abs(value);
    if (magnitude >= 1e-3 && magnitude < 1e5) return QString::number(value, 'g', 4);
    const int exponent = static_cast<int>(std::floor(std::log10(magnitude)));
    const QString mantissa = QString::number(value / std::pow(10.0, exponent), 'f', 2);
    return mantissa + QStringLiteral("×") + powerOfTen(exponent);
}

// ---- the spectrum -------------------------------------------------------------------------

SpectrumPicture spectrumPicture(const FactoredHeadModel& model)
{
    SpectrumPicture p;
    ChartModel& c = p.chart;
    c.title = tr("Singular values of W_i (head %1, from the factors)").arg(model.head + 1);
    c.x.title = tr("index k of σ_k");
    c.y.title = tr("σ_k (log scale)");
    c.y.logarithmic = true;
    if (!model.valid()) return p;
    const VectorD& sigma = model.factored->singularValues();
    p.tolerance = model.factored->rankTolerance();
    // The floor: a decade below the smallest positive value drawn (value or tolerance), never
    // below 1e-30 so that an exact-zero middle value does not stretch the axis.
    double smallest = p.tolerance > 0.0 ? p.tolerance : 1.0;
    for (Index k = 0; k < sigma.size(); ++k)
        if (sigma(k) > 0.0 && std::isfinite(sigma(k))) smallest = std::min(smallest, sigma(k));
    p.floor = std::max(1e-30, std::pow(10.0, std::floor(std::log10(smallest))) / 10.0);
    for (Index k = 0; k < sigma.size(); ++k) {
        const double v = std::isfinite(sigma(k)) ? std::max(sigma(k), p.floor) : p.floor;
        p.values.emplace_back(static_cast<double>(k + 1), v);
    }
    for (Index k = sigma.size(); k < model.d_model; ++k) p.zeros.emplace_back(static_cast<double>(k + 1), p.floor);
    const double largest = sigma.size() > 0 && std::isfinite(sigma(0)) && sigma(0) > 0 ? sigma(0) : 1.0;
    c.y.minimum = p.floor * 0.5;
    c.y.maximum = std::pow(10.0, std::ceil(std::log10(largest) + 0.3));
    c.x.minimum = 0.0;
    c.x.maximum = static_cast<double>(model.d_model) + 1.0;

    ChartSeries zeros = ChartSeries::of(tr("the other %1 singular values: exactly 0 (drawn at the floor)").arg(model.d_model - model.d_k),
                      QColor(150, 150, 150), ChartSeries::Kind::Points);
    zeros.points = p.zeros;
    zeros.marker = ChartSeries::Marker::Square;
    zeros.markerSize = 5.0;
    zeros.inLegend = !p.zeros.empty();
    ChartSeries tolerance = ChartSeries::of(tr("rank tolerance σ_max · d_model · ε = %1").arg(formatNumber(p.tolerance)),
                          QColor(0xb2, 0x18, 0x2b), ChartSeries::Kind::Line);
    tolerance.lineStyle = Qt::DashLine;
    tolerance.lineMarkers = false;
    if (p.tolerance > 0.0) tolerance.points = {QPointF(c.x.minimum, p.tolerance), QPointF(c.x.maximum, p.tolerance)};
    ChartSeries values = ChartSeries::of(tr("σ_1 … σ_%1 (d_k = %1 values of the middle)").arg(model.d_k), QColor(0x21, 0x66, 0xac),
                       ChartSeries::Kind::Points);
    values.points = p.values;
    c.series = {zeros, tolerance, values};
    return p;
}

QString spectrumStatistics(const FactoredHeadModel& model, bool rich)
{
    if (!model.valid()) return {};
    const auto b = [rich](const QString& s) { return rich ? QStringLiteral("<b>%1</b>").arg(s) : s; };
    const QString sep = rich ? QStringLiteral(" &nbsp;·&nbsp; ") : QStringLiteral(" · ");
    const VectorD& sigma = model.factored->singularValues();
    const Index rank = model.numericalRank();
    const QString rankText = rank == model.d_k
                                 ? tr("numerical rank %1 = d_k").arg(b(QString::number(rank)))
                                 : tr("numerical rank %1 < d_k = %2: this head is rank-deficient")
                                       .arg(b(QString::number(rank)))
                                       .arg(model.d_k);
    const QString norm = rich ? tr("‖W_i‖<sub>F</sub>") : tr("‖W_i‖_F");
    const QString first = rankText + sep + tr("d_model = %1").arg(model.d_model) + sep +
                          tr("%1 = %2").arg(norm, b(formatNumber(model.factored->frobeniusNorm())));
    const QString second =
        tr("σ_max = %1").arg(formatNumber(sigma.size() > 0 ? sigma(0) : 0.0)) + sep +
        tr("σ_%1 = %2 (the smallest of the d_k)").arg(sigma.size()).arg(formatNumber(sigma.size() > 0 ? sigma(sigma.size() - 1) : 0.0)) +
        sep + tr("tolerance σ_max · d_model · ε = %1").arg(formatNumber(model.factored->rankTolerance()));
    return first + (rich ? QStringLiteral("<br>") : QStringLiteral("\n")) + second;
}

void paintSpectrum(QPainter& painter, const QRectF& target, const FactoredHeadModel& model, const FigurePalette& palette)
{
    const QFontMetricsF metrics(painter.font(), painter.device());
    const QString statistics = spectrumStatistics(model, false);
    const double textHeight = statistics.isEmpty() ? 0 : wrapped(metrics, target.width(), statistics).height() + kGap;
    paintChart(painter, target.adjusted(0, 0, 0, -textHeight), spectrumPicture(model).chart,
               ChartColors{palette.text, palette.background});
    painter.setPen(palette.text);
    painter.drawText(QRectF(target.left(), target.bottom() - textHeight + kGap, target.width(), textHeight - kGap),
                     Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignTop, statistics);
}

// ---- the fused layout -----------------------------------------------------------------

std::vector<std::pair<Index, Index>> headColumnPartition(Index d_model, Index headCount)
{
    std::vector<std::pair<Index, Index>> blocks;
    if (headCount < 1 || d_model < 1 || d_model % headCount != 0) return blocks;
    const Index d_k = d_model / headCount;
    for (Index i = 0; i < headCount; ++i) blocks.emplace_back(i * d_k, d_k);  // W_i^Q = W^Q[:, i*d_k : (i+1)*d_k]
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

FusedLayoutGeometry fusedLayoutGeometry(const QRectF& target, const QFontMetricsF& metrics, const FactoredHeadModel& model)
{
    FusedLayoutGeometry g;
    const double line = metrics.height();
    // Bold titles are ~10 % wider: measured with room to spare.
    const double titleBand = wrapped(metrics, target.width() / 1.2, fusedTitle(model)).height() * 1.1 + kGap;
    const double headLabels = line + 4;
    const double caption = wrapped(metrics, target.width(), fusedCaption(model)).height() + kGap;
    const double legendWidth = verticalLegendWidth(metrics, QStringLiteral("−0.125"));
    const double availableWidth = target.width() - legendWidth - 3 * kGap;
    const double availableHeight = target.height() - titleBand - headLabels - caption;
    double side = std::max(8.0, std::min(availableWidth, availableHeight));
    g.bins = std::clamp<Index>(static_cast<Index>(std::floor(side)), 1, std::max<Index>(1, model.d_model));
    const double cell = side / static_cast<double>(g.bins);
    side = cell * static_cast<double>(g.bins);
    const double blockWidth = side + 3 * kGap + legendWidth;
    const double x0 = target.left() + std::max(0.0, (target.width() - blockWidth) / 2.0);
    const double free = availableHeight - side;
    g.title = QRectF(target.left(), target.top(), target.width(), titleBand - kGap);
    g.cells = QRectF(x0, target.top() + titleBand + std::max(0.0, free / 2) + headLabels, side, side);
    g.legend = QRectF(g.cells.right() + 3 * kGap, g.cells.top() + side * 0.1, legendWidth, side * 0.8);
    g.caption = QRectF(target.left(), g.cells.bottom() + kGap, target.width(), caption - kGap);
    g.outlines = headBlockOutlines(g.cells, model.d_model, model.headCount);
    return g;
}

void paintFusedLayout(QPainter& painter, const QRectF& target, const FactoredHeadModel& model, const FigurePalette& palette)
{
    if (!model.valid()) return;
    const Result& r = *model.result;
    const QFontMetricsF metrics(painter.font(), painter.device());
    const double line = metrics.height();
    const FusedLayoutGeometry g = fusedLayoutGeometry(target, metrics, model);

    // The whole W^Q, drawn at the resolution of the cells.
    const MatrixF& wq = r.weights->queryProjection;  // d_model x d_model
    const MatrixF drawn = poolMatrix(wq, MatrixWindow::whole(wq.rows(), wq.cols()), g.bins, g.bins);
    const double range = symmetricRange(maxAbs(drawn));
    paintMatrixCells(painter, g.cells, drawn.cast<double>(), range);

    // Dim the other heads a little, then outline every block; the selected one stands out.
    for (std::size_t i = 0; i < g.outlines.size(); ++i)
        if (static_cast<Index>(i) != model.head) painter.fillRect(g.outlines[i], QColor(255, 255, 255, 70));
    painter.setBrush(Qt::NoBrush);
    painter.setPen(QPen(palette.outline, 1.0));
    for (const QRectF& block : g.outlines) painter.drawRect(block);

    // Head numbers above the blocks, thinned so they never overlap.
    const double blockWidth = g.outlines.empty() ? 0.0 : g.outlines.front().width();
    const double labelWidth = metrics.horizontalAdvance(QString::number(model.headCount)) + 4.0;
    const Index step = blockWidth > 0 ? std::max<Index>(1, static_cast<Index>(std::ceil(labelWidth / blockWidth))) : 1;
    for (std::size_t i = 0; i < g.outlines.size(); ++i) {
        const bool selected = static_cast<Index>(i) == model.head;
        if (!selected && static_cast<Index>(i) % step != 0) continue;
        const QRectF label(g.outlines[i].center().x() - labelWidth, g.cells.top() - line - 2, 2 * labelWidth, line);
        QFont font = painter.font();
        font.setBold(selected);
        painter.save();
        painter.setFont(font);
        painter.setPen(selected ? palette.emphasis : palette.mutedText);
        painter.drawText(label, Qt::AlignCenter, QString::number(i + 1));
        painter.restore();
    }
    if (model.head >= 0 && model.head < static_cast<Index>(g.outlines.size())) {
        const QRectF block = g.outlines[static_cast<std::size_t>(model.head)];
        painter.setPen(QPen(Qt::white, 4.0));
        painter.drawRect(block);
        painter.setPen(QPen(palette.emphasis, 2.5));
        painter.drawRect(block);
    }
    painter.setPen(palette.text);
    paintTitle(painter, g.title, fusedTitle(model));
    painter.setPen(palette.mutedText);
    painter.drawText(g.caption, Qt::TextWordWrap | Qt::AlignHCenter | Qt::AlignTop, fusedCaption(model));
    painter.setPen(palette.text);
    paintColorLegend(painter, g.legend, ColormapName::RedBlue, -range, range, tr("W^Q"));
}

// ---- the equivalence --------------------------------------------------------------------

QString equivalenceSentence(const FactoredHeadModel& model)
{
    if (!model.valid() || !model.scoresReady) return {};
    const EquivalenceReport& report = model.scores.report;
    return tr("max |difference| = %1 (relative to the largest score %2: %3). The same scores: "
              "Q_i K_iᵀ = (X_q W_i^Q)(X_kv W_i^K)ᵀ = X_q W_i X_kvᵀ (raw scores q·k, before the 1/√d_k scale).")
        .arg(formatNumber(report.maxAbsDifference), formatNumber(report.maxAbsScore), formatNumber(report.relativeError));
}

QString biasSentence(const FactoredHeadModel& model)
{
    if (!model.hasBias()) return {};
    return tr("With biases, (X_q W_i^Q + b_i^Q)(X_kv W_i^K + b_i^K)ᵀ = X_q W_i X_kvᵀ "
              "+ X_q W_i^Q b_i^Kᵀ + b_i^Q (X_kv W_i^K)ᵀ + b_i^Q b_i^Kᵀ: a per-query term, a per-key "
              "term and a constant are added (the constant and the per-query term cancel in the "
              "softmax over each row). The maps above are the bias-free part.");
}

QString rotarySentence(const FactoredHeadModel& model)
{
    if (!model.result || !isRotary(model.result->config.positional)) return {};
    // RoFormer (Su et al. 2021), section 3.4: rotating q by its position t and k by s leaves
    // R_tᵀ R_s = R(s − t) between them.
    return tr("Rotary positions: the head's score is q_tᵀ R(s − t) k_s, q turned by its position t and k by s. "
              "So x_tᵀ W_i^Q R(s − t) (W_i^K)ᵀ x_s: every distance s − t has its own form, and W_i alone "
              "no longer fixes the score; W_i is the form at distance 0 (rank ≤ d_k at every distance). "
              "The maps and the spectrum here are W_i's, before rotation; the heads grid and the step "
              "view show the rotated scores.");
}

QString equivalenceExplanation(const FactoredHeadModel& model)
{
    QStringList lines;
    for (const QString& line : {equivalenceSentence(model), biasSentence(model), rotarySentence(model)})
        if (!line.isEmpty()) lines << line;
    return lines.join(QLatin1Char('\n'));
}

void paintScoreEquivalence(QPainter& painter, const QRectF& target, const FactoredHeadModel& model,
                           const FigurePalette& palette)
{
    if (model.valid() && !model.scoresReady) {
        painter.setPen(palette.mutedText);
        painter.drawText(target, Qt::AlignCenter | Qt::TextWordWrap,
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

    const QString text = equivalenceExplanation(model);
    const double textHeight = std::min(wrapped(metrics, target.width(), text).height() + 2, target.height() * 0.45);
    const bool rotary = isRotary(r.config.positional);
    const QString title = (rotary ? tr("The same raw scores q·k two ways, before rotation: head %1, %2 queries × %3 keys, no biases")
                                  : tr("The same raw scores q·k two ways: head %1, %2 queries × %3 keys, no biases"))
                              .arg(model.head + 1)
                              .arg(model.scores.factored.rows())
                              .arg(model.scores.factored.cols());
    painter.setPen(palette.text);
    const double titleBand = paintTitle(painter, target, title) + kGap;
    const double range = symmetricRange(std::max(maxAbs(model.scores.factored), maxAbs(model.scores.full)));
    const double legendWidth = verticalLegendWidth(metrics, -range, range);
    const QRectF maps(target.left(), target.top() + titleBand, target.width() - legendWidth - kGap,
                      target.height() - titleBand - textHeight - kGap);

    HeatmapStyle style;
    style.colormap = ColormapName::RedBlue;
    style.minValue = -range;
    style.maxValue = range;
    style.rowLabels = toQStrings(r.queryLabels);
    style.columnLabels = toQStrings(r.keyLabels);
    style.rowAxisTitle = queryAxisTitle(r.config.mode);
    style.columnAxisTitle = keyAxisTitle(r.config.mode);
    style.textColor = palette.text;
    // The two maps share their rows: the labels and the axis title once, on the left, so the
    // cells get the room (and the two maps the same cell size).
    // The columns' axis title once too, under both maps.
    const QString columnsTitle = style.columnAxisTitle;
    style.columnAxisTitle.clear();
    HeatmapStyle right = style;
    right.rowLabels.clear();
    right.rowAxisTitle.clear();
    const QMarginsF leftGutter = HeatmapLayout::gutters(style, metrics);
    const QMarginsF rightGutter = HeatmapLayout::gutters(right, metrics);
    const double n_q = static_cast<double>(model.scores.factored.rows()), n_k = static_cast<double>(model.scores.factored.cols());
    const double titleRow = metrics.height() + 4;
    const double cell = std::max(1.0, std::min((maps.width() - 3 * kGap - leftGutter.left() - leftGutter.right() -
                                                rightGutter.left() - rightGutter.right()) / (2 * n_k),
                                               (maps.height() - titleRow - leftGutter.top() - leftGutter.bottom()) / n_q));
    const double leftWidth = leftGutter.left() + leftGutter.right() + n_k * cell;
    const double rightWidth = rightGutter.left() + rightGutter.right() + n_k * cell;
    const double x0 = maps.left() + std::max(0.0, (maps.width() - leftWidth - rightWidth - 3 * kGap) / 2);
    style.title = tr("factored: (X_q W_i^Q)(X_kv W_i^K)ᵀ");
    const QRectF leftRect(x0, maps.top(), leftWidth, maps.height() - titleRow);
    paintHeatmap(painter, leftRect, toFloat(model.scores.factored), style);
    right.title = tr("full: X_q W_i X_kvᵀ");
    const QRectF rightRect(x0 + leftWidth + 3 * kGap, maps.top(), rightWidth, maps.height() - titleRow);
    paintHeatmap(painter, rightRect, toFloat(model.scores.full), right);
    const HeatmapLayout leftLayout(leftRect, static_cast<int>(n_q), static_cast<int>(n_k), style, metrics);
    const HeatmapLayout rightLayout(rightRect, static_cast<int>(n_q), static_cast<int>(n_k), right, metrics);
    painter.setPen(palette.text);
    painter.drawText(QRectF(leftLayout.cellsRect().left(), leftLayout.columnLabelsRect().bottom() + 2,
                            rightLayout.cellsRect().right() - leftLayout.cellsRect().left(), titleRow),
                     Qt::AlignCenter, columnsTitle);
    painter.setPen(palette.text);
    paintColorLegend(painter, QRectF(maps.right() + kGap, maps.top() + maps.height() * 0.1, legendWidth, maps.height() * 0.7),
                     ColormapName::RedBlue, -range, range, rawScoreName());
    painter.drawText(QRectF(target.left(), target.bottom() - textHeight, target.width(), textHeight),
                     Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignTop, text);
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
    paintFactorProduct(painter, inset(QRectF(target.left(), target.top(), leftWidth, topHeight)), model, window, palette);
    paintFusedLayout(painter, inset(QRectF(target.left() + leftWidth, target.top(), target.width() - leftWidth, topHeight)),
                     model, palette);
    paintSpectrum(painter, inset(QRectF(target.left(), target.top() + topHeight, leftWidth, target.height() - topHeight)),
                  model, palette);
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
    return model.valid() ? QString() : tr("the weights of this head cannot be factored");
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
    const QString view = FactoredView::kId;
    return {
        Figure{QStringLiteral("factored"), tr("Factored W_i: all four panels"), view, QSizeF(1600, 1000), QSizeF(1300, 860), &unavailable,
               &paintOverview},
        Figure{QStringLiteral("factor-product"), tr("W_i = W_i^Q (W_i^K)ᵀ"), view, QSizeF(900, 900), QSizeF(440, 440), &unavailable,
               &paintProduct},
        Figure{QStringLiteral("spectrum"), tr("Spectrum of W_i"), view, QSizeF(900, 600), QSizeF(520, 380), &unavailable,
               &paintWith<&paintSpectrum, false>},
        Figure{QStringLiteral("fused-layout"), tr("Fused layout of W^Q"), view, QSizeF(800, 800), QSizeF(400, 400), &unavailable,
               &paintWith<&paintFusedLayout, false>},
        Figure{QStringLiteral("equivalence"), tr("Scores both ways"), view, QSizeF(1100, 650), QSizeF(760, 460), &unavailable,
               &paintWith<&paintScoreEquivalence, true>},
    };
}

}  // namespace qkv::ui
