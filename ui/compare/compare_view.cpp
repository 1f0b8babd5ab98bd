#include "ui/compare/compare_view.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include <cmath>

#include "ui/document/head_selection.hpp"
#include "ui/matrices/figure_canvas.hpp"
#include "ui/matrices/figure_text.hpp"

namespace qkv::ui {

CompareView::CompareView(HeadSelection* selection, QWidget* parent)
    : ResultView(selection, Change::Head | Change::Cell, parent),
      pinButton_(new QPushButton(tr("&Pin the live result"), this)), unpinButton_(new QPushButton(tr("Unpin"), this)),
      pinnedLabel_(new QLabel(this)), modeBox_(new QComboBox(this)), quantityBox_(new QComboBox(this)),
      canvas_(new FigureCanvas(QSize(1100, 720), this)),
      task_([this](std::shared_ptr<const AttentionDifference> d) { showDifference(std::move(d)); })
{
    pinButton_->setToolTip(tr("Keep the current result; every later change is compared with it"));
    modeBox_->addItem(tr("pinned − live"), static_cast<int>(CompareMode::PinnedMinusLive));
    modeBox_->addItem(tr("each head − the selected head"), static_cast<int>(CompareMode::HeadsMinusReference));
    quantityBox_->addItem(tr("attention weights"), static_cast<int>(CompareQuantity::Attention));
    quantityBox_->addItem(tr("scaled scores"), static_cast<int>(CompareQuantity::ScaledScores));
    quantityBox_->setItemData(1, tr("scaled score = q·k/√d_k, before the mask"), Qt::ToolTipRole);
    pinnedLabel_->setForegroundRole(QPalette::PlaceholderText);
    pinnedLabel_->setWordWrap(true);
    pinnedLabel_->setMinimumWidth(80);

    auto* pinBar = new QHBoxLayout;
    pinBar->addWidget(pinButton_);
    pinBar->addWidget(unpinButton_);
    pinBar->addWidget(pinnedLabel_, 1);
    auto* bar = new QHBoxLayout;
    auto* showLabel = new QLabel(tr("S&how"), this);
    showLabel->setBuddy(modeBox_);
    bar->addWidget(showLabel);
    bar->addWidget(modeBox_);
    auto* ofLabel = new QLabel(tr("&of"), this);
    ofLabel->setBuddy(quantityBox_);
    bar->addWidget(ofLabel);
    bar->addWidget(quantityBox_);
    bar->addStretch(1);

    canvas_->setAccessibleName(tr("Differences per head"));
    canvas_->setMinimumHint(QSize(480, 360));
    canvas_->setPaint([this](QPainter& painter, const QRectF& rect) {
        if (!difference_) {
            painter.setPen(palette().color(QPalette::PlaceholderText));
            painter.drawText(rect, Qt::AlignCenter, result() ? tr("Computing…") : tr("No result yet."));
            return;
        }
        paintCompare(painter, rect, *difference_, screenFigureOptions(*canvas_, *this->selection()));
    });
    canvas_->setToolTipFunction([this](const QPointF& p) { return toolTipAt(p); });

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 4);
    layout->addLayout(pinBar);
    layout->addLayout(bar);
    layout->addWidget(canvas_, 1);

    connect(pinButton_, &QPushButton::clicked, this, &CompareView::pin);
    connect(unpinButton_, &QPushButton::clicked, this, &CompareView::unpin);
    connect(modeBox_, &QComboBox::activated, this,
            [this](int index) { setMode(static_cast<CompareMode>(modeBox_->itemData(index).toInt())); });
    connect(quantityBox_, &QComboBox::activated, this,
            [this](int index) { setQuantity(static_cast<CompareQuantity>(quantityBox_->itemData(index).toInt())); });
    connect(canvas_, &FigureCanvas::clicked, this, &CompareView::clickAt);
    updatePinnedLabel();
}

CompareView::~CompareView() = default;  // task_ waits for its running work

QString CompareView::title() const { return tr("Pin && c&ompare"); }


void CompareView::pin()
{
    pinned_ = result();
    updatePinnedLabel();
    invalidate();
}

void CompareView::unpin()
{
    pinned_.reset();
    updatePinnedLabel();
    invalidate();
}

void CompareView::setMode(CompareMode mode)
{
    if (mode == mode_) return;
    mode_ = mode;
    const QSignalBlocker blocker(modeBox_);
    modeBox_->setCurrentIndex(modeBox_->findData(static_cast<int>(mode)));
    invalidate();
}

void CompareView::setQuantity(CompareQuantity quantity)
{
    if (quantity == quantity_) return;
    quantity_ = quantity;
    const QSignalBlocker blocker(quantityBox_);
    quantityBox_->setCurrentIndex(quantityBox_->findData(static_cast<int>(quantity)));
    invalidate();
}

void CompareView::updatePinnedLabel()
{
    unpinButton_->setEnabled(pinned_ != nullptr);
    if (!pinned_) {
        pinnedLabel_->setText(tr("Nothing pinned"));
        return;
    }
    const qkv::AttentionResult& a = pinned_->attention;
    pinnedLabel_->setText(tr("Pinned: %1, %2 × %3, %4 heads, seed %5")
                              .arg(figuretext::modeTitle(pinned_->config.mode))
                              .arg(a.queryCount())
                              .arg(a.keyCount())
                              .arg(a.headCount())
                              .arg(pinned_->config.seed));
}

void CompareView::refresh(Changes changes)
{
    // A change of cell only moves the mark; of head, only the reference in head mode.
    const bool needed = changes.testFlag(Change::Result) || changes.testFlag(Change::Options) ||
                        (changes.testFlag(Change::Head) && mode_ == CompareMode::HeadsMinusReference) || !difference_;
    if (needed)
        recompute();
    else
        canvas_->update();
}

void CompareView::recompute()
{
    auto live = result();
    auto pinned = pinned_;
    const CompareMode mode = mode_;
    const CompareQuantity quantity = quantity_;
    const qkv::Index reference = selection()->head();
    double work = 0;
    if (live)
        work = static_cast<double>(live->attention.headCount() * live->attention.queryCount() *
                                   live->attention.keyCount());
    const auto where =
        work <= kAsynchronousWork ? LatestTaskBase::Run::InlineWhenIdle : LatestTaskBase::Run::InBackground;
    task_.request(
        [live, pinned, mode, quantity, reference] {
            return mode == CompareMode::PinnedMinusLive
                       ? AttentionDifference::pinnedMinusLive(pinned, live, quantity)
                       : AttentionDifference::headsMinusReference(live, reference, quantity);
        },
        where);
}

void CompareView::showDifference(std::shared_ptr<const AttentionDifference> difference)
{
    difference_ = std::move(difference);
    canvas_->update();
    emit differenceReady();
}

CompareGeometry CompareView::geometry() const
{
    if (!difference_) return {};
    return compareGeometry(canvas_->figureRect(), *difference_, QFontMetricsF(canvas_->font(), canvas_));
}

void CompareView::clickAt(const QPointF& position)
{
    if (!difference_ || !difference_->ok()) return;
    const CompareHit hit = compareHitAt(geometry(), *difference_, position, QFontMetricsF(canvas_->font(), canvas_));
    if (hit.query >= 0) selection()->setCell(static_cast<int>(hit.query), static_cast<int>(hit.key));
    if (hit.head >= 0 && mode_ == CompareMode::PinnedMinusLive) selection()->setHead(hit.head);
}

QString CompareView::toolTipAt(const QPointF& position) const
{
    if (!difference_ || !difference_->ok()) return {};
    const CompareHit hit = compareHitAt(geometry(), *difference_, position, QFontMetricsF(canvas_->font(), canvas_));
    if (hit.head < 0 || hit.query < 0) return {};
    const AttentionDifference& d = *difference_;
    const qkv::Result& r = *d.live;
    const auto head = static_cast<qkv::Index>(hit.head);
    const double value = d.differences[static_cast<std::size_t>(hit.head)](hit.query, hit.key);
    const QString leftName = d.mode == CompareMode::PinnedMinusLive ? tr("pinned") : figuretext::headName(head);
    const QString rightName = d.mode == CompareMode::PinnedMinusLive ? tr("live") : figuretext::headName(d.reference);
    return tr("<b>%1</b><br>query %2<br>key %3<br>%4: %5<br>%6: %7<br>difference: <b>%8</b>")
        .arg(figuretext::headName(head), figuretext::token(r.queryLabels, hit.query),
             figuretext::token(r.keyLabels, hit.key), leftName, figuretext::number(d.left(head, hit.query, hit.key)),
             rightName, figuretext::number(d.right(head, hit.query, hit.key)),
             std::isnan(value) ? tr("masked") : figuretext::number(value));
}

}  // namespace qkv::ui
