#include "ui/matrices/matrices_view.hpp"

#include <QHBoxLayout>
#include <QPainter>
#include <QVBoxLayout>

#include "ui/document/head_selection.hpp"
#include "ui/figure_widgets/figure_canvas.hpp"
#include "ui/figures/figure_text.hpp"
#include "ui/figures/number_format.hpp"

namespace qkv::ui {

MatricesView::MatricesView(HeadSelection* selection, QWidget* parent)
    : ModelView(selection, Change::Head | Change::Cell, {.accessibleName = tr("Matrices of the layer")}, parent)
{
    QHBoxLayout* bar =
        makeHeadBar(tr("The head whose Q_i, K_i, V_i, scores, A_i and A_i V_i are shown ([ and ] anywhere)"),
                    tr("Hover a matrix for its values · click a row to select that query or key everywhere · "
                       "click W^O's rows to pick a head · ↑↓ query · ←→ key"));
    moveCellWithArrowKeys();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 4);
    layout->addLayout(bar);
    layout->addWidget(canvas(), 1);
}

QString MatricesView::title() const { return tr("&Matrices"); }
QString MatricesView::summary() const { return tr("Every matrix of the layer for the selected head: X, W^Q, Q_i, K_i, V_i, scores, A_i, Concat, W^O, output"); }

MatricesGeometry MatricesView::geometry() const
{
    if (!model()) return {};
    return matricesGeometry(canvas()->figureRect(), *model(), QFontMetricsF(canvas()->font(), canvas()));
}

void MatricesView::refresh(Changes changes)
{
    showHeads(changes);
    if (!result()) {
        dropModel();
        return;
    }
    const auto& current = model();
    if (current && current->resultPointer() == result() && current->head() == selection()->head()) {
        canvas()->update();  // only the query or key moved
        return;
    }
    auto previous = current;
    auto input = result();
    const qkv::Index head = selection()->head();
    requestModel(MatricesModel::buildWork(*input),
                 [input, head, previous] { return MatricesModel::build(input, head, previous); });
}

void MatricesView::paintModel(QPainter& painter, const QRectF& rect)
{
    paintMatrices(painter, rect, *model(), screenFigureOptions(*canvas(), *selection()));
}

QString MatricesView::toolTipAt(const QPointF& position) const
{
    if (!model()) return {};
    const MatrixHit hit = matricesHitAt(geometry(), *model(), position);
    if (hit.matrix < 0) return {};
    const LayerMatrix m = hit.which();
    const qkv::Result& r = model()->result();
    QString row;
    switch (model()->rowKind(m)) {
    case MatrixRows::Queries: row = tr("query %1").arg(tokenName(r.queryLabels, hit.row).toHtmlEscaped()); break;
    case MatrixRows::Keys: row = tr("key %1").arg(tokenName(r.keyLabels, hit.row).toHtmlEscaped()); break;
    case MatrixRows::Model:
        row = tr("row %1 (%2's rows: %3–%4)")
                  .arg(hit.row)
                  .arg(headName(hit.row / r.attention.d_v()))
                  .arg(hit.row / r.attention.d_v() * r.attention.d_v())
                  .arg((hit.row / r.attention.d_v() + 1) * r.attention.d_v() - 1);
        break;
    }
    const QString column = m == LayerMatrix::Scores || m == LayerMatrix::Attention
                               ? tr("key %1").arg(tokenName(r.keyLabels, hit.column).toHtmlEscaped())
                               : tr("column %1").arg(hit.column);
    QString text = tr("<b>%1</b> (%2) [%3, %4]<br>%5<br>%6<br>value: <b>%7</b>")
                       .arg(model()->name(m), shapeText(model()->rows(m), model()->columns(m)))
                       .arg(hit.row)
                       .arg(hit.column)
                       .arg(row, column, preciseNumber(model()->value(m, hit.row, hit.column)));
    if (m == LayerMatrix::Concat && r.attention.isAblated(hit.column / r.attention.d_v()))
        text += tr("<br><i>%1 is switched off: its block is zero before W^O</i>")
                    .arg(headName(hit.column / r.attention.d_v()));
    if (m == LayerMatrix::Scores && r.attention.mask.masked(hit.row, hit.column))
        text += tr("<br><i>masked: this key is hidden from this query</i>");
    return text;
}

void MatricesView::clickAt(const QPointF& position)
{
    const MatrixHit hit = matricesHitAt(geometry(), *model(), position);
    if (hit.matrix < 0) return;
    HeadSelection* s = selection();
    const LayerMatrix m = hit.which();
    const int row = static_cast<int>(hit.row);
    switch (model()->rowKind(m)) {
    case MatrixRows::Queries:
        s->setCell(row, m == LayerMatrix::Scores || m == LayerMatrix::Attention ? static_cast<int>(hit.column)
                                                                                : s->keyColumn());
        break;
    case MatrixRows::Keys: s->setCell(s->queryRow(), row); break;
    case MatrixRows::Model: s->setHead(static_cast<int>(hit.row / model()->result().attention.d_v())); break;
    }
}

}  // namespace qkv::ui
