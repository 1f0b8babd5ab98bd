#pragma once
// "Matrices" tab: the layer as the data flows (matrices_figures.hpp), live. Hover gives a
// matrix's stored value, clicking a row selects that query (or key) for every view, clicking a
// row block of W^O selects its head; ↑↓ move the query, ←→ the key. Pictures are rebuilt
// through a LatestTask (in the background for big layers) when the result or the head changes;
// a change of query or key only repaints.

#include <memory>

#include "ui/matrices/matrices_figures.hpp"
#include "ui/matrices/matrices_model.hpp"
#include "ui/views/latest_task.hpp"
#include "ui/views/result_view.hpp"

class QComboBox;

namespace qkv::ui {

class FigureCanvas;
class HeadSelection;

class MatricesView : public ResultView {
    Q_OBJECT
public:
    explicit MatricesView(HeadSelection* selection, QWidget* parent = nullptr);
    ~MatricesView() override;

    // The tab a session names and its figures' view (ResultView::id()).
    static constexpr QLatin1String kId{"matrices"};
    QString title() const override;
    QString id() const override { return kId; }

    const std::shared_ptr<const MatricesModel>& model() const { return model_; }
    FigureCanvas* canvas() const { return canvas_; }
    QComboBox* headBox() const { return headBox_; }
    MatricesGeometry geometry() const;
    QString toolTipAt(const QPointF& position) const;
    // Pictures are being built off the GUI thread.
    bool isBusy() const { return build_.isBusy(); }

    // Above this many matrix entries the pictures are built in the background.
    static constexpr double kAsynchronousWork = 2e6;

signals:
    void modelReady();

protected:
    void refresh(Changes changes) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void showModel(std::shared_ptr<const MatricesModel> model);
    void clickAt(const QPointF& position);
    void fillHeads();

    std::shared_ptr<const MatricesModel> model_;
    QComboBox* headBox_;
    FigureCanvas* canvas_;
    LatestTask<std::shared_ptr<const MatricesModel>> build_;
};

}  // namespace qkv::ui
