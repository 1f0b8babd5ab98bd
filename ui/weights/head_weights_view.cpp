#include "ui/weights/head_weights_view.hpp"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include "ui/document/document.hpp"
#include "ui/document/head_actions.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/figure_widgets/figure_canvas.hpp"
#include "ui/figures/figure_text.hpp"
#include "ui/figures/number_format.hpp"

namespace qkv::ui {

HeadWeightsView::HeadWeightsView(Document* document, HeadSelection* selection, QWidget* parent)
    : ModelView(selection, Change::Head | Change::Cell,
                {.minimum = QSize(420, 320), .accessibleName = tr("The selected head's weights")}, parent),
      document_(document), stroke_(*document), blockBox_(new QComboBox(this)), presetButton_(new QToolButton(this)),
      factorBox_(new QDoubleSpinBox(this)), scaleButton_(new QPushButton(tr("S&cale"), this)),
      zeroButton_(new QPushButton(tr("&Zero"), this)), swapButton_(new QPushButton(tr("S&wap Q ↔ K"), this)),
      switchOffButton_(new QToolButton(this)), cellLabel_(new QLabel(this)), valueBox_(new QDoubleSpinBox(this)),
      setButton_(new QPushButton(tr("Se&t"), this)), paintButton_(new QToolButton(this)), seedBox_(new QSpinBox(this)),
      rerandomiseButton_(new QPushButton(tr("&Re-randomise"), this)), copyTargetBox_(new QComboBox(this)),
      copyButton_(new QPushButton(tr("C&opy onto"), this)), ablationLabel_(new QLabel(this))
{
    canvas()->setFocusPolicy(Qt::StrongFocus);
    canvas()->installEventFilter(this);  // drags paint

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 4);
    layout->addWidget(makeControls());
    layout->addWidget(canvas(), 1);
    updateControls();
}

void HeadWeightsView::paintModel(QPainter& painter, const QRectF& rect)
{
    FigureOptions options = screenFigureOptions(*canvas(), *selection());
    options.headTitles = panelTitles_;
    paintHeadWeights(painter, rect, *model(), options, mark_);
}

HeadWeightsView::~HeadWeightsView()
{
    // Destroying the children hides them, which moves the focus: the value box would emit
    // editingFinished into a view that is no longer one (UBSan caught it). The base's task waits
    // for a running build.
    QObject::disconnect(valueBox_, nullptr, this, nullptr);
}

QString HeadWeightsView::title() const { return tr("&Weights"); }
QString HeadWeightsView::summary() const { return tr("Edit one head's W_i^Q, W_i^K, W_i^V and W_i^O by hand, cell by cell, and switch heads off"); }

void HeadWeightsView::setHeadTitles(const QStringList& titles)
{
    panelTitles_ = titles;
    canvas()->update();
}

qkv::Index HeadWeightsView::head() const { return selection()->head(); }

HeadWeightsGeometry HeadWeightsView::geometry() const
{
    return headWeightsGeometry(canvas()->figureRect(), QFontMetricsF(canvas()->font(), canvas()),
                               model() && model()->grouped());
}

void HeadWeightsView::refresh(Changes changes)
{
    showHeads(changes);
    if (changes.testFlag(Change::Result) || changes.testFlag(Change::Head)) updateControls();
    if (!result()) {
        dropModel();
        return;
    }
    if (model() && model()->resultPointer() == result() && model()->head() == head()) {  // only the query moved
        updateControls();
        canvas()->update();
        return;
    }
    if (changes.testFlag(Change::Head)) mark_ = {};
    auto input = result();
    const qkv::Index h = head();
    requestModel(HeadWeightsModel::buildWork(*input), [input, h] { return HeadWeightsModel::build(input, h); });
}

void HeadWeightsView::modelChanged()
{
    if (model() && mark_.matrix >= 0) {
        const auto m = static_cast<qkv::HeadMatrix>(mark_.matrix);
        if (mark_.row >= model()->rows(m) || mark_.column >= model()->columns(m)) mark_ = {};
    }
    updateControls();
    canvas()->update();
}

QString HeadWeightsView::toolTipAt(const QPointF& position) const
{
    if (!model()) return {};
    const HeadWeightsHit hit = headWeightsHitAt(geometry(), *model(), position);
    if (hit.matrix < 0) return {};
    const auto m = static_cast<qkv::HeadMatrix>(hit.matrix);
    return tr("<b>%1</b> [%2, %3] = <b>%4</b><br>click to type a value%5")
        .arg(model()->name(m))
        .arg(hit.row)
        .arg(hit.column)
        .arg(preciseNumber(model()->block(m)(hit.row, hit.column)))
        .arg(paintButton_->isChecked() && paintButton_->isEnabled() ? tr("; drag to paint") : QString());
}

void HeadWeightsView::clickAt(const QPointF& position)
{
    const HeadWeightsHit hit = headWeightsHitAt(geometry(), *model(), position);
    if (hit.matrix < 0) return;
    selectCell(hit);
    if (paintButton_->isChecked() && paintButton_->isEnabled() &&
        stroke_.begin(head(), static_cast<qkv::HeadMatrix>(hit.matrix))) {
        lastPainted_ = hit;
        stroke_.paint(hit.row, hit.column, static_cast<float>(valueBox_->value()));
        return;
    }
    valueBox_->setFocus(Qt::MouseFocusReason);
    valueBox_->selectAll();
}

void HeadWeightsView::dragAt(const QPointF& position)
{
    if (!stroke_.active() || !model()) return;
    const HeadWeightsHit hit = headWeightsHitAt(geometry(), *model(), position);
    if (hit.matrix != static_cast<int>(stroke_.matrix())) return;
    if (hit.row == lastPainted_.row && hit.column == lastPainted_.column) return;
    lastPainted_ = hit;
    mark_ = {hit.matrix, hit.row, hit.column};
    stroke_.paint(hit.row, hit.column, static_cast<float>(valueBox_->value()));
}

void HeadWeightsView::selectCell(const HeadWeightsHit& hit)
{
    mark_ = {hit.matrix, hit.row, hit.column};
    {
        const QSignalBlocker blocker(blockBox_);
        blockBox_->setCurrentIndex(hit.matrix);
    }
    const auto m = static_cast<qkv::HeadMatrix>(hit.matrix);
    if (!paintButton_->isChecked()) valueBox_->setValue(model()->block(m)(hit.row, hit.column));
    updateControls();
    canvas()->update();
}

void HeadWeightsView::setCell()
{
    if (mark_.matrix < 0 || !result()) return;
    setHeadCell(*document_, head(), static_cast<qkv::HeadMatrix>(mark_.matrix), mark_.row, mark_.column,
                static_cast<float>(valueBox_->value()));
}

std::vector<qkv::HeadMatrix> HeadWeightsView::chosenBlocks() const
{
    const int index = blockBox_->currentIndex();
    if (index >= 0 && index < kHeadMatrixCount) return {kHeadMatrices[static_cast<std::size_t>(index)]};
    return {kHeadMatrices.begin(), kHeadMatrices.end()};
}

bool HeadWeightsView::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == canvas()) {
        if (event->type() == QEvent::MouseMove && (static_cast<QMouseEvent*>(event)->buttons() & Qt::LeftButton))
            dragAt(static_cast<QMouseEvent*>(event)->position());
        else if (event->type() == QEvent::MouseButtonRelease)
            stroke_.end();
    }
    return ModelView::eventFilter(watched, event);
}

}  // namespace qkv::ui
