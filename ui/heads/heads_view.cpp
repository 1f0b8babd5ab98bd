#include "ui/heads/heads_view.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>

#include <cmath>
#include <utility>

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
      statisticsTimer_(new QTimer(this)),
      figures_([this](std::shared_ptr<const HeadsFigure> figure) {
          canvas_->setFigure(std::move(figure));
          if (!statisticsAfterFigure_) return;
          statisticsAfterPaint_ = std::exchange(statisticsAfterFigure_, nullptr);
          statisticsTimer_->start(100);
      })
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addLayout(makeToolbar());

    scroll_->setWidget(canvas_);
    scroll_->setAccessibleName(tr("Heads grid"));
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
    hint_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    layout->addWidget(hint_);
    // Beside the grid, the statistics' few rows leave room under them: the hint goes there and
    // the grid keeps the whole height. Under the grid, the hint is under everything.
    connect(statistics_, &HeadStatisticsTable::footerPlaced, this, [this, layout](bool underTable) {
        if (underTable)
            layout->removeWidget(hint_);
        else
            layout->addWidget(hint_);
    });
    statistics_->setFooter(hint_);

    connect(canvas_, &HeadsCanvas::zoomRequested, this, &HeadsView::zoomBy);
    // The statistics of a new result once the window has painted its grid (refresh() says why):
    // the timer's next turn after the canvas's paint, which is one part of the window's; or after
    // a moment if the grid is not painted (scrolled away, covered).
    statisticsTimer_->setSingleShot(true);
    connect(canvas_, &HeadsCanvas::painted, this, [this] {
        if (statisticsAfterPaint_) statisticsTimer_->start(0);
    });
    connect(statisticsTimer_, &QTimer::timeout, this, [this] {
        if (statisticsAfterPaint_) statistics_->setResult(std::exchange(statisticsAfterPaint_, nullptr));
    });
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
    statisticsAfterFigure_.reset();
    statisticsAfterPaint_.reset();
    statisticsTimer_->stop();
    const bool longLayer = result() && result()->streamed();
    updateDetail();
    showHint(longLayer);
    if (!result()) {
        figures_.cancel();
        statistics_->setResult(nullptr);
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
        statistics_->setResult(r);
        canvas_->setFigure(std::make_shared<const HeadsFigure>(r, spec));
        return;
    }
    // The grid first: its figure's panels take both cores of the pool (forEachOnIdleThreads), and
    // once it is delivered, its repaint (whose large fills Qt splits over its own pool, waiting
    // for them); the statistics follow. A new statistics request only for a new result
    // (HeadStatisticsTable::setResult ignores the same one).
    if (r != statistics_->result()) statisticsAfterFigure_ = r;
    // The figure and its colour images (cached in it) on the work pool; the canvas only reads
    // the finished figure.
    // The panels keep their size on screen when the new figure has the shape of the shown one
    // (a new seed, a head edited): their reduced images are made on the pool too, so painting
    // only draws them (heads_grid.cpp asks for the same size).
    QSize shownPixels;
    if (const auto& shown = canvas_->figure(); shown && shown->rows() == static_cast<int>(rows) &&
                                               shown->columns() == static_cast<int>(columns) &&
                                               canvas_->gridLayout().cellSize > 0) {
        const double scale = canvas_->devicePixelRatioF() * canvas_->gridLayout().cellSize;
        shownPixels = QSize(static_cast<int>(std::round(columns * scale)), static_cast<int>(std::round(rows * scale)));
    }
    figures_.request([r, spec, colormap = canvas_->colormap(), shownPixels] {
        auto figure = std::make_shared<const HeadsFigure>(r, spec);
        figure->prepareImages(colormap, shownPixels);
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
