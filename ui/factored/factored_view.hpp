#pragma once
// The factored view of one head: why two thin matrices give the same scores as one
// full d_model x d_model matrix.
//
//   - W_i^Q, (W_i^K)^T and W_i = W_i^Q (W_i^K)^T as a matrix product, zoomable into W_i
//     (W_i is computed only at the drawn resolution, from the factors);
//   - the spectrum of W_i from the factors (log scale), the tolerance line, the numerical
//     rank, d_k and the Frobenius norm;
//   - the scores of the head computed both ways side by side with the maximum difference;
//   - the fused W^Q with each head's column block outlined.
//
// Reads a Result; never computes attention. Every figure is painted by a function of
// (QPainter&, QRectF) in factored_figures.hpp (the figure registry's factored figures);
// renderFigure() paints all four.

#include <memory>
#include <utility>
#include <vector>

#include "core/pipeline/compute.hpp"
#include "ui/background/latest_task.hpp"
#include "ui/background/offscreen_figure.hpp"
#include "ui/factored/factored_figures.hpp"
#include "core/factored/matrix_pooling.hpp"
#include "ui/views/result_view.hpp"

class QLabel;
class QPushButton;

namespace qkv::ui {

struct FactoredHeadModel;
class FactorProductWidget;
class FigureCanvas;
class HeadBox;
class SpectrumChart;

// Follows the selected head; its head box sets the selection (so every view follows).
class FactoredView : public ResultView {
    Q_OBJECT
public:
    explicit FactoredView(HeadSelection* selection = nullptr, QWidget* parent = nullptr);
    ~FactoredView() override;

    // The tab a session names and its figures' view (ResultView::id()).
    static constexpr QLatin1String kId = kFactoredViewId;
    QString title() const override;
    QString summary() const override;
    QString id() const override { return kId; }

    // Selects `head` for every view that shares the selection.
    void setSelectedHead(int head);
    // The head shown: the selection's, clamped to the result's heads.
    int selectedHead() const { return head_; }

    // What is shown (for tests and the host's status bar).
    Index displayedRank() const;
    Index displayedHeadDimension() const;  // d_k
    double displayedFrobeniusNorm() const;
    double displayedMaxDifference() const;  // core's equivalence report
    // The scores both ways need the dense W_i (O(d_model^2 d_k)); above the app's limit
    // (work_placement.hpp) they are computed off the GUI thread and the panel says so until
    // they arrive. So are the factors and spectrum (double-precision QRs and an SVD).
    bool equivalencePending() const;
    QString headline() const;         // the title and the trade-off under it, as shown
    QString statisticsText() const;   // the numbers under the spectrum, as shown
    QString equivalenceText() const;  // the sentence(s) under the two score maps
    // Columns [first, first + width) of W^Q per head, and their outlines in the fused
    // figure's widget coordinates (same computation as painting).
    std::vector<std::pair<Index, Index>> headPartition() const;
    std::vector<QRectF> headOutlines() const;
    MatrixWindow zoomWindow() const;
    // The zoomed block of W_i, for an export of the factor product.
    void saveFigureOptions(FigureOptions& options) const override;
    void setZoomWindow(const MatrixWindow& window);

    SpectrumChart* spectrumChart() const { return spectrum_; }
    FactorProductWidget* factorProduct() const { return product_; }
    FigureCanvas* fusedLayout() const { return fused_; }
    const FactoredHeadModel* model() const { return model_.get(); }

    // All four figures into `target` on any paint device (PNG, SVG, PDF export).
    void renderFigure(QPainter& painter, const QRectF& target) const;

    QSize sizeHint() const override { return {1400, 900}; }

signals:
    // The scores both ways are shown (at once for small d_model, later for large).
    void equivalenceReady();

protected:
    void refresh(Changes changes) override;

private:
    void rebuild();
    void updateStatistics();
    void showFactors(std::shared_ptr<const FactoredHeadModel> model);
    void showScores(std::shared_ptr<const FactoredHeadModel> model);

    std::shared_ptr<const FactoredHeadModel> model_;
    int head_ = 0;

    QLabel* title_ = nullptr;
    QLabel* tradeOff_ = nullptr;
    HeadBox* headBox_ = nullptr;
    QPushButton* resetZoom_ = nullptr;
    FactorProductWidget* product_ = nullptr;
    FigureCanvas* fused_ = nullptr;
    SpectrumChart* spectrum_ = nullptr;
    QLabel* statistics_ = nullptr;
    FigureCanvas* equivalence_ = nullptr;
    // The factors and spectrum, then the scores both ways (last members: destroyed, and their
    // work ended, first).
    LatestTask<std::shared_ptr<const FactoredHeadModel>> factors_;
    LatestTask<std::shared_ptr<const FactoredHeadModel>> scores_;
    // `canvas` paints `paint` of the shown model through `image`, on the pool when `work` is large.
    void paintOffscreen(FigureCanvas* canvas, OffscreenFigure& image, double (*work)(const FactoredHeadModel&),
                        void (*paint)(QPainter&, const QRectF&, const FactoredHeadModel&, const FigurePalette&));

    std::unique_ptr<OffscreenFigure> fusedImage_;  // the fused layout, painted off the GUI thread when large
    std::unique_ptr<OffscreenFigure> equivalenceImage_;  // the scores both ways, likewise
};

}  // namespace qkv::ui
