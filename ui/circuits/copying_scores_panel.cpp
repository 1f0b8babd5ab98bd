#include "ui/circuits/copying_scores_panel.hpp"

#include <QLabel>
#include <QProgressBar>
#include <QVBoxLayout>

#include <cmath>

#include "ui/accessibility/cell_table.hpp"
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
    canvas_->setCellTable(accessibleTable());
}

// The grid as a screen reader reads it: layers x heads, each cell the tooltip's words; the
// selected head is the current cell.
CellTable CopyingScoresPanel::accessibleTable() const
{
    const auto shown = [this] { return overview_ && scores_; };
    CellTable table;
    table.caption = [] { return tr("Copying score of every head"); };
    table.rowCount = [this, shown] { return shown() ? static_cast<int>(scores_->rows()) : 0; };
    table.columnCount = [this, shown] { return shown() ? static_cast<int>(scores_->cols()) : 0; };
    table.rowHeader = [this](int row) {
        return tr("Layer %1").arg(copyingGridData(*overview_, *scores_).layerNames.value(row));
    };
    table.columnHeader = [](int column) { return tr("Head %1").arg(column + 1); };
    table.cellName = [this](int row, int column) {
        return tr("Head %1: %2")
            .arg(modelHeadName(overview_->layer(row), column), copyingScoreWords((*scores_)(row, column)));
    };
    table.currentCell = [this, shown] {
        return shown() && selected_.layer >= 0
                   ? TableCell{static_cast<int>(selected_.layer), static_cast<int>(selected_.head)}
                   : TableCell{};
    };
    return table;
}

void CopyingScoresPanel::setScores(std::shared_ptr<const qkv::ModelOverview> overview,
                                   std::shared_ptr<const qkv::MatrixD> scores, qkv::ModelHead selected)
{
    overview_ = std::move(overview);
    scores_ = std::move(scores);
    selected_ = selected;
    canvas_->announceTableChanged();
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
