#include "ui/matrices/matrices_view.hpp"

#include <QHBoxLayout>
#include <QPainter>
#include <QVBoxLayout>

#include "ui/accessibility/accessible_cell_table.hpp"
#include "ui/accessibility/cell_table.hpp"
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
    makeAccessibleTable();
}

void MatricesView::makeAccessibleTable()
{
    // The canvas holds fourteen matrices; the one the arrow keys move in is the selected head's
    // A_i (queries x keys), so that is the table. Each cell reads the entry of A_i and of the
    // scaled scores it came from (eq. 1: A_i = softmax(Q_i K_i^T / sqrt(d_k))); the other
    // matrices' values are in their tooltips and in the Steps tab, which walks them in words.
    CellTable table;
    table.caption = [this] {
        return model() ? tr("%1 of %2: queries on rows, keys on columns")
                             .arg(model()->name(LayerMatrix::Attention), headName(model()->head()))
                       : tr("Matrices of the layer: computing");
    };
    table.rowCount = [this] { return model() ? static_cast<int>(model()->rows(LayerMatrix::Attention)) : 0; };
    table.columnCount = [this] { return model() ? static_cast<int>(model()->columns(LayerMatrix::Attention)) : 0; };
    table.rowHeader = [this](int row) { return tokenText(model()->result().queryLabels, row); };
    table.columnHeader = [this](int column) { return tokenText(model()->result().keyLabels, column); };
    table.cellName = [this](int row, int column) {
        return tr("%1, %2").arg(headName(model()->head()), plainTextOfToolTip(cellTip(LayerMatrix::Attention, row, column)));
    };
    table.cellDescription = [this](int row, int column) {
        return plainTextOfToolTip(cellTip(LayerMatrix::Scores, row, column));
    };
    table.currentCell = [this] { return TableCell{selection()->queryRow(), selection()->keyColumn()}; };
    canvas()->setCellTable(std::move(table), selection());
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
    return cellTip(hit.which(), hit.row, hit.column);
}

QString MatricesView::cellTip(LayerMatrix m, qkv::Index hitRow, qkv::Index hitColumn) const
{
    const qkv::Result& r = model()->result();
    QString row;
    switch (model()->rowKind(m)) {
    case MatrixRows::Queries: row = tr("query %1").arg(tokenName(r.queryLabels, hitRow).toHtmlEscaped()); break;
    case MatrixRows::Keys: row = tr("key %1").arg(tokenName(r.keyLabels, hitRow).toHtmlEscaped()); break;
    case MatrixRows::Model:
        row = tr("row %1 (%2's rows: %3–%4)")
                  .arg(hitRow)
                  .arg(headName(hitRow / r.attention.d_v()))
                  .arg(hitRow / r.attention.d_v() * r.attention.d_v())
                  .arg((hitRow / r.attention.d_v() + 1) * r.attention.d_v() - 1);
        break;
    }
    const QString column = m == LayerMatrix::Scores || m == LayerMatrix::Attention
                               ? tr("key %1").arg(tokenName(r.keyLabels, hitColumn).toHtmlEscaped())
                               : tr("column %1").arg(hitColumn);
    QString text = tr("<b>%1</b> (%2) [%3, %4]<br>%5<br>%6<br>value: <b>%7</b>")
                       .arg(model()->name(m), shapeText(model()->rows(m), model()->columns(m)))
                       .arg(hitRow)
                       .arg(hitColumn)
                       .arg(row, column, preciseNumber(model()->value(m, hitRow, hitColumn)));
    if (m == LayerMatrix::Concat && r.attention.isAblated(hitColumn / r.attention.d_v()))
        text += tr("<br><i>%1 is switched off: its block is zero before W^O</i>")
                    .arg(headName(hitColumn / r.attention.d_v()));
    if (m == LayerMatrix::Scores && r.attention.mask.masked(hitRow, hitColumn))
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
