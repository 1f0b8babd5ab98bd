#pragma once
// The one way to build a view that draws a model made from the Result (the Matrices, Q/K map,
// Compare and Weights tabs; the Train and whole-model views to come). The base owns what those
// views used to repeat:
//   - the model (a shared, immutable object the view paints and hit-tests), built through one
//     latest-only task: inline while its work is under the app's one limit
//     (work_placement.hpp), else on the pool; a newer request drops an older one;
//   - the canvas that paints it, with "Computing…" or "No result yet." while there is none;
//   - the head box ("Head 2 (switched off)") and its bar, for the views that have one;
//   - the arrow keys that move the selected query and key.
// A view keeps only what is its own: how it builds its model (requestModel), how it paints it
// (paintModel), its tooltips and its clicks.

#include <QSize>

#include <functional>
#include <memory>
#include <utility>

#include "ui/background/latest_task.hpp"
#include "ui/background/release_later.hpp"
#include "ui/background/work_placement.hpp"
#include "ui/views/result_view.hpp"

class QHBoxLayout;
class QPainter;

namespace qkv::ui {

class FigureCanvas;
class HeadBox;

// The part that needs no model type: widgets, placeholder, events (model_view.cpp).
class ModelViewBase : public ResultView {
    Q_OBJECT
public:
    FigureCanvas* canvas() const { return canvas_; }
    // Null when the view has no head box.
    HeadBox* headBox() const { return headBox_; }
    // The model is being built off the GUI thread.
    virtual bool isBusy() const = 0;

signals:
    // A new model is shown (built inline or delivered from the pool).
    void modelReady();

protected:
    // The canvas's size hints, and its name for screen readers.
    struct CanvasSpec {
        QSize preferred{1100, 720};
        QSize minimum{520, 400};
        QString accessibleName;
    };
    ModelViewBase(HeadSelection* selection, Changes follows, const CanvasSpec& canvas, QWidget* parent);

    // Creates headBox(), for a view that lays it out itself.
    HeadBox* makeHeadBox(const QString& toolTip);
    // "H&ead [box]" then a grey hint; creates headBox(). The caller puts the bar in its layout.
    QHBoxLayout* makeHeadBar(const QString& headToolTip, const QString& hint);
    // ↑↓ move the selected query, ←→ the key (Home/End: first/last key) while the canvas has
    // the focus.
    void moveCellWithArrowKeys();
    // Refills the head box on a new result; call first in refresh().
    void showHeads(Changes changes);

    virtual bool hasModel() const = 0;
    // Paints the model into `rect` (the canvas's coordinates); called only when hasModel().
    virtual void paintModel(QPainter& painter, const QRectF& rect) = 0;
    // HTML for a point of the canvas, its data escaped (shown_text.hpp); empty: no tooltip.
    virtual QString toolTipAt(const QPointF& position) const;
    // A left click on the canvas.
    virtual void clickAt(const QPointF& position);

    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void paintCanvas(QPainter& painter, const QRectF& rect);

    FigureCanvas* canvas_;
    HeadBox* headBox_ = nullptr;
    bool arrowKeys_ = false;
};

// The model's type: what requestModel builds and model() returns.
template <class Model>
class ModelView : public ModelViewBase {
public:
    using ModelPointer = std::shared_ptr<const Model>;

    const ModelPointer& model() const { return model_; }
    bool isBusy() const override { return build_.isBusy(); }

protected:
    using ModelViewBase::ModelViewBase;

    // Builds a model with `build` (any thread; captures its inputs by value) and shows it; the
    // work, in multiply-adds, decides whether it runs inline or on the pool.
    void requestModel(double multiplyAdds, std::function<ModelPointer()> build)
    {
        build_.request(std::move(build), placementFor(multiplyAdds));
    }
    // No result: drops the model and any build under way.
    void dropModel()
    {
        build_.cancel();
        releaseLater(std::move(model_));  // leaves model_ empty
        modelChanged();
    }
    // model() changed: repaints; a view with controls that depend on the model adds to it.
    virtual void modelChanged();

    bool hasModel() const override { return model_ != nullptr; }

private:
    void showModel(ModelPointer model)
    {
        releaseLater(std::exchange(model_, std::move(model)));
        modelChanged();
        emit modelReady();
    }

    ModelPointer model_;
    // Declared last: its destructor waits for a running build, which reads nothing of the view.
    LatestTask<ModelPointer> build_{[this](ModelPointer model) { showModel(std::move(model)); }};
};

// Repaints the canvas (out of line so this header need not include the canvas's).
void repaintCanvas(const ModelViewBase& view);

template <class Model>
void ModelView<Model>::modelChanged()
{
    repaintCanvas(*this);
}

}  // namespace qkv::ui
