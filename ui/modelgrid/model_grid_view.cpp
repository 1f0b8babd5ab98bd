#include "ui/modelgrid/model_grid_view.hpp"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QPainter>
#include <QScrollArea>
#include <QSplitter>
#include <QStackedWidget>
#include <QVBoxLayout>

#include <algorithm>

#include "ui/document/head_selection.hpp"
#include "ui/figure_widgets/figure_canvas.hpp"
#include "ui/modelgrid/model_grid_figure.hpp"
#include "ui/modelgrid/model_grid_table.hpp"
#include "ui/modelgrid/model_statistics_figure.hpp"
#include "ui/wholemodel/whole_model_runs.hpp"

namespace qkv::ui {

ModelGridView::ModelGridView(HeadSelection* selection, WholeModelRuns* runs, QWidget* parent)
    : ResultView(selection, Change::Head, parent), runs_(runs), showBox_(new QComboBox(this)),
      cellsBox_(new QComboBox(this)), busyLabel_(new QLabel(this)), pages_(new QStackedWidget(this)),
      placeholderPage_(new QWidget(pages_)), placeholder_(new QLabel(placeholderPage_)),
      tokenizerButton_(new QPushButton(tr("Choose tokenizer.json…"), placeholderPage_)),
      body_(new QSplitter(Qt::Horizontal, pages_)), scroll_(new QScrollArea(body_)),
      grid_(new FigureCanvas(QSize(640, 600), scroll_)), statistics_(new FigureCanvas(QSize(480, 600), body_))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    makeToolbar();
    auto* toolbar = new QHBoxLayout;
    auto* showLabel = new QLabel(tr("Show"), this);
    showLabel->setBuddy(showBox_);
    auto* cellsLabel = new QLabel(tr("Cells"), this);
    cellsLabel->setBuddy(cellsBox_);
    toolbar->addWidget(showLabel);
    toolbar->addWidget(showBox_);
    toolbar->addSpacing(12);
    toolbar->addWidget(cellsLabel);
    toolbar->addWidget(cellsBox_);
    toolbar->addSpacing(12);
    toolbar->addWidget(busyLabel_, 1);
    layout->addLayout(toolbar);

    // Both quote data (a sentence the tokenizer refused, a file's path): shown as it is.
    placeholder_->setTextFormat(Qt::PlainText);
    busyLabel_->setTextFormat(Qt::PlainText);
    placeholder_->setAlignment(Qt::AlignCenter);
    placeholder_->setWordWrap(true);
    placeholder_->setMargin(24);
    placeholder_->setForegroundRole(QPalette::PlaceholderText);
    grid_->setMinimumHint(QSize(200, 200));
    grid_->setAccessibleName(tr("Every layer's attention maps"));
    statistics_->setMinimumHint(kStatisticsMinimum);
    statistics_->setAccessibleName(tr("Per-head statistics of every layer"));
    scroll_->setWidget(grid_);
    scroll_->setAccessibleName(tr("Every layer's heads"));
    scroll_->setWidgetResizable(true);
    scroll_->setFrameShape(QFrame::NoFrame);
    body_->addWidget(scroll_);
    body_->addWidget(statistics_);
    body_->setStretchFactor(0, 3);
    body_->setStretchFactor(1, 2);
    body_->setCollapsible(0, false);
    auto* placeholderLayout = new QVBoxLayout(placeholderPage_);
    placeholderLayout->addStretch(1);
    placeholderLayout->addWidget(placeholder_);
    placeholderLayout->addWidget(tokenizerButton_, 0, Qt::AlignHCenter);
    placeholderLayout->addStretch(1);
    tokenizerButton_->setToolTip(tr("Point at the model's tokenizer.json (or another tokenizer file of the model) "
                                    "where it is: the whole model is loaded with it and runs here"));
    connect(tokenizerButton_, &QPushButton::clicked, this, &ModelGridView::chooseTokenizer);
    pages_->addWidget(placeholderPage_);
    pages_->addWidget(body_);
    layout->addWidget(pages_, 1);
    auto* hint = new QLabel(tr("Hover a map or a statistic for its numbers · click one to open that layer and head in "
                               "every view · right-click to switch a head off or back on"),
                            this);
    hint->setWordWrap(true);
    hint->setForegroundRole(QPalette::PlaceholderText);
    layout->addWidget(hint);

    grid_->setPaint([this](QPainter& painter, const QRectF& rect) {
        if (runs_->overview() && result()) paintModelGrid(painter, rect, figureInput(), minimumThumbnail());
    });
    statistics_->setPaint([this](QPainter& painter, const QRectF& rect) {
        if (runs_->overview() && result()) paintModelStatistics(painter, rect, figureInput());
    });
    grid_->setToolTipFunction([this](const QPointF& position) { return gridToolTipAt(position); });
    statistics_->setToolTipFunction([this](const QPointF& position) { return statisticsToolTipAt(position); });
    connect(grid_, &FigureCanvas::clicked, this, [this](QPointF position) { openHead(gridHeadAt(position)); });
    connect(statistics_, &FigureCanvas::clicked, this, [this](QPointF position) { openHead(statisticHeadAt(position)); });
    for (FigureCanvas* canvas : {grid_, statistics_}) {
        canvas->setContextMenuPolicy(Qt::CustomContextMenu);
        connect(canvas, &QWidget::customContextMenuRequested, this, [this, canvas](const QPoint& position) {
            const qkv::ModelHead head = canvas == grid_ ? gridHeadAt(position) : statisticHeadAt(position);
            if (head.layer >= 0) showHeadMenu(head, canvas->mapToGlobal(position));
        });
    }
    const auto shown = [this] { return result() ? runs_->overview() : nullptr; };
    grid_->setCellTable(modelHeadsTable(shown, tr("Every layer's heads: layers on rows, heads on columns")));
    statistics_->setCellTable(modelHeadsTable(shown, tr("Per-head statistics: layers on rows, heads on columns")));
    connect(runs_, &WholeModelRuns::overviewChanged, this, [this] {
        grid_->announceTableChanged();
        statistics_->announceTableChanged();
    });
    connect(runs_, &WholeModelRuns::overviewChanged, this, &ModelGridView::showState);
    connect(runs_, &WholeModelRuns::busyChanged, this, &ModelGridView::showState);
    connect(runs_, &WholeModelRuns::headsOffChanged, this, &ModelGridView::showState);
    connect(runs_, &WholeModelRuns::headsOffChanged, this, &ResultView::optionsChanged);
    showState();
}

void ModelGridView::makeToolbar()
{
    showBox_->addItem(tr("Attention weights"));
    showBox_->addItem(tr("Value-weighted"));
    showBox_->setToolTip(tr("Attention weights: each head's softmax, rows sum to 1.\n"
                            "Value-weighted: ‖a_qj f(x_j)‖ with f(x_j) = (x_j W^V + b^V) W^O_i, how much of key j "
                            "actually reaches query q (Kobayashi et al. 2020); each map scaled to its own maximum."));
    cellsBox_->addItem(tr("Pooled to fit"));
    cellsBox_->addItem(tr("One pixel per cell"));
    cellsBox_->setToolTip(tr("Pooled to fit: every map fits the window; a map with more cells than pixels shows "
                             "block means.\nOne pixel per cell: every cell gets at least a pixel; the grid scrolls."));
    connect(showBox_, &QComboBox::currentIndexChanged, this, [this](int index) { setValueWeighted(index == 1); });
    connect(cellsBox_, &QComboBox::currentIndexChanged, this, [this](int index) { setOnePixelPerCell(index == 1); });
}

QString ModelGridView::title() const { return tr("Mode&l"); }

QString ModelGridView::summary() const
{
    return tr("The whole model at a glance: every layer's heads on the typed sentence, and their statistics");
}

void ModelGridView::saveFigureOptions(FigureOptions& options) const { options.valueWeighted = valueWeighted_; }

void ModelGridView::saveOptions(qkv::ViewOptions& options) const { options.modelHeadsOff = runs_->headsOffText(); }

void ModelGridView::restoreOptions(const qkv::ViewOptions& options) { runs_->restoreHeadsOff(options.modelHeadsOff); }

void ModelGridView::setValueWeighted(bool valueWeighted)
{
    if (valueWeighted == valueWeighted_) return;
    valueWeighted_ = valueWeighted;
    const QSignalBlocker blocker(showBox_);
    showBox_->setCurrentIndex(valueWeighted ? 1 : 0);
    invalidate();
}

void ModelGridView::setOnePixelPerCell(bool onePixel)
{
    if (onePixel == onePixel_) return;
    onePixel_ = onePixel;
    const QSignalBlocker blocker(cellsBox_);
    cellsBox_->setCurrentIndex(onePixel ? 1 : 0);
    updateGridSize();
    grid_->update();
}

void ModelGridView::refresh(Changes)
{
    if (result()) runs_->demand(valueWeighted_);
    showState();
}

FigureInput ModelGridView::figureInput() const
{
    FigureInput input;
    input.result = result();
    input.overview = runs_->overview();
    input.options = screenFigureOptions(*grid_, *selection());
    input.options.valueWeighted = valueWeighted_;
    return input;
}

double ModelGridView::minimumThumbnail() const
{
    const std::shared_ptr<const qkv::ModelOverview>& overview = runs_->overview();
    if (!onePixel_ || !overview) return 0;
    qkv::Index largest = 0;
    for (qkv::Index l = 0; l < overview->layerCount(); ++l) {
        const MapShape shape = mapShape(*overview, l);
        largest = std::max({largest, shape.queries, shape.keys});
    }
    // One device pixel per cell: the thumbnail's logical side times the screen's pixel ratio.
    return static_cast<double>(largest) / std::max(1.0, grid_->devicePixelRatioF());
}

QString ModelGridView::placeholderText() const
{
    if (runs_->overview()) return {};
    const QString open = tr("Open a model folder with File > Open Checkpoint… (BERT, RoBERTa, DistilBERT, GPT-2, "
                            "LLaMA, Mistral, Qwen2, Qwen3, Gemma 2 and 3, Phi-3, OLMo 2, GPT-NeoX, BART, Marian) to "
                            "see every layer here.");
    if (!result()) return tr("No result yet.");
    // A checkpoint was opened: say what it lacks, not how to open one.
    if (!runs_->model() && !runs_->missingTokenizer().isEmpty())
        return runs_->isBusy() ? tr("Loading the whole model with the tokenizer chosen…") : runs_->missingTokenizer();
    if (!runs_->model()) return runs_->problem().isEmpty() ? open : runs_->problem() + QStringLiteral("\n\n") + open;
    if (!runs_->problem().isEmpty()) return runs_->problem();
    return tr("Running the model…");
}

void ModelGridView::chooseTokenizer()
{
    const QString file = QFileDialog::getOpenFileName(
        this, tr("Choose the Model's Tokenizer"), QString(),
        tr("Tokenizer files (tokenizer.json vocab.json vocab.txt tokenizer.model spiece.model source.spm);;All files (*)"));
    if (!file.isEmpty()) runs_->chooseTokenizer(file);
}

QString ModelGridView::busyText() const
{
    return runs_->overview() && runs_->isBusy() ? tr("Running the model…") : QString();
}

void ModelGridView::showState()
{
    const QString text = placeholderText();
    placeholder_->setText(text);
    tokenizerButton_->setVisible(!runs_->model() && !runs_->missingTokenizer().isEmpty() && !runs_->isBusy());
    pages_->setCurrentWidget(text.isEmpty() ? body_ : placeholderPage_);
    busyLabel_->setText(busyText());
    chooseOrientation();
    updateGridSize();
    grid_->update();
    statistics_->update();
}

void ModelGridView::chooseOrientation()
{
    // The statistics beside the grid or below it, and the grid's share of the splitter: whichever
    // leaves the maps largest while the statistics keep their minimum (a model of few layers and
    // many heads is a wide grid, which the whole width suits). Without a model: beside on a wide
    // tab, below on a narrow one, 3 : 2.
    // The page's size: the splitter is laid out only once it is the page shown.
    const QSizeF tab = pages_->size().isEmpty() ? QSizeF(size()) : QSizeF(pages_->size());
    Qt::Orientation orientation = width() >= height() ? Qt::Horizontal : Qt::Vertical;
    double share = 0.6;
    if (const std::shared_ptr<const qkv::ModelOverview>& overview = runs_->overview(); overview && !onePixel_) {
        const QFontMetricsF metrics(grid_->font(), grid_);
        double best = -1;
        for (const Qt::Orientation candidate : {Qt::Horizontal, Qt::Vertical}) {
            const bool beside = candidate == Qt::Horizontal;
            const double length = beside ? tab.width() : tab.height();
            const double statisticsMinimum = beside ? kStatisticsMinimum.width() : kStatisticsMinimum.height();
            // The usual shares, and the one that leaves the statistics just their minimum.
            const double tightest = length > 0 ? 1.0 - (statisticsMinimum + 8) / length : 0.0;
            for (const double part : {0.5, 0.55, 0.6, 0.65, 0.7, tightest}) {
                if (part <= 0 || length * (1 - part) < statisticsMinimum) continue;
                const QSizeF gridSize = beside ? QSizeF(tab.width() * part, tab.height())
                                               : QSizeF(tab.width(), tab.height() * part);
                const double side = ModelGridLayout(QRectF(QPointF(0, 0), gridSize), *overview, metrics).thumbnailSide();
                // A larger map by a few percent is not worth the statistics' room.
                if (side > best * 1.05) {
                    best = side;
                    orientation = candidate;
                    share = part;
                }
            }
        }
    }
    if (orientation == body_->orientation() && share == splitShare_) return;
    body_->setOrientation(orientation);
    splitShare_ = share;
    const int length = static_cast<int>(orientation == Qt::Horizontal ? tab.width() : tab.height());
    const int grid = static_cast<int>(length * share);
    body_->setSizes({grid, length - grid});
}

void ModelGridView::updateGridSize()
{
    const std::shared_ptr<const qkv::ModelOverview>& overview = runs_->overview();
    QSize minimum(200, 200);
    if (overview && onePixel_) {
        const QSize viewport = scroll_->maximumViewportSize();
        const ModelGridLayout layout(QRectF(QPointF(0, 0), QSizeF(viewport)), *overview, QFontMetricsF(grid_->font(), grid_),
                                     minimumThumbnail());
        minimum = layout.size().toSize().expandedTo(minimum);
    }
    grid_->setMinimumSize(minimum);
}

void ModelGridView::resizeEvent(QResizeEvent* event)
{
    ResultView::resizeEvent(event);
    chooseOrientation();
    updateGridSize();
}

qkv::ModelHead ModelGridView::gridHeadAt(const QPointF& position) const
{
    const std::shared_ptr<const qkv::ModelOverview>& overview = runs_->overview();
    if (!overview) return {-1, -1};
    const ModelGridLayout layout(grid_->figureRect(), *overview, QFontMetricsF(grid_->font(), grid_), minimumThumbnail());
    return layout.headAt(position);
}

qkv::ModelHead ModelGridView::statisticHeadAt(const QPointF& position) const
{
    const std::shared_ptr<const qkv::ModelOverview>& overview = runs_->overview();
    if (!overview) return {-1, -1};
    const QFontMetricsF metrics(statistics_->font(), statistics_);
    StatisticHit hit;
    if (!statisticAt(ModelStatisticsLayout(statistics_->figureRect(), *overview, metrics), *overview, metrics, position, hit))
        return {-1, -1};
    return hit.head;
}

QString ModelGridView::gridToolTipAt(const QPointF& position) const
{
    const std::shared_ptr<const qkv::ModelOverview>& overview = runs_->overview();
    const qkv::ModelHead head = gridHeadAt(position);
    if (!overview || head.layer < 0) return {};
    const ModelGridLayout layout(grid_->figureRect(), *overview, QFontMetricsF(grid_->font(), grid_), minimumThumbnail());
    const QPoint cell = mapCellAt(layout, *overview, head, position);
    if (cell.x() < 0) return headToolTip(*overview, head.layer, head.head);
    return mapCellToolTip(*overview, head.layer, head.head, cell.y(), cell.x());
}

QString ModelGridView::statisticsToolTipAt(const QPointF& position) const
{
    const std::shared_ptr<const qkv::ModelOverview>& overview = runs_->overview();
    const qkv::ModelHead head = statisticHeadAt(position);
    if (!overview || head.layer < 0) return {};
    return headToolTip(*overview, head.layer, head.head);
}

QPoint ModelGridView::mapCellCenter(qkv::ModelHead head, qkv::Index query, qkv::Index key) const
{
    const std::shared_ptr<const qkv::ModelOverview>& overview = runs_->overview();
    if (!overview || head.layer < 0 || head.layer >= overview->layerCount()) return {-1, -1};
    const MapShape shape = mapShape(*overview, head.layer);
    if (shape.queries <= 0 || shape.keys <= 0) return {-1, -1};
    const ModelGridLayout layout(grid_->figureRect(), *overview, QFontMetricsF(grid_->font(), grid_), minimumThumbnail());
    const QRectF map = layout.mapRect(static_cast<int>(head.layer), static_cast<int>(head.head), shape.queries,
                                      shape.keys);
    const double w = map.width() / static_cast<double>(shape.keys);
    const double h = map.height() / static_cast<double>(shape.queries);
    return QPointF(map.left() + (static_cast<double>(key) + 0.5) * w, map.top() + (static_cast<double>(query) + 0.5) * h)
        .toPoint();
}

QPoint ModelGridView::statisticCellCenter(ModelStatistic statistic, qkv::ModelHead head) const
{
    const std::shared_ptr<const qkv::ModelOverview>& overview = runs_->overview();
    if (!overview) return {-1, -1};
    const QFontMetricsF metrics(statistics_->font(), statistics_);
    return qkv::ui::statisticCellCenter(ModelStatisticsLayout(statistics_->figureRect(), *overview, metrics), *overview,
                                        metrics, statistic, head)
        .toPoint();
}

void ModelGridView::openHead(qkv::ModelHead head)
{
    const std::shared_ptr<const qkv::ModelOverview> overview = runs_->overview();
    if (!overview || head.layer < 0 || head.layer >= overview->layerCount()) return;
    emit openLayerRequested(overview->model, overview->layer(head.layer).layer, static_cast<int>(head.head));
}

QMenu* ModelGridView::makeHeadMenu(qkv::ModelHead head, QWidget* parent)
{
    const std::shared_ptr<const qkv::ModelOverview>& overview = runs_->overview();
    if (!overview || head.layer < 0 || head.layer >= overview->layerCount()) return nullptr;
    auto* menu = new QMenu(parent);
    const QString name = modelHeadName(overview->layer(head.layer), head.head);
    const bool off = runs_->headsOff().count(head) > 0;
    menu->addAction(off ? tr("Switch head %1 back on").arg(name) : tr("Switch head %1 off").arg(name), this,
                    [this, head, off] { runs_->setHeadOff(head, !off); });
    if (!runs_->headsOff().empty())
        menu->addAction(tr("Switch every head back on"), this, [this] { runs_->setHeadsOff({}); });
    return menu;
}

void ModelGridView::showHeadMenu(qkv::ModelHead head, const QPoint& globalPosition)
{
    QMenu* menu = makeHeadMenu(head, this);
    if (!menu) return;
    menu->setAttribute(Qt::WA_DeleteOnClose);
    menu->popup(globalPosition);
}

}  // namespace qkv::ui
