#include "ui/steps/step_view.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "ui/document/head_selection.hpp"
#include "ui/figure_widgets/chart_table.hpp"
#include "ui/figure_widgets/figure_canvas.hpp"
#include "ui/figures/figure_text.hpp"
#include "ui/figures/number_format.hpp"
#include "ui/steps/step_tables.hpp"

namespace qkv::ui {

StepView::StepView(HeadSelection* selection, QWidget* parent)
    : ResultView(selection, Change::Head | Change::Cell, parent), headBox_(new QComboBox(this)),
      queryBox_(new QComboBox(this)), keyBox_(new QComboBox(this)), scroll_(new QScrollArea(this)),
      canvas_(new FigureCanvas(QSize(1000, 760))), below_(new QLabel(this))
{
    auto* bar = new QHBoxLayout;
    auto addList = [&](const QString& text, QComboBox* box, const QString& tip) {
        auto* label = new QLabel(text, this);
        label->setBuddy(box);
        box->setToolTip(tip);
        box->setSizeAdjustPolicy(QComboBox::AdjustToContents);
        box->setMaxVisibleItems(20);
        bar->addWidget(label);
        bar->addWidget(box);
        bar->addSpacing(10);
    };
    addList(tr("H&ead"), headBox_, tr("The head followed step by step ([ and ] anywhere)"));
    addList(tr("&Query"), queryBox_, tr("The query token i (↑ ↓ in the figure)"));
    addList(tr("&Key"), keyBox_, tr("The key token j (← → in the figure)"));
    auto* hint = new QLabel(tr("Click a token, a softmax bar, a value row or a Concat block to pick it"), this);
    hint->setForegroundRole(QPalette::PlaceholderText);
    hint->setWordWrap(true);
    bar->addWidget(hint, 1);

    canvas_->setFocusPolicy(Qt::StrongFocus);
    canvas_->setAccessibleName(tr("Step by step"));
    // The bars' numbers as tables (Show as Table in the context menu, Ctrl+T).
    addShowAsTablesAction(canvas_, [this] { return stepBarCharts(numbers_); });
    canvas_->setPaint([this](QPainter& painter, const QRectF& rect) {
        paintSteps(painter, rect, numbers_, screenFigureOptions(*canvas_, *this->selection()));
    });
    canvas_->setToolTipFunction([this](const QPointF& p) { return toolTipAt(p); });
    canvas_->installEventFilter(this);
    scroll_->setWidget(canvas_);
    scroll_->setAccessibleName(tr("Steps figure"));
    scroll_->setWidgetResizable(true);
    scroll_->setFrameShape(QFrame::NoFrame);
    scroll_->setBackgroundRole(QPalette::Base);
    scroll_->viewport()->installEventFilter(this);

    below_->setForegroundRole(QPalette::PlaceholderText);
    below_->setWordWrap(true);
    below_->hide();

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 4);
    layout->addLayout(bar);
    layout->addWidget(scroll_, 1);
    layout->addWidget(below_);

    connect(headBox_, &QComboBox::activated, this, [this](int index) { this->selection()->setHead(index); });
    connect(queryBox_, &QComboBox::activated, this,
            [this](int index) { this->selection()->setCell(index, this->selection()->keyColumn()); });
    connect(keyBox_, &QComboBox::activated, this,
            [this](int index) { this->selection()->setCell(this->selection()->queryRow(), index); });
    connect(canvas_, &FigureCanvas::clicked, this, &StepView::clickAt);
    connect(scroll_->verticalScrollBar(), &QScrollBar::valueChanged, this, &StepView::updateBelow);
    connect(scroll_->verticalScrollBar(), &QScrollBar::rangeChanged, this, &StepView::updateBelow);
    refresh(Change::Result);  // the empty state until a result arrives
}

QString StepView::title() const { return tr("&Steps"); }
QString StepView::summary() const { return tr("Step by step: one query and one key through equation (1), then MultiHead"); }

QString StepView::number(double value) { return preciseNumber(value); }

QSize StepView::sizeHint() const { return {1000, 800}; }

StepGeometry StepView::geometry() const
{
    return stepGeometry(canvas_->figureRect(), numbers_, QFontMetricsF(canvas_->font(), canvas_));
}

void StepView::refresh(Changes changes)
{
    const HeadSelection& s = *selection();
    numbers_ = result() ? gatherSpanStepNumbers(*result(), s.head(), s.queryRow(), s.querySpanEnd(), s.keyColumn())
                        : StepNumbers{};
    if (changes.testFlag(Change::Result)) fillLists();
    syncLists();
    updateMinimumSize();
    canvas_->update();
    updateBelow();
}

void StepView::updateMinimumSize()
{
    // The smallest size at which every row of bars is comfortable at the width it has (one or
    // two columns); the scroll area scrolls below it rather than squash them.
    // Laid out for the width left once the vertical scroll bar shows: else a two-column layout
    // that needs the bar would narrow itself into one taller column than the minimum allows.
    const int bar =
        scroll_->verticalScrollBar()->isVisible() ? 0 : scroll_->style()->pixelMetric(QStyle::PM_ScrollBarExtent);
    const double width = std::max(scroll_->viewport()->width() - bar, 200);
    const QSizeF minimum =
        stepGeometry(QRectF(0, 0, width, 800), numbers_, QFontMetricsF(canvas_->font(), canvas_)).comfortableSize;
    const QSize size(static_cast<int>(std::ceil(minimum.width())), static_cast<int>(std::ceil(minimum.height())));
    if (size == canvas_->minimumSize()) return;
    canvas_->setMinimumHint(size);
    canvas_->setMinimumSize(size);
}

void StepView::fillLists()
{
    const QSignalBlocker b1(headBox_), b2(queryBox_), b3(keyBox_);
    headBox_->clear();
    queryBox_->clear();
    keyBox_->clear();
    if (!result()) return;
    const qkv::AttentionResult& a = result()->attention;
    for (qkv::Index i = 0; i < a.headCount(); ++i)
        headBox_->addItem(a.isAblated(i) ? tr("%1 (switched off)").arg(headName(i)) : headName(i));
    for (qkv::Index i = 0; i < a.queryCount(); ++i)
        queryBox_->addItem(QStringLiteral("%1 · %2").arg(i).arg(tokenText(result()->queryLabels, i)));
    for (qkv::Index j = 0; j < a.keyCount(); ++j)
        keyBox_->addItem(QStringLiteral("%1 · %2").arg(j).arg(tokenText(result()->keyLabels, j)));
    // A list of a long sentence's tokens is as wide as "4095 · because", not measured item by
    // item on every layout (thousands of texts); the open list still shows each whole.
    constexpr int kMeasuredItems = 256;
    for (QComboBox* box : {queryBox_, keyBox_}) {
        const bool measured = box->count() <= kMeasuredItems;
        box->setSizeAdjustPolicy(measured ? QComboBox::AdjustToContents
                                          : QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(measured ? 0 : 16);
    }
}

void StepView::syncLists()
{
    const QSignalBlocker b1(headBox_), b2(queryBox_), b3(keyBox_);
    const HeadSelection& s = *selection();
    if (s.head() < headBox_->count()) headBox_->setCurrentIndex(s.head());
    if (s.queryRow() < queryBox_->count()) queryBox_->setCurrentIndex(s.queryRow());
    if (s.keyColumn() < keyBox_->count()) keyBox_->setCurrentIndex(s.keyColumn());
}

void StepView::clickAt(const QPointF& position)
{
    if (!numbers_.valid) return;
    const StepHit hit = stepHitAt(geometry(), numbers_, position, QFontMetricsF(canvas_->font(), canvas_));
    HeadSelection* s = selection();
    if (hit.head >= 0) s->setHead(hit.head);
    if (hit.query >= 0 || hit.key >= 0)
        s->setCell(hit.query >= 0 ? hit.query : s->queryRow(), hit.key >= 0 ? hit.key : s->keyColumn());
}

QString StepView::toolTipAt(const QPointF& position) const
{
    if (!numbers_.valid || !result()) return {};
    const StepHit hit = stepHitAt(geometry(), numbers_, position, QFontMetricsF(canvas_->font(), canvas_));
    const StepNumbers& n = numbers_;
    if (hit.query >= 0)
        return tr("Query %1: click to follow it").arg(tokenName(result()->queryLabels, hit.query).toHtmlEscaped());
    if (hit.key >= 0) {
        const auto j = static_cast<std::size_t>(hit.key);
        return tr("Key %1<br>weight a_ij = %2 (%3 %)<br>scaled score = %4<br>|a_ij v_j| = %5<br>click to pick it")
            .arg(tokenName(result()->keyLabels, hit.key).toHtmlEscaped(), number(n.rowWeights[j]))
            .arg(n.rowWeights[j] * 100.0, 0, 'f', 1)
            .arg(number(n.rowScores[j]), number(n.contributionNorms[j]));
    }
    if (hit.head >= 0)
        return tr("%1's block of Concat (columns %2–%3)%4")
            .arg(headName(hit.head))
            .arg(hit.head * n.d_k)
            .arg((hit.head + 1) * n.d_k - 1)
            .arg(n.ablated[static_cast<std::size_t>(hit.head)] ? tr(": switched off, zeroed before W^O") : QString());
    return {};
}

bool StepView::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == canvas_ && event->type() == QEvent::KeyPress && numbers_.valid &&
        moveCellWithArrows(*static_cast<QKeyEvent*>(event), *selection(), static_cast<int>(numbers_.queryLabels.size()),
                           static_cast<int>(numbers_.keyLabels.size())))
        return true;
    if (watched == scroll_->viewport() && event->type() == QEvent::Resize) {
        updateMinimumSize();
        updateBelow();
    }
    return ResultView::eventFilter(watched, event);
}

QString StepView::belowText() const
{
    if (!numbers_.valid) return {};
    const QScrollBar* bar = scroll_->verticalScrollBar();
    if (bar->maximum() == 0 || bar->value() >= bar->maximum()) return {};
    const double visibleBottom = bar->value() + scroll_->viewport()->height();
    const StepGeometry g = geometry();
    const StepTexts t = texts();
    QStringList hidden;
    for (std::size_t s = 0; s < g.stepBottoms.size(); ++s)
        if (g.stepBottoms[s] > visibleBottom + 1) hidden << t.names[s];
    if (hidden.isEmpty()) return {};
    return tr("Below the visible part (scroll down): %1").arg(hidden.join(QStringLiteral(" · ")));
}

void StepView::updateBelow()
{
    const QString text = belowText();
    below_->setText(text);
    below_->setVisible(!text.isEmpty());
}

}  // namespace qkv::ui
