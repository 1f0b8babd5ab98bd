#include "ui/patching/logit_lens_panel.hpp"

#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>

#include "ui/figure_widgets/chart_view.hpp"
#include "ui/patching/patch_grid_canvas.hpp"
#include "ui/predict/prediction_data.hpp"
#include "ui/render/chart_model.hpp"

namespace qkv::ui {

LogitLensPanel::LogitLensPanel(QWidget* parent)
    : QWidget(parent), status_(new QLabel(this)), grid_(new PatchGridCanvas(QSize(560, 360), this)),
      chart_(new ChartView(this))
{
    status_->setTextFormat(Qt::PlainText);
    status_->setWordWrap(true);
    status_->setAccessibleName(tr("Logit lens status"));
    grid_->setAccessibleName(tr("Logit lens grid"));
    grid_->setMinimumHint(QSize(320, 220));
    chart_->setAccessibleName(tr("Answer probability per layer"));
    grid_->setToolTipFunction([this](const QPointF& position) { return toolTipAt(position); });
    grid_->setCellName([this](int row, int column) {
        if (!lens_ || column >= static_cast<int>(lens_->layers.size())) return QString();
        const qkv::PositionPredictions& p =
            lens_->layers[static_cast<std::size_t>(column)].positions[static_cast<std::size_t>(row)];
        return tr("Position %1, after layer %2: top 5 %3")
            .arg(row)
            .arg(layerLabel(*lens_->overview, column), topFiveText(*lens_->overview->model, p));
    });
    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(grid_);
    splitter->addWidget(chart_);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setChildrenCollapsible(false);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(status_);
    layout->addWidget(splitter, 1);
    status_->setText(tr("Open a causal language model to see what it would predict after each layer."));
}

void LogitLensPanel::setOverview(std::shared_ptr<const qkv::ModelOverview> overview)
{
    if (overview == overview_) return;
    overview_ = std::move(overview);
    request();
}

void LogitLensPanel::setAnswer(std::int32_t answer)
{
    if (answer == answer_) return;
    answer_ = answer;
    request();
}

void LogitLensPanel::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (pending_) request();
}

void LogitLensPanel::request()
{
    pending_ = overview_ && !isVisible();
    if (pending_) {
        task_.cancel();
        return;
    }
    if (!overview_) {
        task_.cancel();
        lens_.reset();
        grid_->setData(nullptr);
        status_->setText(tr("Open a causal language model to see what it would predict after each layer."));
        return;
    }
    status_->setText(tr("Reading every layer through the readout…"));
    task_.request([overview = overview_, answer = answer_] { return logitLensShown(overview, answer); });
}

void LogitLensPanel::deliver(qkv::Expected<LogitLensShown> lens)
{
    if (!lens) {
        lens_.reset();
        grid_->setData(nullptr);
        chart_->setModel(ChartModel{});
        status_->setText(tr("No logit lens: %1").arg(QString::fromStdString(lens.error())));
        emit lensShown();
        return;
    }
    lens_ = std::make_shared<const LogitLensShown>(std::move(*lens));
    grid_->setData(std::make_shared<const PatchGridData>(logitLensGridData(*lens_)));
    chart_->setModel(answerProbabilityChart(*lens_));
    status_->setText(tr("What the model would predict if it stopped after each layer; hover a cell for its top 5."));
    PatchingShown shown = shownPatching();
    shown.lens = lens_;
    setShownPatching(std::move(shown));
    emit lensShown();
}

QString LogitLensPanel::toolTipAt(const QPointF& position) const
{
    const TableCell cell = grid_->cellAt(position);
    if (!lens_ || !cell.valid() || cell.column >= static_cast<int>(lens_->layers.size())) return {};
    const qkv::PositionPredictions& p =
        lens_->layers[static_cast<std::size_t>(cell.column)].positions[static_cast<std::size_t>(cell.row)];
    return tr("<b>Position %1, after layer %2</b><br>%3")
        .arg(cell.row)
        .arg(layerLabel(*lens_->overview, cell.column).toHtmlEscaped(),
             topFiveText(*lens_->overview->model, p).toHtmlEscaped());
}

ChartModel answerProbabilityChart(const LogitLensShown& lens)
{
    ChartModel model;
    const QString token = PredictedTokenNames(*lens.overview->model).of(lens.answer);
    model.title = QObject::tr("Probability of «%1» at the last position after each layer").arg(token);
    model.x.title = QObject::tr("after layer (model order)");
    model.x.minimum = -0.25;
    model.x.maximum = static_cast<double>(lens.answerProbability.size()) - 0.75;
    for (std::size_t l = 0; l < lens.answerProbability.size(); ++l) model.x.ticks.push_back(static_cast<double>(l));
    model.y.title = QObject::tr("probability");
    model.y.minimum = 0.0;
    model.y.maximum = 1.0;
    model.y.ceiling = 1.0;
    ChartSeries line = ChartSeries::of(QObject::tr("«%1»").arg(token), QColor(0x21, 0x66, 0xac), ChartSeries::Kind::Line);
    for (std::size_t l = 0; l < lens.answerProbability.size(); ++l)
        line.points.emplace_back(static_cast<double>(l), lens.answerProbability[l]);
    model.series.push_back(std::move(line));
    return model;
}

}  // namespace qkv::ui
