#pragma once
// "Q/K map" tab (issue 8, section 4): the selected head's map (left) beside every head's as
// small multiples (right), painted by the figure painters of qk_map_figures.hpp. Clicking a
// query or key point picks it for every view, clicking a small multiple picks its head; ↑↓ move
// the query, ←→ the key. The projections of all heads are computed through a LatestTask (in
// the background for big layers) when the result changes; a change of head or cell repaints.

#include <memory>

#include "ui/qkmap/qk_map_figures.hpp"
#include "ui/qkmap/qk_map_model.hpp"
#include "ui/views/latest_task.hpp"
#include "ui/views/result_view.hpp"

class QComboBox;

namespace qkv::ui {

class FigureCanvas;
class HeadSelection;

class QkMapView : public ResultView {
    Q_OBJECT
public:
    explicit QkMapView(HeadSelection* selection, QWidget* parent = nullptr);
    ~QkMapView() override;

    // The tab a session names and its figures' view (ResultView::id()).
    static constexpr QLatin1String kId{"qk-map"};
    QString title() const override;
    QString id() const override { return kId; }

    const std::shared_ptr<const QkMapModel>& model() const { return model_; }
    FigureCanvas* canvas() const { return canvas_; }
    QComboBox* headBox() const { return headBox_; }
    bool isBusy() const { return build_.isBusy(); }
    // The two halves of the canvas and their geometry (widget coordinates).
    QRectF headRect() const;
    QRectF headsRect() const;
    QkMapGeometry headGeometry() const;
    QkHeadsGeometry headsGeometry() const;

    // Above this many flops the projections are computed in the background.
    static constexpr double kAsynchronousWork = 4e6;

signals:
    void modelReady();

protected:
    void refresh(Changes changes) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void showModel(std::shared_ptr<const QkMapModel> model);
    void clickAt(const QPointF& position);
    QString toolTipAt(const QPointF& position) const;
    void fillHeads();

    std::shared_ptr<const QkMapModel> model_;
    QComboBox* headBox_;
    FigureCanvas* canvas_;
    LatestTask<std::shared_ptr<const QkMapModel>> build_;
};

}  // namespace qkv::ui
