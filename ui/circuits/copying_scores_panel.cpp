#include "ui/circuits/copying_scores_panel.hpp"

#include <QLabel>
#include <QProgressBar>
#include <QVBoxLayout>

#include <cmath>

#include "ui/circuits/circuit_figures.hpp"
#include "ui/circuits/copying_grid_figure.hpp"
#include "ui/circuits/eigenvalue_figure.hpp"
#include "ui/figure_widgets/figure_canvas.hpp"
#include "ui/modelgrid/model_grid_text.hpp"

namespace qkv::ui {

CopyingScoresPanel::CopyingScoresPanel(QWidget* parent)
    : QWidget(parent), status_(new QLabel(this)), bar_(new QProgressBar(this)),
      canvas_(new FigureCanvas(QSize(640, 480), this))
{
    status_->setTextFormat(Qt::PlainText);
    status_->setWordWrap(true);
    bar_->hide();
    canvas_->setMinimumHint(QSize(320, 240));
    canvas_->setAccessibleName(tr("Copying score of every head"));
    auto* hint = new QLabel(tr("Hover a cell for its head's score · click one to open that head in This head"), this);
    hint->setWordWrap(true);
    hint->setForegroundRole(QPalette::PlaceholderText);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(status_);
    layout->addWidget(bar_);
    layout->addWidget(canvas_, 1);
    layout->addWidget(hint);
    canvas_->setPaint([this](QPainter& painter, const QRectF& rect) {
        if (!overview_ || !scores_) return;
        FigureOptions options = widgetFigureOptions(*canvas_);
        options.showSelection = true;
        paintCopyingGrid(painter, rect, copyingGridData(*overview_, *scores_), options, selected_);
    });
    canvas_->setToolTipFunction([this](const QPointF& position) { return toolTipAt(position); });
    connect(canvas_, &FigureCanvas::clicked, this, [this](QPointF position) {
        const qkv::ModelHead head = headAt(position);
        if (head.layer >= 0) emit headClicked(head);
    });
}

void CopyingScoresPanel::setScores(std::shared_ptr<const qkv::ModelOverview> overview,
                                   std::shared_ptr<const qkv::MatrixD> scores, qkv::ModelHead selected)
{
    overview_ = std::move(overview);
    scores_ = std::move(scores);
    selected_ = selected;
    canvas_->update();
}

void CopyingScoresPanel::setProgress(qkv::Index done, qkv::Index total, const QString& status)
{
    status_->setText(status);
    status_->setVisible(!status.isEmpty());
    bar_->setVisible(!status.isEmpty() && !scores_);
    bar_->setRange(0, static_cast<int>(total));  // 0, 0: busy without a count
    bar_->setValue(static_cast<int>(done));
}

qkv::ModelHead CopyingScoresPanel::headAt(const QPointF& position) const
{
    if (!overview_ || !scores_) return {-1, -1};
    const CopyingGridLayout layout(canvas_->figureRect(), copyingGridData(*overview_, *scores_),
                                   QFontMetricsF(canvas_->font(), canvas_));
    const qkv::ModelHead head = layout.headAt(position);
    if (head.layer < 0 || !std::isfinite((*scores_)(head.layer, head.head))) return {-1, -1};
    return head;
}

QPoint CopyingScoresPanel::cellCenter(qkv::ModelHead head) const
{
    if (!overview_ || !scores_ || head.layer < 0 || head.layer >= scores_->rows() || head.head >= scores_->cols())
        return {-1, -1};
    const CopyingGridLayout layout(canvas_->figureRect(), copyingGridData(*overview_, *scores_),
                                   QFontMetricsF(canvas_->font(), canvas_));
    return layout.cell(head.layer, head.head).center().toPoint();
}

QString CopyingScoresPanel::toolTipAt(const QPointF& position) const
{
    const qkv::ModelHead head = headAt(position);
    if (head.layer < 0) return {};
    return tr("<b>Head %1</b><br>%2")
        .arg(modelHeadName(overview_->layer(head.layer), head.head),
             copyingScoreWords((*scores_)(head.layer, head.head)).toHtmlEscaped());
}

}  // namespace qkv::ui
