#pragma once
// "Q/K map" tab: the selected head's map (left) beside every head's as
// small multiples (right), painted by the figure painters of qk_map_figures.hpp. Clicking a
// query or key point picks it for every view, clicking a small multiple picks its head; ↑↓ move
// the query, ←→ the key. The projections of all heads are computed through a LatestTask (in
// the background for big layers) when the result changes; a change of head or cell repaints.

#include "ui/qkmap/qk_map_figures.hpp"
#include "ui/qkmap/qk_map_model.hpp"
#include "ui/views/model_view.hpp"

namespace qkv::ui {

class QkMapView : public ModelView<QkMapModel> {
    Q_OBJECT
public:
    explicit QkMapView(HeadSelection* selection, QWidget* parent = nullptr);

    // The tab a session names and its figures' view (ResultView::id()).
    static constexpr QLatin1String kId = kQkMapViewId;
    QString title() const override;
    QString summary() const override;
    QString id() const override { return kId; }

    // The two halves of the canvas and their geometry (widget coordinates).
    QRectF headRect() const;
    QRectF headsRect() const;
    QkMapGeometry headGeometry() const;
    QkHeadsGeometry headsGeometry() const;
    QString toolTipAt(const QPointF& position) const override;

protected:
    void refresh(Changes changes) override;
    void paintModel(QPainter& painter, const QRectF& rect) override;
    void clickAt(const QPointF& position) override;
};

}  // namespace qkv::ui
