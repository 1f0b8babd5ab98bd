#include "ui/qkmap/qk_map_view.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QPainter>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include <algorithm>

#include "ui/document/head_selection.hpp"
#include "ui/matrices/figure_canvas.hpp"
#include "ui/matrices/figure_text.hpp"

namespace qkv::ui {

QkMapView::QkMapView(HeadSelection* selection, QWidget* parent)
    : ResultView(selection, Change::Head | Change::Cell, parent), headBox_(new QComboBox(this)),
      canvas_(new FigureCanvas(QSize(1100, 720), this)),
      build_([this](std::shared_ptr<const QkMapModel> model) { showModel(std::move(model)); })
{
    auto* bar = new QHBoxLayout;
    auto* headLabel = new QLabel(tr("H&ead"), this);
    headLabel->setBuddy(headBox_);
    headBox_->setToolTip(tr("The head drawn large ([ and ] anywhere)"));
    bar->addWidget(headLabel);
    bar->addWidget(headBox_);
    auto* hint =
        new QLabel(tr("Click a query (●) or key (▲) to pick it everywhere · click a small map to pick its head · "
                      "↑↓ query · ←→ key"),
                   this);
    hint->setForegroundRole(QPalette::PlaceholderText);
    hint->setWordWrap(true);
    bar->addSpacing(12);
    bar->addWidget(hint, 1);

    canvas_->setFocusPolicy(Qt::StrongFocus);
    canvas_->setAccessibleName(tr("Q/K map"));
    canvas_->setMinimumHint(QSize(520, 400));
    canvas_->setPaint([this](QPainter& painter, const QRectF&) {
        if (!model_) {
            painter.setPen(palette().color(QPalette::PlaceholderText));
            painter.drawText(canvas_->rect(), Qt::AlignCenter, result() ? tr("Computing…") : tr("No result yet."));
            return;
        }
        const FigureOptions options = screenFigureOptions(*canvas_, *this->selection());
        paintQkMap(painter, headRect(), *model_, options);
        paintQkMapHeads(painter, headsRect(), *model_, options, /*withLegend=*/false);
    });
    canvas_->setToolTipFunction([this](const QPointF& p) { return toolTipAt(p); });
    canvas_->installEventFilter(this);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 4);
    layout->addLayout(bar);
    layout->addWidget(canvas_, 1);

    connect(headBox_, &QComboBox::activated, this, [this](int index) { this->selection()->setHead(index); });
    connect(canvas_, &FigureCanvas::clicked, this, &QkMapView::clickAt);
}

QkMapView::~QkMapView() = default;  // build_ waits for its running work

QString QkMapView::title() const { return tr("Q/K ma&p"); }


QRectF QkMapView::headRect() const
{
    const QRectF all = canvas_->figureRect();
    return QRectF(all.left(), all.top(), all.width() * 0.56, all.height());
}

QRectF QkMapView::headsRect() const
{
    const QRectF all = canvas_->figureRect();
    const QRectF left = headRect();
    return QRectF(left.right(), all.top(), all.right() - left.right(), all.height());
}

QkMapGeometry QkMapView::headGeometry() const
{
    if (!model_) return {};
    return qkMapGeometry(headRect(), *model_, selection()->head(), QFontMetricsF(canvas_->font(), canvas_));
}

QkHeadsGeometry QkMapView::headsGeometry() const
{
    if (!model_) return {};
    return qkHeadsGeometry(headsRect(), *model_, QFontMetricsF(canvas_->font(), canvas_), /*withLegend=*/false);
}

void QkMapView::refresh(Changes changes)
{
    if (changes.testFlag(Change::Result)) fillHeads();
    {
        const QSignalBlocker blocker(headBox_);
        if (selection()->head() < headBox_->count()) headBox_->setCurrentIndex(selection()->head());
    }
    if (!result()) {
        build_.cancel();
        model_.reset();
        canvas_->update();
        return;
    }
    if (model_ && model_->result == result()) {  // head or cell: the projections stand
        canvas_->update();
        return;
    }
    auto input = result();
    const auto where = QkMapModel::buildWork(*input) <= kAsynchronousWork ? LatestTaskBase::Run::InlineWhenIdle
                                                                          : LatestTaskBase::Run::InBackground;
    build_.request([input] { return QkMapModel::build(input); }, where);
}

void QkMapView::showModel(std::shared_ptr<const QkMapModel> model)
{
    model_ = std::move(model);
    canvas_->update();
    emit modelReady();
}

void QkMapView::fillHeads()
{
    const QSignalBlocker blocker(headBox_);
    headBox_->clear();
    if (!result()) return;
    for (qkv::Index i = 0; i < result()->attention.headCount(); ++i) headBox_->addItem(figuretext::headName(i));
}

void QkMapView::clickAt(const QPointF& position)
{
    if (!model_) return;
    HeadSelection* s = selection();
    if (headRect().contains(position)) {
        const QkPointHit hit = qkPointAt(headGeometry(), *model_, s->head(), position);
        if (hit.query >= 0) s->setCell(static_cast<int>(hit.query), s->keyColumn());
        if (hit.key >= 0) s->setCell(s->queryRow(), static_cast<int>(hit.key));
        return;
    }
    if (const int head = headsGeometry().headAt(position); head >= 0) s->setHead(head);
}

QString QkMapView::toolTipAt(const QPointF& position) const
{
    if (!model_ || !headRect().contains(position)) return {};
    const qkv::Index head = selection()->head();
    const QkPointHit hit = qkPointAt(headGeometry(), *model_, head, position);
    const qkv::Result& r = *model_->result;
    if (hit.query < 0 && hit.key < 0) return {};
    const qkv::QkProjection& p = *model_->heads[static_cast<std::size_t>(head)];
    if (hit.query >= 0)
        return tr("Query %1<br>PC 1 = %2, PC 2 = %3")
            .arg(figuretext::token(r.queryLabels, hit.query), figuretext::number(p.queries(hit.query, 0)),
                 figuretext::number(p.queries(hit.query, 1)));
    const qkv::Index query = std::clamp<qkv::Index>(selection()->queryRow(), 0, r.attention.queryCount() - 1);
    return tr("Key %1<br>PC 1 = %2, PC 2 = %3<br>weight from query %4: %5 %")
        .arg(figuretext::token(r.keyLabels, hit.key), figuretext::number(p.keys(hit.key, 0)),
             figuretext::number(p.keys(hit.key, 1)), figuretext::token(r.queryLabels, query))
        .arg(r.attention.heads[static_cast<std::size_t>(head)].attention(query, hit.key) * 100.0, 0, 'f', 1);
}

bool QkMapView::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == canvas_ && event->type() == QEvent::KeyPress && result() &&
        moveCellWithArrows(*static_cast<QKeyEvent*>(event), *selection(),
                           static_cast<int>(result()->attention.queryCount()),
                           static_cast<int>(result()->attention.keyCount())))
        return true;
    return ResultView::eventFilter(watched, event);
}

}  // namespace qkv::ui
