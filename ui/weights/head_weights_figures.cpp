#include "ui/weights/head_weights_figures.hpp"

#include <QCoreApplication>
#include <QPainter>

#include <algorithm>
#include <cmath>

#include "ui/figures/figure_text.hpp"
#include "ui/figures/number_format.hpp"
#include "ui/figures/text_layout.hpp"
#include "ui/render/color_legend.hpp"
#include "ui/weights/ablation_panel.hpp"

namespace qkv::ui {
namespace {

// The translation context of this file's visible text (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::HeadWeightsFigure)
};

constexpr double kMargin = 8.0;
constexpr double kGap = 18.0;

std::size_t at(qkv::HeadMatrix m) { return HeadWeightsModel::index(m); }

QString legendLabel() { return Text::tr("weight ÷ its block's max |weight| (0 in the middle)"); }

}  // namespace

HeadWeightsGeometry headWeightsGeometry(const QRectF& target, const QFontMetricsF& metrics, bool sharedLine)
{
    HeadWeightsGeometry g;
    const double line = metrics.lineSpacing();
    const QRectF area = target.adjusted(kMargin, kMargin, -kMargin, -kMargin);
    g.title = QRectF(area.left(), area.top(), area.width(), line * 1.3);
    g.subtitle = QRectF(area.left(), g.title.bottom(), area.width(), line);
    g.note = QRectF(area.left(), g.subtitle.bottom(), area.width(), line);
    const double legendWidth = std::min(area.width() * 0.5, 520.0);
    const double legendHeight = horizontalLegendHeight(metrics, legendWidth, legendLabel());
    g.legend = QRectF(area.left(), area.bottom() - legendHeight, legendWidth, legendHeight);
    const double top = g.note.bottom() + 8;
    const double bottom = g.legend.top() - 8;

    const double matricesWidth = area.width() * 0.58;
    g.ablation = QRectF(area.left() + matricesWidth + kGap, top, area.width() - matricesWidth - kGap, bottom - top);

    const double labelBlock = (sharedLine ? 4 : 3) * line + 2;
    const double axis = line + 4;
    const double stripHeight = std::clamp((bottom - top) * 0.16, 30.0, 110.0);
    const double stripTop = bottom - line - 2 - stripHeight;
    const double tallTop = top + labelBlock;
    const double tallBottom = stripTop - labelBlock - line - 10;
    const double left = area.left() + axis;
    const double width = matricesWidth - axis;
    const double column = (width - 2 * kGap) / 3;
    for (int i = 0; i < 3; ++i) {
        const double x = left + i * (column + kGap);
        g.cells[static_cast<std::size_t>(i)] = QRectF(x, tallTop, column, std::max(20.0, tallBottom - tallTop));
        g.labels[static_cast<std::size_t>(i)] = QRectF(x, top, column, labelBlock - 2);
    }
    g.rowAxis = QRectF(area.left(), tallTop, axis, std::max(20.0, tallBottom - tallTop));
    g.columnAxis = QRectF(left, tallBottom + 2, width, line);
    g.cells[at(qkv::HeadMatrix::Output)] = QRectF(left, stripTop, width, stripHeight);
    g.labels[at(qkv::HeadMatrix::Output)] = QRectF(left, stripTop - labelBlock, width, labelBlock - 2);
    g.outputAxis = QRectF(left, stripTop + stripHeight + 2, width, line);
    return g;
}

HeadWeightsHit headWeightsHitAt(const HeadWeightsGeometry& g, const HeadWeightsModel& model, const QPointF& point)
{
    HeadWeightsHit hit;
    for (const qkv::HeadMatrix m : kHeadMatrices) {
        const QPoint cell = matrixCellAt(g.cells[at(m)], model.rows(m), model.columns(m), point);
        if (cell.x() < 0) continue;
        hit.matrix = static_cast<int>(m);
        hit.row = cell.y();
        hit.column = cell.x();
        return hit;
    }
    return hit;
}

QString percentText(double relativeChange)
{
    if (!std::isfinite(relativeChange)) return Text::tr("n/a");
    return QStringLiteral("%1%").arg(relativeChange * 100.0, 0, 'f', relativeChange * 100.0 < 10 ? 2 : 1);
}

QString ablationSentence(const HeadWeightsModel& model, qkv::Index head, qkv::Index query)
{
    const qkv::AblationEffects* e = model.effects();
    if (!e || query >= e->changeNorm.rows() || head >= e->headCount()) return {};
    const QString token = tokenName(model.result().queryLabels, query);
    if (e->zeroOutput(query)) return Text::tr("Token %1's output is 0: a relative change has no meaning").arg(token);
    return Text::tr("Ablating head %1 changes token %2's output by %3")
        .arg(head + 1)
        .arg(token, percentText(e->relativeChange(query, head)));
}

void paintHeadWeights(QPainter& painter, const QRectF& target, const HeadWeightsModel& model,
                      const FigureOptions& options, const HeadWeightsMark& mark)
{
    painter.save();
    painter.setFont(options.font);
    painter.fillRect(target, options.background);
    const QColor text = options.text;
    QColor muted = text;
    muted.setAlpha(170);
    painter.setPen(text);
    if (!model.resultPointer() || model.block(qkv::HeadMatrix::Query).size() == 0) {
        painter.drawText(target, Qt::AlignCenter, Text::tr("No result yet."));
        painter.restore();
        return;
    }
    const qkv::Result& r = model.result();
    const QFontMetricsF metrics(painter.font(), painter.device());
    const HeadWeightsGeometry g = headWeightsGeometry(target, metrics, model.grouped());
    QFont bold = painter.font();
    bold.setBold(true);
    QFont big = bold;
    big.setPointSizeF(big.pointSizeF() * 1.12);

    const qkv::Index head = model.head();
    const QString i = QString::number(head + 1);
    const bool off = r.config.isAblated(head);
    drawFittedText(painter, g.title, Qt::AlignLeft | Qt::AlignVCenter, big,
                   Text::tr("%1's weights%2 · W_%3 = W_%3^Q (W_%3^K)^T, what the head looks for")
                       .arg(headName(head), off ? Text::tr(" (switched off)") : QString(), i));
    painter.setPen(muted);
    drawFittedText(painter, g.subtitle, Qt::AlignLeft | Qt::AlignVCenter, options.font,
                   modeTitle(r.config.mode) + QStringLiteral(" · ") + shapesLine(r) +
                       Text::tr(" · weights before the scale sliders"));
    QString note = head < options.headTitles.size() ? options.headTitles[static_cast<int>(head)] : QString();
    if (model.grouped())
        note +=
            (note.isEmpty() ? QString() : QStringLiteral(" · ")) +
            Text::tr("grouped-query attention: W_%1^K and W_%1^V are key/value head %2's, shared by its %3 query heads")
                .arg(i)
                .arg(model.keyValueHead() + 1)
                .arg(r.config.grouping().queryHeadsPerKeyValueHead());
    if (!note.isEmpty()) drawFittedText(painter, g.note, Qt::AlignLeft | Qt::AlignVCenter, options.font, note);

    // The blocks.
    QColor frame = text;
    frame.setAlpha(110);
    const QFontMetricsF boldMetrics(bold, painter.device());
    for (const qkv::HeadMatrix m : kHeadMatrices) {
        const QRectF& cells = g.cells[at(m)];
        const MatrixPicture& picture = model.picture(m);
        paintPicture(painter, cells, picture);
        painter.setPen(QPen(frame, 1));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(cells);
        const QRectF& labels = g.labels[at(m)];
        const int lines = model.grouped() ? 4 : 3;
        const double pitch = labels.height() / lines;
        const auto lineRect = [&](int i) { return QRectF(labels.left(), labels.top() + i * pitch, labels.width(), pitch); };
        int next = 0;
        painter.setPen(text);
        drawFittedText(painter, lineRect(next++), Qt::AlignCenter, bold, model.symbol(m));
        // Under grouping each block has a line for what it is shared as (empty for W_i^Q, W_i^O).
        if (model.grouped()) drawFittedText(painter, lineRect(next++), Qt::AlignCenter, options.font, model.sharedAs(m));
        // "d_model × d_k = 64 × 16", or just "64 × 16" where that would have to shrink.
        const QString shape = metrics.horizontalAdvance(model.shapeText(m)) + 2 <= labels.width()
                                  ? model.shapeText(m)
                                  : shapeText(model.rows(m), model.columns(m));
        drawFittedText(painter, lineRect(next++), Qt::AlignCenter, options.font, shape);
        painter.setPen(muted);
        drawFittedText(painter, lineRect(next), Qt::AlignCenter, options.font,
                       QStringLiteral("±%1").arg(preciseNumber(picture.maxValue)));
    }
    painter.setPen(text);
    drawFittedText(painter, g.columnAxis, Qt::AlignCenter, options.font,
                   Text::tr("columns: the head's d_k = %1 dimensions").arg(r.attention.d_k()));
    drawFittedText(
        painter, g.outputAxis, Qt::AlignCenter, options.font,
        Text::tr("columns: model dimensions of the output (d_model = %1); rows: the head's d_k").arg(r.config.d_model));
    painter.save();
    painter.translate(g.rowAxis.center());
    painter.rotate(-90);
    drawFittedText(painter,
                   QRectF(-g.rowAxis.height() / 2, -g.rowAxis.width() / 2, g.rowAxis.height(), g.rowAxis.width()),
                   Qt::AlignCenter, options.font,
                   Text::tr("rows: model dimensions of the input (d_model = %1)").arg(r.config.d_model));
    painter.restore();

    if (options.showSelection && mark.matrix >= 0 && mark.matrix < kHeadMatrixCount) {
        const auto m = static_cast<qkv::HeadMatrix>(mark.matrix);
        const QRectF cells = g.cells[at(m)];
        if (mark.row < model.rows(m) && mark.column < model.columns(m)) {
            const QRectF cell = matrixRowBand(cells, model.rows(m), mark.row)
                                    .intersected(matrixColumnBand(cells, model.columns(m), mark.column));
            painter.setPen(QPen(kSelectionColor, 2));
            painter.drawRect(cell.adjusted(-1, -1, 1, 1));
        }
    }

    paintAblationPanel(painter, g.ablation, model, options);
    painter.setPen(text);
    painter.setRenderHint(QPainter::Antialiasing, true);
    paintColorLegend(painter, g.legend, kDivergingColormap, -1.0, 1.0, legendLabel());
    painter.restore();
}

std::vector<Figure> headWeightsFigures()
{
    return {perHeadFigure(QStringLiteral("head-weights"),
                          Text::tr("A head's weights and what switching heads off changes"), kHeadWeightsViewId,
                          QSizeF(1400, 900), [](QPainter& painter, const QRectF& rect, const FigureInput& input) {
                              const auto model = HeadWeightsModel::build(input.result, input.options.head);
                              paintHeadWeights(painter, rect, *model, input.options);
                          })};
}

}  // namespace qkv::ui
