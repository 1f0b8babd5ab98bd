#include "ui/heads/heads_view.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>

#include <cmath>

#include "core/analysis/span_row.hpp"
#include "ui/background/work_placement.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/heads/head_statistics_table.hpp"
#include "ui/heads/heads_canvas.hpp"
#include "ui/heads/heads_figure.hpp"
#include "ui/heads/long_layer_detail.hpp"
#include "ui/heads/value_norms_cache.hpp"

namespace qkv::ui {

HeadsView::HeadsView(HeadSelection* selection, QWidget* parent)
    : ResultView(selection, {}, parent), kindBox_(new QComboBox(this)), colormapBox_(new QComboBox(this)),
      averageBox_(new QCheckBox(tr("&Average of heads"), this)),
      blockMaximaBox_(new QCheckBox(tr("Block ma&xima"), this)), queriesBox_(new QLineEdit(this)),
      rangeBox_(new QComboBox(this)),
      lowBox_(new QDoubleSpinBox(this)), highBox_(new QDoubleSpinBox(this)), zoomLabel_(new QLabel(this)),
      scroll_(new QScrollArea(this)), canvas_(new HeadsCanvas(this->selection(), scroll_)),
      statistics_(new HeadStatisticsTable(this->selection(), this)),
      detail_(new LongLayerDetail(this->selection(), this)), hint_(new QLabel(this)),
      figures_([this](std::shared_ptr<const HeadsFigure> figure) { canvas_->setFigure(std::move(figure)); })
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addLayout(makeToolbar());

    scroll_->setWidget(canvas_);
    scroll_->setWidgetResizable(false);
    scroll_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    scroll_->setFrameShape(QFrame::StyledPanel);
    scroll_->setBackgroundRole(QPalette::Base);
    scroll_->viewport()->installEventFilter(this);
    auto* body = new QSplitter(Qt::Horizontal, this);  // the grid, and the statistics beside it
    body->addWidget(scroll_);
    body->addWidget(statistics_);
    body->setStretchFactor(0, 1);
    body->setCollapsible(0, false);
    // A long layer's exact row and region beneath the blocks of the grid.
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(body);
    split->addWidget(detail_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setCollapsible(0, false);
    detail_->hide();
    layout->addWidget(split, 1);

    hint_->setWordWrap(true);
    hint_->setForegroundRole(QPalette::PlaceholderText);
    layout->addWidget(hint_);

    connect(canvas_, &HeadsCanvas::zoomRequested, this, &HeadsView::zoomBy);
    makeMenuActions();

    // The members' defaults are a new session's (qkv::ViewOptions); a session replaces them.
    {
        const QSignalBlocker b1(kindBox_), b2(averageBox_);
        kindBox_->setCurrentIndex(kindBox_->findData(static_cast<int>(kind_)));
        averageBox_->setChecked(average_);
    }
    setColormap(weightsColormap_);
    showColorRange();
    showHint(false);
    updateZoomLabel();
    showOptionsInMenu();
}

QLayout* HeadsView::makeToolbar()
{
    // Two rows, so that every label stays whole at 1000 x 700: what is
    // shown and how it is coloured, then the colour scale and the zoom.
    auto* toolbar = new QVBoxLayout;
    auto* first = new QHBoxLayout;
    auto* second = new QHBoxLayout;
    toolbar->addLayout(first);
    toolbar->addLayout(second);

    auto* showLabel = new QLabel(tr("S&how"), this);
    showLabel->setBuddy(kindBox_);
    for (const ScoreKindEntry& entry : kScoreKinds)
        kindBox_->addItem(scoreKindName(entry.value), static_cast<int>(entry.value));
    kindBox_->setToolTip(
        tr("Attention weights: softmax of each row (rows sum to 1).\n"
           "Scaled scores: q·k/√d_k before the mask (the raw score is q·k).\n"
           "Scaled scores after mask: what the softmax sees; masked pairs are −∞ (hatched).\n"
           "Value-weighted attention: ‖a·f(x)‖ with f(x) = (x W^V + b^V) W^O, the length of what\n"
           "each key adds to the query's output through the head (Kobayashi et al. 2020):\n"
           "a large weight on a key with a short f(x) moves the output little."));
    auto* colormapLabel = new QLabel(tr("&Colormap"), this);
    colormapLabel->setBuddy(colormapBox_);
    for (ColormapName name : Colormap::all())
        colormapBox_->addItem(Colormap::get(name).displayName(), static_cast<int>(name));
    first->addWidget(showLabel);
    first->addWidget(kindBox_);
    first->addSpacing(12);
    first->addWidget(colormapLabel);
    first->addWidget(colormapBox_);
    first->addSpacing(12);
    first->addWidget(averageBox_);
    first->addStretch(1);
    blockMaximaBox_->setToolTip(
        tr("A long layer (past 4,096 tokens) is kept in blocks of positions, not whole.\n"
           "Off: each block's mean weight. On: its largest weight, so a single key that a query\n"
           "attends to sharply stays visible where the mean would average it away."));
    blockMaximaBox_->hide();

    auto* rangeLabel = new QLabel(tr("Colour &scale"), this);
    rangeLabel->setBuddy(rangeBox_);
    rangeBox_->addItem(tr("Automatic"), static_cast<int>(qkv::ColorRange::Mode::Automatic));
    rangeBox_->addItem(tr("0 to 1"), static_cast<int>(qkv::ColorRange::Mode::UnitInterval));
    rangeBox_->addItem(tr("Fixed"), static_cast<int>(qkv::ColorRange::Mode::Fixed));
    rangeBox_->setToolTip(
        tr("Automatic: weights and value-weighted norms from 0 to their 99th percentile, scores ±their "
           "largest magnitude (the colour bar says which).\n0 to 1: the whole range of a weight "
           "(scores: −1 to 1; value-weighted norms, which have no upper bound: 0 to the largest).\n"
           "Fixed: from the low to the high value; values beyond saturate.\n"
           "Exported figures use the same scale."));
    for (QDoubleSpinBox* box : {lowBox_, highBox_}) {
        box->setRange(-1e6, 1e6);
        box->setDecimals(3);
        box->setSingleStep(0.05);
        box->setAccelerated(true);
    }
    lowBox_->setPrefix(tr("from "));
    highBox_->setPrefix(tr("to "));
    auto makeButton = [this](const QString& text, const QString& tip) {
        auto* button = new QToolButton(this);
        button->setText(text);
        button->setToolTip(tip);
        button->setAutoRaise(true);
        return button;
    };
    QToolButton* zoomOut = makeButton(QStringLiteral("−"), tr("Zoom out (Ctrl+wheel)"));
    QToolButton* zoomIn = makeButton(QStringLiteral("+"), tr("Zoom in (Ctrl+wheel)"));
    QToolButton* zoomFit = makeButton(tr("Fit"), tr("Fit all heads in the window"));
    zoomLabel_->setMinimumWidth(zoomLabel_->fontMetrics().horizontalAdvance(QStringLiteral("1600 %")));
    second->addWidget(rangeLabel);
    second->addWidget(rangeBox_);
    second->addWidget(lowBox_);
    second->addWidget(highBox_);
    second->addWidget(blockMaximaBox_);  // no spacer: hidden, it takes no room at 1000 x 700
    second->addSpacing(12);
    auto* queriesLabel = new QLabel(tr("&Queries"), this);
    queriesLabel->setBuddy(queriesBox_);
    queriesBox_->setPlaceholderText(tr("120 or 120:180"));
    queriesBox_->setMaximumWidth(queriesBox_->fontMetrics().horizontalAdvance(QStringLiteral("00000:00000")) + 16);
    queriesTip_ = tr("The selected query, or several together: first:end (end excluded, as\n"
                     "export --rows). Their mean attention row and its maximum are drawn\n"
                     "beneath the grid. Shift-click or drag over rows selects them too.");
    queriesBox_->setToolTip(queriesTip_);
    second->addWidget(queriesLabel);
    second->addWidget(queriesBox_);
    second->addStretch(1);
    second->addWidget(zoomOut);
    second->addWidget(zoomLabel_);
    second->addWidget(zoomIn);
    second->addWidget(zoomFit);

    connect(kindBox_, &QComboBox::currentIndexChanged, this,
            [this](int index) { setScoreKind(static_cast<ScoreKind>(kindBox_->itemData(index).toInt())); });
    connect(colormapBox_, &QComboBox::currentIndexChanged, this,
            [this](int index) { setColormap(static_cast<ColormapName>(colormapBox_->itemData(index).toInt())); });
    connect(averageBox_, &QCheckBox::toggled, this, &HeadsView::setShowAverage);
    connect(blockMaximaBox_, &QCheckBox::toggled, this, &HeadsView::setBlockMaxima);
    connect(queriesBox_, &QLineEdit::editingFinished, this, &HeadsView::selectTypedQueries);
    connect(selection(), &HeadSelection::cellChanged, this, &HeadsView::showQueries);
    connect(selection(), &HeadSelection::querySpanChanged, this, &HeadsView::showQueries);
    connect(rangeBox_, &QComboBox::currentIndexChanged, this, [this](int index) {
        qkv::ColorRange range = colorRange_;
        range.mode = static_cast<qkv::ColorRange::Mode>(rangeBox_->itemData(index).toInt());
        if (range.mode == qkv::ColorRange::Mode::Fixed && canvas_->figure()) {
            // Fixing starts from the scale shown now, which the user then edits.
            range.low = canvas_->figure()->minValue();
            range.high = canvas_->figure()->maxValue();
        }
        setColorRange(range);
    });
    const auto fixedValuesEdited = [this] {
        if (!(lowBox_->value() < highBox_->value())) return;  // wait for a valid pair
        setColorRange({qkv::ColorRange::Mode::Fixed, lowBox_->value(), highBox_->value()});
    };
    connect(lowBox_, &QDoubleSpinBox::valueChanged, this, fixedValuesEdited);
    connect(highBox_, &QDoubleSpinBox::valueChanged, this, fixedValuesEdited);
    connect(zoomIn, &QToolButton::clicked, this, [this] { zoomBy(1); });
    connect(zoomOut, &QToolButton::clicked, this, [this] { zoomBy(-1); });
    connect(zoomFit, &QToolButton::clicked, this, &HeadsView::zoomToFit);
    return toolbar;
}

QString HeadsView::title() const { return tr("&Heads"); }
QString HeadsView::summary() const
{
    return tr(
        "Every head's attention weights (or scores, or value-weighted attention) side by side, with per-head "
        "statistics");
}

void HeadsView::setScoreKind(ScoreKind kind)
{
    if (kind == kind_) return;
    kind_ = kind;
    {
        const QSignalBlocker blocker(kindBox_);
        kindBox_->setCurrentIndex(kindBox_->findData(static_cast<int>(kind)));
    }
    setColormap(colormapOf(kind));
    showColorRange();
    invalidate();
    emit optionsChanged();
}

ColormapName HeadsView::colormap() const { return canvas_->colormap(); }

ColormapName& HeadsView::colormapOf(ScoreKind kind)
{
    switch (kind) {
    case ScoreKind::Attention: return weightsColormap_;
    case ScoreKind::ValueWeighted: return normsColormap_;
    case ScoreKind::ScaledScores:
    case ScoreKind::MaskedScores: break;
    }
    return scoresColormap_;
}

void HeadsView::setColormap(ColormapName colormap)
{
    colormapOf(kind_) = colormap;
    {
        const QSignalBlocker blocker(colormapBox_);
        colormapBox_->setCurrentIndex(colormapBox_->findData(static_cast<int>(colormap)));
    }
    detail_->setColormap(colormap);
    if (canvas_->colormap() == colormap) return;
    canvas_->setColormap(colormap);
    emit optionsChanged();
}

void HeadsView::setShowAverage(bool show)
{
    if (show == average_) return;
    average_ = show;
    const QSignalBlocker blocker(averageBox_);
    averageBox_->setChecked(show);
    invalidate();
    emit optionsChanged();
}

void HeadsView::setBlockMaxima(bool maxima)
{
    if (maxima == blockMaxima_) return;
    blockMaxima_ = maxima;
    const QSignalBlocker blocker(blockMaximaBox_);
    blockMaximaBox_->setChecked(maxima);
    invalidate();
    emit optionsChanged();
}

void HeadsView::setColorRange(const qkv::ColorRange& range)
{
    if (range.mode == qkv::ColorRange::Mode::Fixed && !(range.low < range.high)) return;
    if (range == colorRange_) return;
    colorRange_ = range;
    showColorRange();
    invalidate();
    emit optionsChanged();
}

void HeadsView::showColorRange()
{
    const QSignalBlocker b1(rangeBox_), b2(lowBox_), b3(highBox_);
    // "0 to 1" is the whole range of a weight; scores get the symmetric -1 to 1, and norms,
    // which have no upper bound, 0 to the largest shown.
    const bool norms = kind_ == ScoreKind::ValueWeighted;
    rangeBox_->setItemText(1, kind_ == ScoreKind::Attention ? tr("0 to 1") : norms ? tr("0 to max") : tr("−1 to 1"));
    averageBox_->setToolTip(norms ? tr("Adds a heatmap of the whole layer: ‖Σ a·f(x)‖ over the heads switched on "
                                       "(the norm of the sum, not the mean of the heads' norms).")
                                  : tr("Adds a heatmap of the mean over all heads."));
    rangeBox_->setCurrentIndex(rangeBox_->findData(static_cast<int>(colorRange_.mode)));
    const bool fixed = colorRange_.mode == qkv::ColorRange::Mode::Fixed;
    lowBox_->setVisible(fixed);
    highBox_->setVisible(fixed);
    lowBox_->setValue(colorRange_.low);
    highBox_->setValue(colorRange_.high);
}

void HeadsView::setHeadTitles(const QStringList& titles)
{
    if (titles == headTitles_) return;
    headTitles_ = titles;
    invalidate();
}

HeadsFigureSpec HeadsView::figureSpec() const { return {kind_, average_, colorRange_, headTitles_, blockMaxima_}; }

void HeadsView::saveOptions(qkv::ViewOptions& view) const
{
    view.show = scoreKindId(kind_).toStdString();
    view.colormap = Colormap::get(colormap()).id().toStdString();
    view.averageOfHeads = average_;
    view.blockMaxima = blockMaxima_;
    view.colorRange = colorRange_;
    view.zoom = canvas_->zoom();
}

void HeadsView::restoreOptions(const qkv::ViewOptions& view)
{
    ScoreKind kind = ScoreKind::Attention;
    if (scoreKindFromId(QString::fromStdString(view.show), kind)) setScoreKind(kind);
    ColormapName colormap = defaultColormap(kind);
    if (colormapFromId(QString::fromStdString(view.colormap), colormap)) setColormap(colormap);
    setShowAverage(view.averageOfHeads);
    setBlockMaxima(view.blockMaxima);
    if (std::isfinite(view.zoom) && view.zoom > 0) setZoom(view.zoom);
    setColorRange(view.colorRange);  // ignores a fixed range whose low is not below its high
}

int HeadsView::heatmapCount() const { return canvas_->panelCount(); }

void HeadsView::zoomBy(int steps) { setZoom(canvas_->zoom() * std::pow(1.25, steps)); }

void HeadsView::zoomToFit() { setZoom(1.0); }

double HeadsView::zoom() const { return canvas_->zoom(); }

void HeadsView::setZoom(double zoom)
{
    const double before = canvas_->zoom();
    canvas_->setZoom(zoom);
    updateZoomLabel();
    if (canvas_->zoom() != before) emit optionsChanged();
}

void HeadsView::updateZoomLabel()
{
    zoomLabel_->setText(QStringLiteral("%1 %").arg(std::lround(canvas_->zoom() * 100)));
    zoomLabel_->setAlignment(Qt::AlignCenter);
}

void HeadsView::showHint(bool longLayer)
{
    hint_->setText(longLayer ? tr("A long layer: each head in blocks of positions · hover a block for its mean and "
                                  "largest weight · click to select it, shift-click or drag for several · beneath, the "
                                  "selected query's whole row and a region, exact: click a key to go there, wheel or "
                                  "drag to zoom")
                             : tr("Hover a cell for its numbers · hover a query label to follow its row in every "
                                  "head · click to select a head and cell · shift-click or drag over rows selects "
                                  "several queries · arrows move the cell · [ and ] change head · Ctrl+wheel zooms"));
}

void HeadsView::showQueries()
{
    const HeadSelection* s = selection();
    queriesBox_->setText(s->hasQuerySpan() ? QStringLiteral("%1:%2").arg(s->queryRow()).arg(s->querySpanEnd())
                                           : QString::number(s->queryRow()));
    queriesBox_->setStyleSheet(QString());
    queriesBox_->setToolTip(queriesTip_);
    updateDetail();
}

void HeadsView::selectTypedQueries()
{
    if (!result()) return;
    const auto span = qkv::parseQuerySpan(queriesBox_->text().toStdString(), result()->attention.queryCount());
    if (!span) {
        // Said where the user typed; the selection stays as it was.
        queriesBox_->setStyleSheet(QStringLiteral("QLineEdit { border: 2px solid #c0392b; }"));
        queriesBox_->setToolTip(QString::fromStdString(span.error()));
        QToolTip::showText(queriesBox_->mapToGlobal(QPoint(0, queriesBox_->height())),
                           QString::fromStdString(span.error()), queriesBox_);
        return;
    }
    selection()->setQuerySpan(static_cast<int>(span->first), static_cast<int>(span->second));
    showQueries();
}

// A long layer's exact detail, or a held layer's span row (the grid shows its cells already).
void HeadsView::updateDetail()
{
    const bool longLayer = result() && result()->streamed();
    const bool shown = longLayer || (result() && selection()->hasQuerySpan());
    detail_->setResult(shown ? result() : nullptr);
    detail_->setVisible(shown);
}

void HeadsView::refresh(Changes)
{
    statistics_->setResult(result());
    const bool longLayer = result() && result()->streamed();
    updateDetail();
    showHint(longLayer);
    if (!result()) {
        figures_.cancel();
        return;
    }
    const std::shared_ptr<const qkv::Result> r = result();
    blockMaximaBox_->setVisible(r->streamed());
    const HeadsFigureSpec spec = figureSpec();
    // A long layer's panels are its pooled blocks.
    const double rows = r->streamed() ? r->streamedHeads.front().pooled.mean.rows() : r->queryInput.rows();
    const double columns = r->streamed() ? r->streamedHeads.front().pooled.mean.cols() : r->keyValueInput.rows();
    const double cells = rows * columns * static_cast<double>(r->config.headCount + (average_ ? 1 : 0));
    // Value-weighted norms are computed once per result (value_norms_cache.hpp); the first time
    // for a large layer, on the work pool.
    const bool normsToCompute = spec.kind == ScoreKind::ValueWeighted && !hasValueNorms(r) &&
                                placementFor(valueNormsMultiplyAdds(*r)) == LatestTaskBase::Run::InBackground;
    if (cells <= kAsynchronousCells && !normsToCompute) {
        figures_.cancel();  // a large figure still on its way is stale now
        canvas_->setFigure(std::make_shared<const HeadsFigure>(r, spec));
        return;
    }
    // The figure and its colour images (cached in it) on the work pool; the canvas only reads
    // the finished figure.
    figures_.request([r, spec, colormap = canvas_->colormap()] {
        auto figure = std::make_shared<const HeadsFigure>(r, spec);
        figure->prepareImages(colormap);
        return figure;
    });
}

bool HeadsView::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == scroll_->viewport() && event->type() == QEvent::Resize) {
        // Lay out for the space the scroll area has without its scroll bars.
        QSize size = scroll_->maximumViewportSize();
        canvas_->setAvailableSize(size);
        if (canvas_->height() > size.height()) {
            size.rwidth() -= scroll_->verticalScrollBar()->sizeHint().width();
            canvas_->setAvailableSize(size);
        }
    }
    return QWidget::eventFilter(watched, event);
}

QSize HeadsView::sizeHint() const { return {900, 700}; }

}  // namespace qkv::ui
