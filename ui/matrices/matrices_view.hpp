#pragma once
// "Matrices" tab: the layer as the data flows (matrices_figures.hpp), live. Hover gives a
// matrix's stored value, clicking a row selects that query (or key) for every view, clicking a
// row block of W^O selects its head; ↑↓ move the query, ←→ the key. Pictures are rebuilt
// through a LatestTask (in the background for big layers) when the result or the head changes;
// a change of query or key only repaints.

#include "ui/matrices/matrices_figures.hpp"
#include "ui/matrices/matrices_model.hpp"
#include "ui/views/model_view.hpp"

namespace qkv::ui {

class MatricesView : public ModelView<MatricesModel> {
    Q_OBJECT
public:
    explicit MatricesView(HeadSelection* selection, QWidget* parent = nullptr);

    // The tab a session names and its figures' view (ResultView::id()).
    static constexpr QLatin1String kId = kMatricesViewId;
    QString title() const override;
    QString summary() const override;
    QString id() const override { return kId; }

    MatricesGeometry geometry() const;
    QString toolTipAt(const QPointF& position) const override;

protected:
    void refresh(Changes changes) override;
    void paintModel(QPainter& painter, const QRectF& rect) override;
    void clickAt(const QPointF& position) override;

private:
    // The tooltip of matrix `m`'s entry (row, column), HTML.
    QString cellTip(LayerMatrix m, qkv::Index row, qkv::Index column) const;
    // Screen readers: the selected head's A_i as a table (matrices_view.cpp says why).
    void makeAccessibleTable();
};

}  // namespace qkv::ui
