#include "ui/matrices/matrices_view.hpp"

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

MatricesView::MatricesView(HeadSelection* selection, QWidget* parent)
    : ResultView(selection, Change::Head | Change::Cell, parent), headBox_(new QComboBox(this)),
      canvas_(new FigureCanvas(QSize(1100, 720), this)),
      build_([this](std::shared_ptr<const MatricesModel> model) { showModel(std::move(model)); })
{
    auto* bar = new QHBoxLayout;
    auto* headLabel = new QLabel(tr("H&ead"), this);
    headLabel->setBuddy(headBox_);
    headBox_->setToolTip(tr("The head whose Q_i, K_i, V_i, scores, A_i and A_i V_i are shown ([ and ] anywhere)"));
    bar->addWidget(headLabel);
    bar->addWidget(headBox_);
    auto* hint = new QLabel(tr("Hover a matrix for its values · click a row to select that query or key everywhere · "
                               "click W^O's rows to pick a head · ↑↓ query · ←→ key"),
                            this);
    hint->setForegroundRole(QPalette::PlaceholderText);
    hint->setWordWrap(true);
    bar->addSpacing(12);
    bar->addWidget(hint, 1);

    canvas_->setFocusPolicy(Qt::StrongFocus);
    canvas_->setAccessibleName(tr("Matrices of the layer"));
    canvas_->setMinimumHint(QSize(520, 400));
    canvas_->setPaint([this](QPainter& painter, const QRectF& rect) {
        if (!model_) {
            painter.setPen(palette().color(QPalette::PlaceholderText));
            painter.drawText(rect, Qt::AlignCenter, result() ? tr("Computing…") : tr("No result yet."));
            return;
        }
        paintMatrices(painter, rect, *model_, screenFigureOptions(*canvas_, *this->selection()));
    });
    canvas_->setToolTipFunction([this](const QPointF& p) { return toolTipAt(p); });
    canvas_->installEventFilter(this);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 4);
    layout->addLayout(bar);
    layout->addWidget(canvas_, 1);

    connect(headBox_, &QComboBox::activated, this, [this](int index) { this->selection()->setHead(index); });
    connect(canvas_, &FigureCanvas::clicked, this, &MatricesView::clickAt);
}

MatricesView::~MatricesView() = default;  // build_ waits for its running work

QString MatricesView::title() const { return tr("&Matrices"); }


MatricesGeometry MatricesView::geometry() const
{
    if (!model_) return {};
    QFont font = canvas_->font();
    return matricesGeometry(canvas_->figureRect(), *model_, QFontMetricsF(font, canvas_));
}

void MatricesView::refresh(Changes changes)
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
    const bool sameHead = model_ && model_->resultPointer() == result() && model_->head() == selection()->head();
    if (sameHead) {  // only the query or key moved
        canvas_->update();
        return;
    }
    auto previous = model_;
    auto input = result();
    const qkv::Index head = selection()->head();
    const auto where = MatricesModel::buildWork(*input) <= kAsynchronousWork ? LatestTaskBase::Run::InlineWhenIdle
                                                                             : LatestTaskBase::Run::InBackground;
    build_.request([input, head, previous] { return MatricesModel::build(input, head, previous); }, where);
}

void MatricesView::showModel(std::shared_ptr<const MatricesModel> model)
{
    model_ = std::move(model);
    canvas_->update();
    emit modelReady();
}

void MatricesView::fillHeads()
{
    const QSignalBlocker blocker(headBox_);
    headBox_->clear();
    if (!result()) return;
    const qkv::AttentionResult& a = result()->attention;
    for (qkv::Index i = 0; i < a.headCount(); ++i)
        headBox_->addItem(a.isAblated(i) ? tr("%1 (switched off)").arg(figuretext::headName(i))
                                         : figuretext::headName(i));
}

QString MatricesView::toolTipAt(const QPointF& position) const
{
    if (!model_) return {};
    const MatrixHit hit = matricesHitAt(geometry(), *model_, position);
    if (hit.matrix < 0) return {};
    const LayerMatrix m = hit.which();
    const qkv::Result& r = model_->result();
    QString row;
    switch (model_->rowKind(m)) {
    case MatrixRows::Queries:
        row = tr("query %1").arg(figuretext::token(r.queryLabels, hit.row));
        break;
    case MatrixRows::Keys:
        row = tr("key %1").arg(figuretext::token(r.keyLabels, hit.row));
        break;
    case MatrixRows::Model:
        row = tr("row %1 (%2's rows: %3–%4)")
                  .arg(hit.row)
                  .arg(figuretext::headName(hit.row / r.attention.d_k()))
                  .arg(hit.row / r.attention.d_k() * r.attention.d_k())
                  .arg((hit.row / r.attention.d_k() + 1) * r.attention.d_k() - 1);
        break;
    }
    const QString column = m == LayerMatrix::Scores || m == LayerMatrix::Attention
                               ? tr("key %1").arg(figuretext::token(r.keyLabels, hit.column))
                               : tr("column %1").arg(hit.column);
    QString text = tr("<b>%1</b> (%2) [%3, %4]<br>%5<br>%6<br>value: <b>%7</b>")
                       .arg(model_->name(m), figuretext::shape(model_->rows(m), model_->columns(m)))
                       .arg(hit.row)
                       .arg(hit.column)
                       .arg(row, column, figuretext::number(model_->value(m, hit.row, hit.column)));
    if (m == LayerMatrix::Concat && r.attention.isAblated(hit.column / r.attention.d_k()))
        text += tr("<br><i>%1 is switched off: its block is zero before W^O</i>")
                    .arg(figuretext::headName(hit.column / r.attention.d_k()));
    if (m == LayerMatrix::Scores && r.attention.mask.masked(hit.row, hit.column))
        text += tr("<br><i>masked: this key is hidden from this query</i>");
    return text;
}

void MatricesView::clickAt(const QPointF& position)
{
    if (!model_) return;
    const MatrixHit hit = matricesHitAt(geometry(), *model_, position);
    if (hit.matrix < 0) return;
    HeadSelection* s = selection();
    const LayerMatrix m = hit.which();
    const int row = static_cast<int>(hit.row);
    switch (model_->rowKind(m)) {
    case MatrixRows::Queries:
        s->setCell(row, m == LayerMatrix::Scores || m == LayerMatrix::Attention ? static_cast<int>(hit.column)
                                                                                : s->keyColumn());
        break;
    case MatrixRows::Keys:
        s->setCell(s->queryRow(), row);
        break;
    case MatrixRows::Model:
        s->setHead(static_cast<int>(hit.row / model_->result().attention.d_k()));
        break;
    }
}

bool MatricesView::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == canvas_ && event->type() == QEvent::KeyPress && result() &&
        moveCellWithArrows(*static_cast<QKeyEvent*>(event), *selection(),
                           static_cast<int>(result()->attention.queryCount()),
                           static_cast<int>(result()->attention.keyCount())))
        return true;
    return ResultView::eventFilter(watched, event);
}

}  // namespace qkv::ui
