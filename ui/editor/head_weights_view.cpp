#include "ui/editor/head_weights_view.hpp"

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
#include "ui/matrices/figure_canvas.hpp"
#include "ui/matrices/figure_text.hpp"

namespace qkv::ui {

HeadWeightsView::HeadWeightsView(Document* document, HeadSelection* selection, QWidget* parent)
    : ResultView(selection, Change::Head | Change::Cell, parent), document_(document), stroke_(*document),
      headBox_(new QComboBox(this)), blockBox_(new QComboBox(this)), presetButton_(new QToolButton(this)),
      factorBox_(new QDoubleSpinBox(this)), scaleButton_(new QPushButton(tr("S&cale"), this)),
      zeroButton_(new QPushButton(tr("&Zero"), this)), swapButton_(new QPushButton(tr("S&wap Q ↔ K"), this)),
      switchOffButton_(new QToolButton(this)), cellLabel_(new QLabel(this)), valueBox_(new QDoubleSpinBox(this)),
      setButton_(new QPushButton(tr("Se&t"), this)), paintButton_(new QToolButton(this)), seedBox_(new QSpinBox(this)),
      rerandomiseButton_(new QPushButton(tr("&Re-randomise"), this)), copyTargetBox_(new QComboBox(this)),
      copyButton_(new QPushButton(tr("C&opy onto"), this)), ablationLabel_(new QLabel(this)),
      canvas_(new FigureCanvas(QSize(1100, 720), this)),
      build_([this](std::shared_ptr<const HeadWeightsModel> model) { showModel(std::move(model)); })
{
    canvas_->setFocusPolicy(Qt::StrongFocus);
    canvas_->setAccessibleName(tr("The selected head's weights"));
    canvas_->setMinimumHint(QSize(420, 320));
    canvas_->setPaint([this](QPainter& painter, const QRectF& rect) {
        if (!model_) {
            painter.setPen(palette().color(QPalette::PlaceholderText));
            painter.drawText(rect, Qt::AlignCenter, result() ? tr("Computing…") : tr("No result yet."));
            return;
        }
        FigureOptions options = screenFigureOptions(*canvas_, *this->selection());
        options.headTitles = panelTitles_;
        paintHeadWeights(painter, rect, *model_, options, mark_);
    });
    canvas_->setToolTipFunction([this](const QPointF& p) { return toolTipAt(p); });
    canvas_->installEventFilter(this);
    connect(canvas_, &FigureCanvas::clicked, this, &HeadWeightsView::pressAt);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 4);
    layout->addWidget(makeControls());
    layout->addWidget(canvas_, 1);
    updateControls();
}

HeadWeightsView::~HeadWeightsView()
{
    // Destroying the children hides them, which moves the focus: the value box would emit
    // editingFinished into a view that is no longer one (UBSan caught it). build_ waits for its
    // running work.
    QObject::disconnect(valueBox_, nullptr, this, nullptr);
}

QString HeadWeightsView::title() const { return tr("&Weights"); }


void HeadWeightsView::setHeadTitles(const QStringList& titles)
{
    panelTitles_ = titles;
    canvas_->update();
}

qkv::Index HeadWeightsView::head() const { return selection()->head(); }

HeadWeightsGeometry HeadWeightsView::geometry() const
{
    return headWeightsGeometry(canvas_->figureRect(), QFontMetricsF(canvas_->font(), canvas_));
}

void HeadWeightsView::refresh(Changes changes)
{
    if (changes.testFlag(Change::Result) || changes.testFlag(Change::Head)) updateControls();
    if (!result()) {
        build_.cancel();
        model_.reset();
        canvas_->update();
        return;
    }
    if (model_ && model_->resultPointer() == result() && model_->head() == head()) {  // only the query moved
        updateControls();
        canvas_->update();
        return;
    }
    if (changes.testFlag(Change::Head)) mark_ = {};
    auto input = result();
    const qkv::Index h = head();
    const auto where = HeadWeightsModel::buildWork(*input) <= kAsynchronousWork ? LatestTaskBase::Run::InlineWhenIdle
                                                                                : LatestTaskBase::Run::InBackground;
    build_.request([input, h] { return HeadWeightsModel::build(input, h); }, where);
}

void HeadWeightsView::showModel(std::shared_ptr<const HeadWeightsModel> model)
{
    model_ = std::move(model);
    if (mark_.matrix >= 0) {
        const auto m = static_cast<qkv::HeadMatrix>(mark_.matrix);
        if (mark_.row >= model_->rows(m) || mark_.column >= model_->columns(m)) mark_ = {};
    }
    updateControls();
    canvas_->update();
    emit modelReady();
}

QString HeadWeightsView::toolTipAt(const QPointF& position) const
{
    if (!model_) return {};
    const HeadWeightsHit hit = headWeightsHitAt(geometry(), *model_, position);
    if (hit.matrix < 0) return {};
    const auto m = static_cast<qkv::HeadMatrix>(hit.matrix);
    return tr("<b>%1</b> [%2, %3] = <b>%4</b><br>click to type a value%5")
        .arg(model_->name(m))
        .arg(hit.row)
        .arg(hit.column)
        .arg(figuretext::number(model_->block(m)(hit.row, hit.column)))
        .arg(paintButton_->isChecked() && paintButton_->isEnabled() ? tr("; drag to paint") : QString());
}

void HeadWeightsView::pressAt(const QPointF& position)
{
    if (!model_) return;
    const HeadWeightsHit hit = headWeightsHitAt(geometry(), *model_, position);
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
    if (!stroke_.active() || !model_) return;
    const HeadWeightsHit hit = headWeightsHitAt(geometry(), *model_, position);
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
    if (!paintButton_->isChecked()) valueBox_->setValue(model_->block(m)(hit.row, hit.column));
    updateControls();
    canvas_->update();
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
    if (watched == canvas_) {
        if (event->type() == QEvent::MouseMove && (static_cast<QMouseEvent*>(event)->buttons() & Qt::LeftButton))
            dragAt(static_cast<QMouseEvent*>(event)->position());
        else if (event->type() == QEvent::MouseButtonRelease)
            stroke_.end();
    }
    return ResultView::eventFilter(watched, event);
}

}  // namespace qkv::ui
