#include "ui/matrices/matrices_figures.hpp"

#include <QCoreApplication>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

#include "ui/figures/figure_text.hpp"
#include "ui/figures/number_format.hpp"
#include "ui/figures/text_layout.hpp"
#include "ui/render/heatmap_painter.hpp"

namespace qkv::ui {
namespace {

// The translation context of this file's visible text (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::MatricesFigure)
};

constexpr double kMargin = 8.0;
constexpr double kGap = 16.0;

std::size_t at(LayerMatrix m) { return static_cast<std::size_t>(m); }

// The eight stages, left to right, and which matrices each lane holds at each stage.
constexpr int kStages = 8;
constexpr std::array<double, kStages> kStageWeight = {1.0, 1.0, 0.62, 0.85, 0.85, 0.62, 1.0, 1.0};
constexpr std::array<LayerMatrix, kStages> kQueryLane = {
    LayerMatrix::QueryInput, LayerMatrix::Query,      LayerMatrix::QueryHead, LayerMatrix::Scores,
    LayerMatrix::Attention,  LayerMatrix::HeadOutput, LayerMatrix::Concat,    LayerMatrix::Output};
// -1: nothing at this stage of the keys lane (W^O spans stages 6 and 7).
constexpr std::array<int, kStages> kKeyLane = {static_cast<int>(LayerMatrix::KeyValueInput),
                                               static_cast<int>(LayerMatrix::Key),
                                               static_cast<int>(LayerMatrix::KeyHead),
                                               static_cast<int>(LayerMatrix::Value),
                                               static_cast<int>(LayerMatrix::ValueHead),
                                               -1,
                                               -1,
                                               -1};

double tokenGutter(const std::vector<std::string>& labels, const QFontMetricsF& metrics)
{
    double widest = 0;
    for (const std::string& label : labels)
        widest = std::max(widest, metrics.horizontalAdvance(QString::fromStdString(label)));
    return std::min(widest, metrics.averageCharWidth() * 9) + 8;
}

QString rangeText(const MatrixPicture& p)
{
    if (Colormap::get(p.colormap).isDiverging()) return QStringLiteral("±%1").arg(preciseNumber(p.maxValue));
    return QStringLiteral("%1–%2").arg(preciseNumber(p.minValue), preciseNumber(p.maxValue));
}

void drawTokens(QPainter& painter, const QRectF& gutter, const QRectF& cells, const std::vector<std::string>& labels,
                qkv::Index selected, bool showSelection, const QColor& text)
{
    const QFontMetricsF metrics(painter.font(), painter.device());
    const auto rows = static_cast<qkv::Index>(labels.size());
    if (rows == 0 || cells.height() <= 0) return;
    const double pitch = cells.height() / static_cast<double>(rows);
    const double need = metrics.ascent() + 1;
    const qkv::Index step = pitch >= need ? 1 : static_cast<qkv::Index>(std::ceil(need / pitch));
    for (qkv::Index r = 0; r < rows; ++r) {
        const bool chosen = showSelection && r == selected;
        if (r % step != 0 && !chosen) continue;
        const double centre = cells.top() + (static_cast<double>(r) + 0.5) * pitch;
        const QRectF rect(gutter.left(), centre - metrics.height() / 2, gutter.width() - 4, metrics.height());
        if (chosen && step > 1) painter.fillRect(rect, kSelectionColor);
        painter.setPen(chosen ? (step > 1 ? QColor(Qt::black) : kSelectionColor) : text);
        painter.drawText(rect, Qt::AlignRight | Qt::AlignVCenter,
                         metrics.elidedText(QString::fromStdString(labels[static_cast<std::size_t>(r)]), Qt::ElideRight,
                                            rect.width()));
    }
}

void drawArrow(QPainter& painter, const QPointF& from, const QPointF& to, const QColor& color)
{
    if (to.x() - from.x() < 6) return;
    painter.setPen(QPen(color, 1.2));
    painter.drawLine(from, to - QPointF(4, 0));
    QPainterPath head;
    head.moveTo(to);
    head.lineTo(to + QPointF(-5, -3));
    head.lineTo(to + QPointF(-5, 3));
    head.closeSubpath();
    painter.fillPath(head, color);
}

}  // namespace

MatricesGeometry matricesGeometry(const QRectF& target, const MatricesModel& model, const QFontMetricsF& metrics)
{
    MatricesGeometry g;
    const qkv::Result& r = model.result();
    const double line = metrics.lineSpacing();
    const QRectF area = target.adjusted(kMargin, kMargin, -kMargin, -kMargin);
    g.title = QRectF(area.left(), area.top(), area.width(), line * 1.3);
    g.subtitle = QRectF(area.left(), g.title.bottom(), area.width(), line);
    // The colour bars' labels may wrap: their height comes from the legend painter itself (the
    // longest weight label: head numbers of two digits, saturating).
    const double legendHeight =
        std::max(horizontalLegendHeight(metrics, area.width() * 0.52, Text::tr("value ÷ its matrix's max |value|")),
                 horizontalLegendHeight(metrics, area.width() * 0.44,
                                        Text::tr("attention weight in A_%1%2").arg(88).arg(Text::tr(" (saturates)"))));
    const double top = g.subtitle.bottom() + 6;
    const double bottom = area.bottom() - legendHeight - 6;
    g.signedLegend = QRectF(area.left(), bottom + 6, area.width() * 0.52, legendHeight);
    g.weightLegend = QRectF(area.left() + area.width() * 0.56, bottom + 6, area.width() * 0.44, legendHeight);

    const double axis = line + 4;
    const double gutter = std::max(tokenGutter(r.queryLabels, metrics), tokenGutter(r.keyLabels, metrics));
    const double left = area.left() + axis + gutter;
    const double labelBlock = 4 * line + 2;
    const double lanesHeight = std::max(40.0, bottom - top - 2 * labelBlock - kGap);
    const double nq = static_cast<double>(model.rows(LayerMatrix::QueryInput));
    const double nk = static_cast<double>(model.rows(LayerMatrix::KeyValueInput));
    const double queryShare = std::clamp(nq / std::max(nq + nk, 1.0), 0.35, 0.65);
    const double queryTop = top + labelBlock;
    const double queryHeight = lanesHeight * queryShare;
    const double keyTop = queryTop + queryHeight + kGap + labelBlock;
    const double keyHeight = lanesHeight - queryHeight;

    // Stage widths.
    double weights = 0;
    for (double w : kStageWeight) weights += w;
    const double unit = std::max(4.0, (area.right() - left - (kStages - 1) * kGap) / weights);
    std::array<double, kStages> stageLeft{}, stageWidth{};
    double x = left;
    for (int s = 0; s < kStages; ++s) {
        stageLeft[static_cast<std::size_t>(s)] = x;
        stageWidth[static_cast<std::size_t>(s)] = kStageWeight[static_cast<std::size_t>(s)] * unit;
        x += stageWidth[static_cast<std::size_t>(s)] + kGap;
    }
    auto place = [&](LayerMatrix m, int stage, double laneTop, double laneHeight, qkv::Index widest) {
        const double full = stageWidth[static_cast<std::size_t>(stage)];
        const double f =
            std::clamp(std::sqrt(static_cast<double>(model.columns(m)) / std::max<double>(widest, 1)), 0.3, 1.0);
        const double w = full * f;
        const double l = stageLeft[static_cast<std::size_t>(stage)] + (full - w) / 2;
        g.cells[at(m)] = QRectF(l, laneTop, w, laneHeight);
        g.labels[at(m)] = QRectF(stageLeft[static_cast<std::size_t>(stage)] - kGap / 2 + 2, laneTop - labelBlock,
                                 full + kGap - 4, labelBlock - 2);
    };
    for (int s = 0; s < kStages; ++s) {
        const LayerMatrix q = kQueryLane[static_cast<std::size_t>(s)];
        qkv::Index widest = model.columns(q);
        const int k = kKeyLane[static_cast<std::size_t>(s)];
        if (k >= 0) widest = std::max(widest, model.columns(static_cast<LayerMatrix>(k)));
        place(q, s, queryTop, queryHeight, widest);
        if (k >= 0) place(static_cast<LayerMatrix>(k), s, keyTop, keyHeight, widest);
    }
    // W^O under Concat and Output, its rows the model's dimensions.
    const double woLeft = stageLeft[6], woWidth = stageLeft[7] + stageWidth[7] - stageLeft[6];
    const double woSide = std::min(woWidth, keyHeight);
    g.cells[at(LayerMatrix::OutputProjection)] = QRectF(woLeft + (woWidth - woSide) / 2, keyTop, woSide, keyHeight);
    g.labels[at(LayerMatrix::OutputProjection)] = QRectF(woLeft, keyTop - labelBlock, woWidth, labelBlock - 2);

    g.queryAxis = QRectF(area.left(), queryTop, axis, queryHeight);
    g.keyAxis = QRectF(area.left(), keyTop, axis, keyHeight);
    g.queryTokens = QRectF(area.left() + axis, queryTop, gutter, queryHeight);
    g.keyTokens = QRectF(area.left() + axis, keyTop, gutter, keyHeight);
    return g;
}

MatrixHit matricesHitAt(const MatricesGeometry& g, const MatricesModel& model, const QPointF& point)
{
    MatrixHit hit;
    for (int i = 0; i < kLayerMatrixCount; ++i) {
        const auto m = static_cast<LayerMatrix>(i);
        const QPoint cell = matrixCellAt(g.cells[at(m)], model.rows(m), model.columns(m), point);
        if (cell.x() < 0) continue;
        hit.matrix = i;
        hit.row = cell.y();
        hit.column = cell.x();
        return hit;
    }
    // A token label selects its row like the row itself.
    if (g.queryTokens.contains(point)) {
        const QPoint cell = matrixCellAt(g.cells[at(LayerMatrix::QueryInput)], model.rows(LayerMatrix::QueryInput), 1,
                                         QPointF(g.cells[at(LayerMatrix::QueryInput)].left(), point.y()));
        if (cell.y() >= 0) hit = {static_cast<int>(LayerMatrix::QueryInput), cell.y(), 0};
    } else if (g.keyTokens.contains(point)) {
        const QPoint cell =
            matrixCellAt(g.cells[at(LayerMatrix::KeyValueInput)], model.rows(LayerMatrix::KeyValueInput), 1,
                         QPointF(g.cells[at(LayerMatrix::KeyValueInput)].left(), point.y()));
        if (cell.y() >= 0) hit = {static_cast<int>(LayerMatrix::KeyValueInput), cell.y(), 0};
    }
    return hit;
}

void paintMatrices(QPainter& painter, const QRectF& target, const MatricesModel& model, const FigureOptions& options)
{
    painter.save();
    painter.setFont(options.font);
    painter.fillRect(target, options.background);
    const QColor text = options.text;
    QColor muted = text;
    muted.setAlpha(170);
    painter.setPen(text);
    if (!model.resultPointer()) {
        painter.drawText(target, Qt::AlignCenter, Text::tr("No result yet."));
        painter.restore();
        return;
    }
    const qkv::Result& r = model.result();
    const qkv::AttentionResult& a = r.attention;
    const QFontMetricsF metrics(painter.font(), painter.device());
    const MatricesGeometry g = matricesGeometry(target, model, metrics);

    QFont bold = painter.font();
    bold.setBold(true);
    QFont big = bold;
    big.setPointSizeF(big.pointSizeF() * 1.12);
    const QString title = Text::tr("The layer as the data flows (the paper's Figure 2) · %1 of %2 · %3")
                              .arg(headName(model.head()))
                              .arg(a.headCount())
                              .arg(modeTitle(r.config.mode));
    drawFittedText(painter, g.title, Qt::AlignLeft | Qt::AlignVCenter, big, title);
    painter.setPen(muted);
    QString subtitle = shapesLine(r);
    if (a.queryBeforeRotation.size() > 0) subtitle += Text::tr(" · Q and K after the rotary rotation");
    QStringList off;
    for (qkv::Index i = 0; i < a.headCount(); ++i)
        if (a.isAblated(i)) off << headName(i);
    if (!off.isEmpty())
        subtitle += Text::tr(" · switched off (zero in Concat): %1").arg(off.join(QStringLiteral(", ")));
    drawFittedText(painter, g.subtitle, Qt::AlignLeft | Qt::AlignVCenter, options.font, subtitle);

    // Lane titles and token labels.
    painter.setPen(text);
    for (const auto& [rect, words] :
         {std::pair{g.queryAxis, queryAxisTitle(r.config.mode)}, std::pair{g.keyAxis, keyAxisTitle(r.config.mode)}}) {
        painter.save();
        painter.translate(rect.center());
        painter.rotate(-90);
        drawFittedText(painter, QRectF(-rect.height() / 2, -rect.width() / 2, rect.height(), rect.width()),
                       Qt::AlignCenter, options.font, words);
        painter.restore();
    }
    drawTokens(painter, g.queryTokens, g.cells[at(LayerMatrix::QueryInput)], r.queryLabels, options.query,
               options.showSelection, text);
    drawTokens(painter, g.keyTokens, g.cells[at(LayerMatrix::KeyValueInput)], r.keyLabels, options.key,
               options.showSelection, text);

    // Arrows along the flow.
    const auto arrowBetween = [&](LayerMatrix from, LayerMatrix to) {
        const QRectF& a1 = g.cells[at(from)];
        const QRectF& b1 = g.cells[at(to)];
        const double y = std::max(a1.top(), b1.top()) + std::min(a1.height(), b1.height()) / 2;
        drawArrow(painter, QPointF(a1.right() + 2, y), QPointF(b1.left() - 2, y), muted);
    };
    painter.setRenderHint(QPainter::Antialiasing, true);
    for (int s = 0; s + 1 < kStages; ++s)
        arrowBetween(kQueryLane[static_cast<std::size_t>(s)], kQueryLane[static_cast<std::size_t>(s + 1)]);
    arrowBetween(LayerMatrix::KeyValueInput, LayerMatrix::Key);
    arrowBetween(LayerMatrix::Key, LayerMatrix::KeyHead);
    arrowBetween(LayerMatrix::Value, LayerMatrix::ValueHead);

    // The matrices, their labels and the head's blocks.
    QColor frame = text;
    frame.setAlpha(110);
    const qkv::Index d_k = a.d_k(), d_v = a.d_v(), head = model.head(), group = model.keyValueHead();
    for (int i = 0; i < kLayerMatrixCount; ++i) {
        const auto m = static_cast<LayerMatrix>(i);
        const QRectF& cells = g.cells[at(m)];
        const MatrixPicture& picture = model.picture(m);
        paintPicture(painter, cells, picture);
        painter.setRenderHint(QPainter::Antialiasing, false);
        painter.setPen(QPen(frame, 1));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(cells);
        const QRectF& labels = g.labels[at(m)];
        const double quarter = labels.height() / 4;  // name, formula, shape, range
        // Whole, made smaller where a narrow window leaves a column less room (never "row soft…").
        const auto line = [&](int index) {
            return QRectF(labels.left(), labels.top() + index * quarter, labels.width(), quarter);
        };
        painter.setPen(text);
        drawFittedText(painter, line(0), Qt::AlignCenter, bold, model.name(m));
        painter.setPen(muted);
        drawFittedText(painter, line(1), Qt::AlignCenter, options.font, model.formula(m));
        painter.setPen(text);
        drawFittedText(painter, line(2), Qt::AlignCenter, options.font, shapeText(picture.rows, picture.columns));
        painter.setPen(muted);
        drawFittedText(painter, line(3), Qt::AlignCenter, options.font, rangeText(picture));
    }
    const auto outline = [&](const QRectF& block) {
        painter.setPen(QPen(options.background, 3));
        painter.drawRect(block);
        painter.setPen(QPen(text, 1.5, Qt::DashLine));
        painter.drawRect(block);
    };
    outline(matrixColumnBlock(g.cells[at(LayerMatrix::Query)], model.columns(LayerMatrix::Query), head * d_k, d_k));
    outline(matrixColumnBlock(g.cells[at(LayerMatrix::Key)], model.columns(LayerMatrix::Key), group * d_k, d_k));
    outline(matrixColumnBlock(g.cells[at(LayerMatrix::Value)], model.columns(LayerMatrix::Value), group * d_v, d_v));
    outline(matrixColumnBlock(g.cells[at(LayerMatrix::Concat)], model.columns(LayerMatrix::Concat), head * d_v, d_v));
    outline(matrixRowBlock(g.cells[at(LayerMatrix::OutputProjection)], model.rows(LayerMatrix::OutputProjection),
                           head * d_v, d_v));
    // Switched-off heads' blocks of Concat: hatched over their zeros.
    for (qkv::Index i = 0; i < a.headCount(); ++i) {
        if (!a.isAblated(i)) continue;
        QColor hatch = text;
        hatch.setAlpha(110);
        painter.fillRect(
            matrixColumnBlock(g.cells[at(LayerMatrix::Concat)], model.columns(LayerMatrix::Concat), i * d_v, d_v),
            QBrush(hatch, Qt::BDiagPattern));
    }

    // The selected query's row through every matrix of the queries lane, the key's through the keys lane.
    if (options.showSelection) {
        painter.setPen(QPen(kSelectionColor, 2));
        for (LayerMatrix m : kQueryLane)
            if (options.query < model.rows(m))
                painter.drawRect(matrixRowBand(g.cells[at(m)], model.rows(m), options.query));
        for (int k : kKeyLane) {
            if (k < 0) continue;
            const auto m = static_cast<LayerMatrix>(k);
            if (options.key < model.rows(m))
                painter.drawRect(matrixRowBand(g.cells[at(m)], model.rows(m), options.key));
        }
        painter.setPen(QPen(kSelectionColor, 1, Qt::DotLine));
        for (LayerMatrix m : {LayerMatrix::Scores, LayerMatrix::Attention})
            if (options.key < model.columns(m))
                painter.drawRect(matrixColumnBand(g.cells[at(m)], model.columns(m), options.key));
    }

    // Colour bars.
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setPen(text);
    paintColorLegend(painter, g.signedLegend, kDivergingColormap, -1.0, 1.0,
                     Text::tr("value ÷ its matrix's max |value|"));
    paintColorLegend(painter, g.weightLegend, ColormapName::Viridis, 0.0, model.attentionRange(),
                     Text::tr("attention weight in A_%1%2")
                         .arg(head + 1)
                         .arg(model.picture(LayerMatrix::Attention).largestMagnitude > model.attentionRange() * (1 + 1e-6)
                                  ? Text::tr(" (saturates)")
                                  : QString()));
    painter.restore();
}

std::vector<Figure> matricesFigures()
{
    return {perHeadFigure(QStringLiteral("matrices"), Text::tr("Matrices of the layer (the paper's Figure 2)"),
                          kMatricesViewId, QSizeF(1600, 900),
                          [](QPainter& painter, const QRectF& rect, const FigureInput& input) {
                              const auto model = MatricesModel::build(input.result, input.options.head);
                              paintMatrices(painter, rect, *model, input.options);
                          })};
}

}  // namespace qkv::ui
