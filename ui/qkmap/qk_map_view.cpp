#include "ui/qkmap/qk_map_view.hpp"

#include <QHBoxLayout>
#include <QPainter>
#include <QVBoxLayout>

#include <algorithm>

#include "ui/document/head_selection.hpp"
#include "ui/figure_widgets/figure_canvas.hpp"
#include "ui/figures/figure_text.hpp"
#include "ui/figures/number_format.hpp"

namespace qkv::ui {

QkMapView::QkMapView(HeadSelection* selection, QWidget* parent)
    : ModelView(selection, Change::Head | Change::Cell, {.accessibleName = tr("Q/K map")}, parent)
{
    QHBoxLayout* bar = makeHeadBar(tr("The head drawn large ([ and ] anywhere)"),
                                   tr("Click a query (●) or key (▲) to pick it everywhere · click a small map to "
                                      "pick its head · ↑↓ query · ←→ key"));
    moveCellWithArrowKeys();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 4);
    layout->addLayout(bar);
    layout->addWidget(canvas(), 1);
}

QString QkMapView::title() const { return tr("Q/K ma&p"); }
QString QkMapView::summary() const { return tr("The selected head's queries and keys projected to two dimensions (principal components)"); }

QRectF QkMapView::headRect() const
{
    const QRectF all = canvas()->figureRect();
    return QRectF(all.left(), all.top(), all.width() * 0.56, all.height());
}

QRectF QkMapView::headsRect() const
{
    const QRectF all = canvas()->figureRect();
    const QRectF left = headRect();
    return QRectF(left.right(), all.top(), all.right() - left.right(), all.height());
}

QkMapGeometry QkMapView::headGeometry() const
{
    if (!model()) return {};
    return qkMapGeometry(headRect(), *model(), selection()->head(), QFontMetricsF(canvas()->font(), canvas()));
}

QkHeadsGeometry QkMapView::headsGeometry() const
{
    if (!model()) return {};
    return qkHeadsGeometry(headsRect(), *model(), QFontMetricsF(canvas()->font(), canvas()), /*withLegend=*/false);
}

void QkMapView::refresh(Changes changes)
{
    showHeads(changes);
    if (!result()) {
        dropModel();
        return;
    }
    if (model() && model()->result == result()) {  // head or cell: the projections stand
        canvas()->update();
        return;
    }
    auto input = result();
    requestModel(QkMapModel::buildWork(*input), [input] { return QkMapModel::build(input); });
}

void QkMapView::paintModel(QPainter& painter, const QRectF&)
{
    const FigureOptions options = screenFigureOptions(*canvas(), *selection());
    paintQkMap(painter, headRect(), *model(), options);
    paintQkMapHeads(painter, headsRect(), *model(), options, /*withLegend=*/false);
}

void QkMapView::clickAt(const QPointF& position)
{
    HeadSelection* s = selection();
    if (headRect().contains(position)) {
        const QkPointHit hit = qkPointAt(headGeometry(), *model(), s->head(), position);
        if (hit.query >= 0) s->setCell(static_cast<int>(hit.query), s->keyColumn());
        if (hit.key >= 0) s->setCell(s->queryRow(), static_cast<int>(hit.key));
        return;
    }
    if (const int head = headsGeometry().headAt(position); head >= 0) s->setHead(head);
}

QString QkMapView::toolTipAt(const QPointF& position) const
{
    if (!model() || !headRect().contains(position)) return {};
    const qkv::Index head = selection()->head();
    const QkPointHit hit = qkPointAt(headGeometry(), *model(), head, position);
    const qkv::Result& r = *model()->result;
    if (hit.query < 0 && hit.key < 0) return {};
    const qkv::QkProjection& p = *model()->heads[static_cast<std::size_t>(head)];
    if (hit.query >= 0)
        return tr("Query %1<br>PC 1 = %2, PC 2 = %3")
            .arg(tokenName(r.queryLabels, hit.query).toHtmlEscaped(), preciseNumber(p.queries(hit.query, 0)),
                 preciseNumber(p.queries(hit.query, 1)));
    const qkv::Index query = std::clamp<qkv::Index>(selection()->queryRow(), 0, r.attention.queryCount() - 1);
    return tr("Key %1<br>PC 1 = %2, PC 2 = %3<br>weight from query %4: %5 %")
        .arg(tokenName(r.keyLabels, hit.key).toHtmlEscaped(), preciseNumber(p.keys(hit.key, 0)), preciseNumber(p.keys(hit.key, 1)),
             tokenName(r.queryLabels, query).toHtmlEscaped())
        .arg(r.attention.heads[static_cast<std::size_t>(head)].attention(query, hit.key) * 100.0, 0, 'f', 1);
}

}  // namespace qkv::ui
