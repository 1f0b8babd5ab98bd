#pragma once
// The "Model" tab: the whole model at a glance on the typed sentences. Left, every attention
// layer x every head as small maps (model_grid_figure.hpp); right (below on a narrow window),
// the per-head statistics of every layer as four layers x heads heatmaps
// (model_statistics_figure.hpp). It draws WholeModelRuns' overview, not the Result's one layer,
// and says why when there is none.
//
// Hover: a head's layer, kind and statistics, and in a map the cell's tokens and weight. Click a
// map or a statistic: openLayerRequested (the window opens that layer and head in every view).
// Right-click: switch the head off or back on, anywhere in the model (WholeModelRuns).

#include <memory>

#include "core/pipeline/model_overview.hpp"
#include "ui/figures/figure.hpp"
#include "ui/modelgrid/model_grid_figures.hpp"
#include "ui/modelgrid/model_grid_text.hpp"
#include "ui/views/result_view.hpp"

class QComboBox;
class QLabel;
class QMenu;
class QPushButton;
class QScrollArea;
class QSplitter;
class QStackedWidget;

namespace qkv::ui {

class FigureCanvas;
class WholeModelRuns;

class ModelGridView : public ResultView {
    Q_OBJECT
public:
    ModelGridView(HeadSelection* selection, WholeModelRuns* runs, QWidget* parent = nullptr);
    // "Choose tokenizer.json…", shown under the message of a checkpoint without its tokenizer.
    QPushButton* tokenizerButton() const { return tokenizerButton_; }

    static constexpr QLatin1String kId = kModelViewId;
    QString title() const override;
    QString summary() const override;
    QString id() const override { return kId; }
    void saveFigureOptions(FigureOptions& options) const override;
    // The heads switched off anywhere in the model (shared with the Predict tab) are kept here.
    void saveOptions(qkv::ViewOptions& options) const override;
    void restoreOptions(const qkv::ViewOptions& options) override;

    // Show: value-weighted norms ||a_qj f(x_j)|| instead of attention weights (asks WholeModelRuns
    // for the value norms).
    void setValueWeighted(bool valueWeighted);
    bool valueWeighted() const { return valueWeighted_; }
    // Cells: one pixel per map cell (the grid grows and scrolls), or pooled to fit the window.
    void setOnePixelPerCell(bool onePixel);
    bool onePixelPerCell() const { return onePixel_; }

    WholeModelRuns* runs() const { return runs_; }
    FigureCanvas* gridCanvas() const { return grid_; }
    FigureCanvas* statisticsCanvas() const { return statistics_; }
    // What the tab says instead of the figures ("" while it shows them).
    QString placeholderText() const;
    // "Running the model…" while a newer overview is computed, else "".
    QString busyText() const;

    // For tests and keyboard users: the centre of a map cell (grid canvas coordinates) and of a
    // statistic cell (statistics canvas coordinates); (-1, -1) without an overview.
    QPoint mapCellCenter(qkv::ModelHead head, qkv::Index query, qkv::Index key) const;
    QPoint statisticCellCenter(ModelStatistic statistic, qkv::ModelHead head) const;
    QString gridToolTipAt(const QPointF& position) const;
    QString statisticsToolTipAt(const QPointF& position) const;
    // The head's context menu ("Switch head 3.2 off" / "… back on"), owned by `parent`.
    QMenu* makeHeadMenu(qkv::ModelHead head, QWidget* parent);

    QSize sizeHint() const override { return {1100, 720}; }

signals:
    // Open `layer` of `model`'s checkpoint in every view, with head `head` (0-based) selected.
    void openLayerRequested(std::shared_ptr<const qkv::PretrainedModel> model, qkv::CheckpointLayer layer, int head);

protected:
    void refresh(Changes changes) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void makeToolbar();
    FigureInput figureInput() const;
    double minimumThumbnail() const;
    void showState();
    void updateGridSize();
    // Asks for the tokenizer file of a checkpoint whose folder has none (WholeModelRuns::chooseTokenizer).
    void chooseTokenizer();
    // Statistics beside the grid or below it, and the grid's share: whichever gives the maps more room.
    void chooseOrientation();
    // The statistics' smallest size: four small panels with their colour bars.
    static constexpr QSize kStatisticsMinimum{320, 220};
    double splitShare_ = 0.6;  // the grid's share of the splitter chosen last
    void openHead(qkv::ModelHead head);
    void showHeadMenu(qkv::ModelHead head, const QPoint& globalPosition);
    qkv::ModelHead gridHeadAt(const QPointF& position) const;
    qkv::ModelHead statisticHeadAt(const QPointF& position) const;

    WholeModelRuns* runs_;
    bool valueWeighted_ = false;
    bool onePixel_ = false;
    QComboBox* showBox_;
    QComboBox* cellsBox_;
    QLabel* busyLabel_;
    QStackedWidget* pages_;
    QWidget* placeholderPage_;  // the message and, for a checkpoint without its tokenizer, the button
    QLabel* placeholder_;
    QPushButton* tokenizerButton_;  // "Choose tokenizer.json…"
    QSplitter* body_;
    QScrollArea* scroll_;
    FigureCanvas* grid_;
    FigureCanvas* statistics_;
};

}  // namespace qkv::ui
