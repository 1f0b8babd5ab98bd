#pragma once
// The "Heads" tab: what to show (weights / scaled scores / scores after mask / value-weighted
// attention), colormap, average of heads (or the whole layer), zoom, and the scrollable grid of heatmaps. Its options live in the session
// (saveOptions / restoreOptions), nowhere else; its View menu entries are its own.

#include <memory>

#include "core/pipeline/compute.hpp"
#include "core/session/session.hpp"
#include "ui/background/latest_task.hpp"
#include "ui/heads/heads_figure.hpp"
#include "ui/heads/heads_figures.hpp"
#include "ui/heads/score_kind.hpp"
#include "ui/render/colormap.hpp"
#include "ui/views/result_view.hpp"

class QAction;
class QActionGroup;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QLayout;
class QScrollArea;
class QTimer;

namespace qkv::ui {

class HeadsCanvas;
class HeadStatisticsTable;
class LongLayerDetail;
class HeadSelection;

// The canvas follows the selection itself (highlights only), so the view refreshes for a new
// result or its own options.
class HeadsView : public ResultView {
    Q_OBJECT
public:
    explicit HeadsView(HeadSelection* selection, QWidget* parent = nullptr);

    // The tab a session names and its figures' view (ResultView::id()).
    static constexpr QLatin1String kId = kHeadsViewId;
    QString title() const override;
    QString summary() const override;
    QString id() const override { return kId; }
    // A long layer is drawn in blocks (pooled_panels.hpp), with the selected query's exact row and
    // an exact region beneath (long_layer_detail.hpp).
    bool drawsLongLayers() const override { return true; }
    void saveOptions(qkv::ViewOptions& view) const override;
    void restoreOptions(const qkv::ViewOptions& view) override;
    // Show, Colormap, Average of Heads, zoom (heads_view_actions.cpp).
    QList<QAction*> viewMenuActions() const override { return menuActions_; }
    // Each score kind keeps the colormap last chosen for it while the app runs (weights and
    // value-weighted norms start sequential, scores diverging); the session stores the one shown.
    void setScoreKind(ScoreKind kind);
    ScoreKind scoreKind() const { return kind_; }
    void setColormap(ColormapName colormap);
    ColormapName colormap() const;
    void setShowAverage(bool show);
    bool showAverage() const { return average_; }
    // A long layer's blocks: each one's largest weight (true) or its mean.
    void setBlockMaxima(bool maxima);
    bool blockMaxima() const { return blockMaxima_; }
    // The colour scale of the heads figures, on screen and in exports: automatic
    // (0 to the 99th percentile for weights and norms), 0 to 1 (norms: 0 to their largest), or
    // fixed values.
    void setColorRange(const qkv::ColorRange& range);
    const qkv::ColorRange& colorRange() const { return colorRange_; }
    // "Head 1 · same meaning" per head (empty: "Head i"), for the panels' titles.
    void setHeadTitles(const QStringList& titles);
    // What the heads figures show, as the figures and the session name it.
    HeadsFigureSpec figureSpec() const;
    void zoomBy(int steps);
    void zoomToFit();
    void setZoom(double zoom);
    double zoom() const;

    HeadsCanvas* canvas() const { return canvas_; }
    HeadStatisticsTable* statisticsTable() const { return statistics_; }
    LongLayerDetail* longLayerDetail() const { return detail_; }
    QScrollArea* scrollArea() const { return scroll_; }
    // Number of heatmaps drawn (heads, plus one when the average is shown).
    int heatmapCount() const;
    // A large figure is being drawn off the GUI thread (the grid shows the previous one meanwhile).
    bool isBusy() const { return figures_.isBusy(); }
    // Cells (all panels) above which a new figure's colour images are made off the GUI thread:
    // one colour per cell, ~0.1 s at 4096 x 4096.
    static constexpr double kAsynchronousCells = 1e6;

    QSize sizeHint() const override;

protected:
    void refresh(Changes changes) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QLayout* makeToolbar();
    void makeMenuActions();    // heads_view_actions.cpp
    void showOptionsInMenu();  // heads_view_actions.cpp: checks the entries the options match
    void updateZoomLabel();
    void showColorRange();
    void showHint(bool longLayer);  // what the mouse does, on the grid or on a long layer
    void showQueries();             // the selection in queriesBox_
    void selectTypedQueries();      // queriesBox_'s text as the selection, or why not
    void updateDetail();            // the detail beneath the grid: a long layer's, or a span's row
    ColormapName& colormapOf(ScoreKind kind);  // the one remembered for `kind`

    ScoreKind kind_ = ScoreKind::Attention;
    ColormapName weightsColormap_ = defaultColormap(ScoreKind::Attention);
    ColormapName scoresColormap_ = defaultColormap(ScoreKind::ScaledScores);
    ColormapName normsColormap_ = defaultColormap(ScoreKind::ValueWeighted);
    bool average_ = false;
    bool blockMaxima_ = false;
    qkv::ColorRange colorRange_;
    QStringList headTitles_;
    QComboBox* kindBox_;
    QComboBox* colormapBox_;
    QCheckBox* averageBox_;
    QCheckBox* blockMaximaBox_;  // shown for a long layer only
    QLineEdit* queriesBox_;      // the selected query or span, typed as 120 or 120:180
    QString queriesTip_;         // its tool tip while what it holds is valid
    QComboBox* rangeBox_;
    QDoubleSpinBox* lowBox_;
    QDoubleSpinBox* highBox_;
    QLabel* zoomLabel_;
    QScrollArea* scroll_;
    HeadsCanvas* canvas_;
    HeadStatisticsTable* statistics_;  // beside the grid (head_statistics_table.hpp)
    LongLayerDetail* detail_;          // beneath it, for a long layer only (long_layer_detail.hpp)
    QLabel* hint_;
    QList<QAction*> menuActions_;
    QActionGroup* kindActions_ = nullptr;      // data: the ScoreKind
    QActionGroup* colormapActions_ = nullptr;  // data: the ColormapName
    QAction* averageAction_ = nullptr;
    // Large figures with their images made (last member: destroyed, and its work ended, first).
    // The result whose statistics are requested when the figure on its way is delivered.
    std::shared_ptr<const qkv::Result> statisticsAfterFigure_;
    // Then the result whose statistics are requested when the grid has painted its figure, or
    // when the timer ends first.
    std::shared_ptr<const qkv::Result> statisticsAfterPaint_;
    QTimer* statisticsTimer_;
    LatestTask<std::shared_ptr<const HeadsFigure>> figures_;
};

}  // namespace qkv::ui
