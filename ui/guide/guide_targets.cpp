#include "ui/guide/guide_targets.hpp"

#include <QScrollArea>
#include <QScrollBar>
#include <QTabWidget>

#include "ui/circuits/circuits_view.hpp"
#include "ui/circuits/head_circuits_panel.hpp"
#include "ui/controls/controls_panel.hpp"
#include "ui/controls/sentence_field.hpp"
#include "ui/costs/cost_table.hpp"
#include "ui/costs/costs_view.hpp"
#include "ui/factored/factor_product_widget.hpp"
#include "ui/factored/factored_view.hpp"
#include "ui/figure_widgets/figure_canvas.hpp"
#include "ui/heads/heads_canvas.hpp"
#include "ui/heads/heads_view.hpp"
#include "ui/mainwindow/main_window.hpp"
#include "ui/mainwindow/view_tabs.hpp"
#include "ui/matrices/matrices_view.hpp"
#include "ui/modelgrid/model_grid_view.hpp"
#include "ui/patching/patching_panel.hpp"
#include "ui/predict/prediction_panel.hpp"
#include "ui/predict/prediction_view.hpp"
#include "ui/steps/step_view.hpp"

namespace qkv::ui {

QWidget* targetWidget(const MainWindow& window, GuideTarget target)
{
    ViewTabs* tabs = window.tabs();
    switch (target) {
    case GuideTarget::MatricesCanvas: return static_cast<MatricesView*>(tabs->view(MatricesView::kId))->canvas();
    case GuideTarget::StepCanvas: return tabs->stepView()->canvas();
    case GuideTarget::TargetSentence: return window.controls()->targetField();
    case GuideTarget::FactorProduct: return tabs->factoredView()->factorProduct();
    case GuideTarget::FusedLayout: return tabs->factoredView()->fusedLayout();
    case GuideTarget::CostTable: return tabs->costsView()->table();
    case GuideTarget::HeadsGrid: return tabs->headsView()->canvas();
    case GuideTarget::ModelGrid: return static_cast<ModelGridView*>(tabs->view(ModelGridView::kId))->gridCanvas();
    case GuideTarget::Predictions:
        return static_cast<PredictionView*>(tabs->view(PredictionView::kId))->predictionPanel();
    case GuideTarget::CircuitsHead: return static_cast<CircuitsView*>(tabs->view(CircuitsView::kId))->headPanel();
    case GuideTarget::PatchingGrids: return window.findChild<PatchingPanel*>();
    }
    return nullptr;
}

QRect targetFocus(const MainWindow& window, GuideTarget target, GuidePart part)
{
    if (part == GuidePart::ValueRows && target == GuideTarget::StepCanvas) {
        // Steps ⑦ and ⑧: the value rows v_j and the head's output, their weighted sum.
        const StepGeometry g = window.tabs()->stepView()->geometry();
        if (g.names.size() < 8) return {};
        const QRectF values = g.names[6] | g.valueLabels | g.valueCells | g.weightColumn | g.weightedCells | g.sumCells;
        return values.toAlignedRect().adjusted(-4, -4, 4, 4);
    }
    if (part == GuidePart::QueryAndHead && target == GuideTarget::MatricesCanvas) {
        // Q with head i's columns outlined, and Q_i beside it: names, shapes and cells.
        const MatricesGeometry g = static_cast<MatricesView*>(window.tabs()->view(MatricesView::kId))->geometry();
        const auto at = [&](LayerMatrix m) {
            const auto i = static_cast<std::size_t>(m);
            return g.labels[i] | g.cells[i];
        };
        const QRectF both = at(LayerMatrix::Query) | at(LayerMatrix::QueryHead);
        return both.isEmpty() ? QRect() : both.toAlignedRect().adjusted(-4, -4, 4, 4);
    }
    return {};
}

QRect visibleRect(const QWidget& widget, const QWidget& window)
{
    if (!widget.isVisible()) return {};
    QRect visible(widget.mapTo(&window, QPoint(0, 0)), widget.size());
    for (const QWidget* parent = widget.parentWidget(); parent && parent != &window; parent = parent->parentWidget())
        visible &= QRect(parent->mapTo(&window, QPoint(0, 0)), parent->size());
    return visible & window.rect();
}

void scrollIntoView(QWidget& widget, const QRect& focus)
{
    // Innermost first: an outer area then scrolls to where the inner one has put the widget.
    for (QWidget* parent = widget.parentWidget(); parent; parent = parent->parentWidget()) {
        // A page of tabs inside a view (the Circuits tab's pages): the one holding the widget.
        if (auto* pages = qobject_cast<QTabWidget*>(parent)) {
            for (int i = 0; i < pages->count(); ++i)
                if (pages->widget(i) == &widget || pages->widget(i)->isAncestorOf(&widget)) pages->setCurrentIndex(i);
            continue;
        }
        auto* area = qobject_cast<QScrollArea*>(parent);
        QWidget* content = area ? area->widget() : nullptr;
        if (!content || !content->isAncestorOf(&widget)) continue;  // e.g. in a scroll bar
        // Not ensureWidgetVisible(): it centres a widget taller than the viewport, and every
        // figure starts at its top.
        const QRect part = focus.isEmpty() ? widget.rect() : focus;
        const QRect wanted(widget.mapTo(content, part.topLeft()), part.size());
        const QSize viewport = area->viewport()->size();
        QScrollBar* vertical = area->verticalScrollBar();
        if (wanted.top() < vertical->value() || wanted.bottom() > vertical->value() + viewport.height())
            vertical->setValue(wanted.top());
        QScrollBar* horizontal = area->horizontalScrollBar();
        if (wanted.left() < horizontal->value() || wanted.right() > horizontal->value() + viewport.width())
            horizontal->setValue(wanted.left());
    }
}

}  // namespace qkv::ui
