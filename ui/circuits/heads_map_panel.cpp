#include "ui/circuits/heads_map_panel.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>

#include <cmath>
#include <new>

#include "ui/circuits/heads_map_figure.hpp"
#include "ui/figure_widgets/figure_canvas.hpp"
#include "ui/figures/shown_text.hpp"
#include "ui/modelgrid/model_grid_text.hpp"
#include "ui/predict/prediction_data.hpp"

namespace qkv::ui {

HeadsMapPanel::HeadsMapPanel(QWidget* parent)
    : QWidget(parent), axes_(chosenHeadsMapAxes()), xBox_(new QComboBox(this)), yBox_(new QComboBox(this)),
      compute_(new QPushButton(tr("Compute ablation effects"), this)), stop_(new QPushButton(tr("Stop"), this)),
      bar_(new QProgressBar(this)), status_(new QLabel(this)), canvas_(new FigureCanvas(QSize(700, 520), this)),
      timer_(new QTimer(this))
{
    QHBoxLayout* bar = makeToolbar();
    status_->setTextFormat(Qt::PlainText);
    status_->setWordWrap(true);
    canvas_->setMinimumHint(QSize(360, 280));
    canvas_->setAccessibleName(tr("Every head placed by what it does"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(status_);
    layout->addWidget(canvas_, 1);

    canvas_->setPaint([this](QPainter& painter, const QRectF& rect) {
        if (!overview_) return;
        FigureOptions options = widgetFigureOptions(*canvas_);
        options.showSelection = true;
        paintHeadsMap(painter, rect, data_, modelShapeLine(*overview_), options, selected_);
    });
    canvas_->setToolTipFunction([this](const QPointF& position) { return toolTipAt(position); });
    connect(canvas_, &FigureCanvas::clicked, this, [this](QPointF position) {
        const qkv::ModelHead head = headAt(position);
        if (head.layer >= 0) emit headClicked(head);
    });
    const auto chosen = [this] {
        setAxes({static_cast<HeadsMapAxis>(xBox_->currentData().toInt()),
                 static_cast<HeadsMapAxis>(yBox_->currentData().toInt())});
    };
    connect(xBox_, &QComboBox::currentIndexChanged, this, chosen);
    connect(yBox_, &QComboBox::currentIndexChanged, this, chosen);
    connect(compute_, &QPushButton::clicked, this, &HeadsMapPanel::computeAblation);
    connect(stop_, &QPushButton::clicked, this, &HeadsMapPanel::stopAblation);
    timer_->setInterval(100);
    connect(timer_, &QTimer::timeout, this, [this] {
        if (!progress_ || progress_->total == 0) return;
        bar_->setRange(0, static_cast<int>(progress_->total));
        bar_->setValue(static_cast<int>(progress_->done));
    });
    setAxes(axes_);
    updateControls();
}

QHBoxLayout* HeadsMapPanel::makeToolbar()
{
    for (QComboBox* box : {xBox_, yBox_})
        for (const HeadsMapAxis axis : kHeadsMapAxes) box->addItem(headsMapAxisId(axis), static_cast<int>(axis));
    xBox_->setToolTip(tr("What the horizontal axis measures"));
    yBox_->setToolTip(tr("What the vertical axis measures"));
    compute_->setToolTip(
        tr("Switch each head off in turn and re-run the model from its layer: how much the "
           "probability of the predicted next token changes (Predict's head ranking)"));
    auto* bar = new QHBoxLayout;
    auto* xLabel = new QLabel(tr("x"), this);
    xLabel->setBuddy(xBox_);
    auto* yLabel = new QLabel(tr("y"), this);
    yLabel->setBuddy(yBox_);
    bar->addWidget(xLabel);
    bar->addWidget(xBox_);
    bar->addSpacing(8);
    bar->addWidget(yLabel);
    bar->addWidget(yBox_);
    bar->addSpacing(12);
    bar->addWidget(compute_);
    bar->addWidget(stop_);
    bar->addWidget(bar_, 1);
    bar->addStretch(1);  // the boxes keep their size while the progress bar is hidden
    bar_->hide();
    return bar;
}

HeadsMapPanel::~HeadsMapPanel()
{
    if (progress_) progress_->stop = true;
}

void HeadsMapPanel::setData(std::shared_ptr<const qkv::ModelOverview> overview,
                            std::shared_ptr<const qkv::MatrixD> copying, qkv::ModelHead selected)
{
    // Another sentence or model: a ranking under way answers an old question.
    if (overview != overview_ && rankingPending_) {
        if (progress_) progress_->stop = true;
        ranking_.cancel();
        progress_.reset();
        rankingPending_ = false;
    }
    overview_ = std::move(overview);
    copying_ = std::move(copying);
    selected_ = selected;
    rebuild();
}

void HeadsMapPanel::setAxes(HeadsMapAxes axes)
{
    axes_ = axes;
    setChosenHeadsMapAxes(axes);
    for (auto [box, axis] : {std::pair{xBox_, axes.x}, std::pair{yBox_, axes.y}}) {
        const QSignalBlocker blocker(box);
        box->setCurrentIndex(box->findData(static_cast<int>(axis)));
    }
    rebuild();
}

void HeadsMapPanel::rebuild()
{
    const std::shared_ptr<const AblationEffects> ablation = storedAblationEffects(overview_);
    data_ = overview_ ? headsMapData(*overview_, copying_.get(), ablation.get(), axes_) : HeadsMapData{};
    updateControls();
    canvas_->update();
}

void HeadsMapPanel::computeAblation()
{
    if (!overview_ || rankingPending_) return;
    const qkv::Index position = defaultPredictionPosition(*overview_);
    const qkv::PositionPredictions* top = nullptr;
    for (const qkv::PositionPredictions& p : overview_->baselinePredictions)
        if (p.position == position && !p.top.empty()) top = &p;
    if (!top) {
        problem_ = tr("The model predicts nothing here: there is no readout, or no position to predict at.");
        updateControls();
        return;
    }
    const std::int32_t id = top->top.front().id;
    const QString token = PredictedTokenNames(*overview_->model).of(id);
    problem_.clear();
    progress_ = std::make_shared<Progress>();
    rankingPending_ = true;
    ranking_.request([overview = overview_, position, id, token, progress = progress_] {
        Outcome outcome;
        try {
            qkv::Expected<std::vector<qkv::HeadEffect>> ranked =
                qkv::rankHeadsAtPosition(*overview, position, id, [&progress](qkv::Index done, qkv::Index total) {
                    progress->done = done;
                    progress->total = total;
                    return !progress->stop.load();
                });
            if (ranked)
                outcome.effects = {overview, position, token, std::move(*ranked)};
            else
                outcome.problem =
                    progress->stop ? tr("Stopped; nothing ranked.") : QString::fromStdString(ranked.error());
        } catch (const std::bad_alloc&) {
            outcome.problem = tr("Not enough memory to rank the heads on this sentence: shorten it.");
        }
        return outcome;
    });
    bar_->setRange(0, 0);
    timer_->start();
    updateControls();
}

void HeadsMapPanel::stopAblation()
{
    if (progress_) progress_->stop = true;
}

void HeadsMapPanel::deliver(Outcome outcome)
{
    timer_->stop();
    progress_.reset();
    rankingPending_ = false;
    problem_ = outcome.problem;
    if (outcome.problem.isEmpty()) {
        storeAblationEffects(std::move(outcome.effects));
        // The ablation effect is what was asked for: show it on an axis.
        if (axes_.x != HeadsMapAxis::Ablation && axes_.y != HeadsMapAxis::Ablation)
            return setAxes({HeadsMapAxis::Ablation, axes_.y});
    }
    rebuild();
}

void HeadsMapPanel::updateControls()
{
    const bool ranking = rankingPending_;
    compute_->setEnabled(overview_ && !ranking);
    stop_->setVisible(ranking);
    bar_->setVisible(ranking);
    QString text = problem_;
    if (ranking) text = tr("Switching each head off in turn and re-running the model…");
    status_->setText(text);
    status_->setVisible(!text.isEmpty());
}

qkv::ModelHead HeadsMapPanel::headAt(const QPointF& position) const
{
    if (!overview_) return {-1, -1};
    const HeadsMapLayout layout(canvas_->figureRect(), data_, modelShapeLine(*overview_),
                                QFontMetricsF(canvas_->font(), canvas_));
    const int index = layout.pointAt(data_, position);
    return index < 0 ? qkv::ModelHead{-1, -1} : data_.points[static_cast<std::size_t>(index)].head;
}

QPoint HeadsMapPanel::pointCenter(qkv::ModelHead head) const
{
    if (!overview_) return {-1, -1};
    const HeadsMapLayout layout(canvas_->figureRect(), data_, modelShapeLine(*overview_),
                                QFontMetricsF(canvas_->font(), canvas_));
    for (const HeadPoint& point : data_.points)
        if (point.head == head) return layout.frame().toPoint(point.x, point.y).toPoint();
    return {-1, -1};
}

QString HeadsMapPanel::toolTipAt(const QPointF& position) const
{
    const qkv::ModelHead head = headAt(position);
    if (head.layer < 0) return {};
    const std::shared_ptr<const AblationEffects> ablation = storedAblationEffects(overview_);
    QStringList lines{tr("<b>Head %1</b>").arg(modelHeadName(overview_->layer(head.layer), head.head))};
    for (const HeadsMapAxis axis : kHeadsMapAxes) {
        const double value = headsMapValue(*overview_, copying_.get(), ablation.get(), axis, head);
        if (std::isfinite(value))
            lines << QStringLiteral("%1: %2").arg(headsMapAxisId(axis), QString::number(value, 'f', 3));
    }
    lines << tr("click: open it in This head");
    return lines.join(QStringLiteral("<br>"));
}

}  // namespace qkv::ui
