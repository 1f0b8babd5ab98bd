#include "ui/figure_widgets/chart_view.hpp"

#include <QAbstractBarSeries>
#include <QBarLegendMarker>
#include <QBarSet>
#include <QContextMenuEvent>
#include <QCoreApplication>
#include <QCursor>
#include <QLegend>
#include <QLegendMarker>
#include <QMenu>
#include <QPointer>
#include <QTimer>
#include <QToolTip>
#include <QXYSeries>

#include <algorithm>
#include <cmath>
#include <deque>

#include "ui/figure_widgets/chart_table.hpp"
#include "ui/figures/shown_text.hpp"
#include "ui/render/chart_axes.hpp"
#include "ui/render/chart_builder.hpp"
#include "ui/render/chart_fitter.hpp"

namespace qkv::ui {
namespace {

ChartStyle styleOf(const QWidget* widget)
{
    ChartStyle style{widget->palette().color(QPalette::Text), widget->palette().color(QPalette::Base), widget->font()};
    style.paintedMarkers = true;  // on screen, many points are painted, never an item each
    return style;
}

const ChartSeries* modelSeries(const ChartModel& model, const QString& name)
{
    for (const ChartSeries& s : model.series)
        if (s.name == name) return &s;
    return nullptr;
}

// Visible charts waiting to be built, one per turn of the event loop, oldest first.
class BuildQueue : public QObject {
public:
    static BuildQueue* instance()
    {
        // Owned by the application (a static would outlive its event dispatcher).
        static QPointer<BuildQueue> queue;
        if (!queue) queue = new BuildQueue(QCoreApplication::instance());
        return queue;
    }
    void add(ChartView* view)
    {
        for (const QPointer<ChartView>& v : views_)
            if (v == view) return;
        views_.emplace_back(view);
        if (!timer_.isActive()) timer_.start();
    }
    bool pending() const
    {
        return std::any_of(views_.begin(), views_.end(), [](const QPointer<ChartView>& v) { return v && !v->isBuilt(); });
    }

private:
    explicit BuildQueue(QObject* parent) : QObject(parent)
    {
        timer_.setSingleShot(true);
        timer_.setInterval(0);
        connect(&timer_, &QTimer::timeout, this, &BuildQueue::buildNext);
    }
    void buildNext()
    {
        while (!views_.empty()) {
            const QPointer<ChartView> view = views_.front();
            views_.pop_front();
            if (view && !view->isBuilt()) {
                view->ensureBuilt();
                break;
            }
        }
        if (!views_.empty()) timer_.start();
    }

    std::deque<QPointer<ChartView>> views_;
    QTimer timer_;
};

}  // namespace

bool ChartView::buildsPending() { return QCoreApplication::instance() && BuildQueue::instance()->pending(); }

ChartView::ChartView(QWidget* parent) : QChartView(buildChart(ChartModel{}, ChartStyle{}).release(), parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    setRenderHint(QPainter::Antialiasing);
    setRubberBand(QChartView::RectangleRubberBand);
    setToolTip(
        tr("Drag a rectangle to zoom in, double-click to see everything again; "
           "click a legend entry to hide or show its series; Ctrl+T shows its numbers as a table"));
    addShowAsTableAction(this, [this] { return model_; });
    setAccessibleDescription(tr("A chart; Ctrl+T lists its numbers as a table"));
    rebuild();
}

void ChartView::setModel(ChartModel model)
{
    if (model == model_) return;  // the same chart: keep its zoom and hidden series
    model_ = std::move(model);
    built_ = false;
    // Named after what it plots, unless its owner gave it a name of its own.
    if (accessibleName().isEmpty() || accessibleName() == shownName_) {
        shownName_ = chartAccessibleName(model_);
        setAccessibleName(shownName_);
    }
    if (isVisible()) BuildQueue::instance()->add(this);
}

void ChartView::ensureBuilt()
{
    if (!built_) rebuild();
}

void ChartView::showEvent(QShowEvent* event)
{
    QChartView::showEvent(event);
    if (!built_) BuildQueue::instance()->add(this);
}

bool ChartView::seriesShown(const QString& name)
{
    ensureBuilt();
    for (QAbstractSeries* series : chart()->series()) {
        if (auto* bars = qobject_cast<QAbstractBarSeries*>(series)) {
            for (QBarSet* set : bars->barSets())
                if (set->label() == name) return set->color().alpha() > 0;
        } else if (series->name() == name) {
            return series->isVisible();
        }
    }
    return false;
}

void ChartView::changeEvent(QEvent* event)
{
    QChartView::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange) {
        built_ = false;  // drawn again in the new colours or font, in a turn of its own
        if (isVisible()) BuildQueue::instance()->add(this);
    }
}

void ChartView::mouseDoubleClickEvent(QMouseEvent* event)
{
    chart()->zoomReset();
    QChartView::mouseDoubleClickEvent(event);
}

void ChartView::contextMenuEvent(QContextMenuEvent* event)
{
    // Inside a view with a context menu of its own (Export Figure…), that menu shows this chart's
    // actions too (FigureActions); elsewhere (the Train tab) the chart's own menu does.
    for (const QWidget* w = parentWidget(); w; w = w->parentWidget())
        if (w->contextMenuPolicy() == Qt::CustomContextMenu) return event->ignore();
    QMenu menu(this);
    menu.addActions(actions());
    menu.exec(event->globalPos());
}

void ChartView::rebuild()
{
    built_ = true;
    QChart* old = chart();
    setChart(buildChart(model_, styleOf(this)).release());  // QChartView releases the old chart
    delete old;
    connectLegend();
    connectHover();
}

void ChartView::connectLegend()
{
    for (QLegendMarker* marker : chart()->legend()->markers())
        connect(marker, &QLegendMarker::clicked, this, [this, marker] { toggle(marker); });
}

void ChartView::toggle(QLegendMarker* marker)
{
    bool shown = true;
    if (auto* bar = qobject_cast<QBarLegendMarker*>(marker)) {
        // A bar set cannot be hidden alone: it turns transparent, its value labels go.
        QBarSet* set = bar->barset();
        const ChartSeries* s = modelSeries(model_, set->label());
        shown = set->color().alpha() == 0;
        const QColor color = shown && s ? s->color : QColor(Qt::transparent);
        set->setColor(color);
        set->setBorderColor(color);
    } else {
        shown = !marker->series()->isVisible();
        marker->series()->setVisible(shown);
        marker->setVisible(true);  // Qt hides the entry with its series: keep it to click again
    }
    QColor label = palette().color(QPalette::Text);
    if (!shown) label.setAlpha(90);
    marker->setLabelBrush(label);
    if (auto* fitter = chart()->findChild<ChartFitter*>(QString(), Qt::FindDirectChildrenOnly)) fitter->fitPlot();
}

void ChartView::connectHover()
{
    for (QAbstractSeries* series : chart()->series()) {
        if (auto* bars = qobject_cast<QAbstractBarSeries*>(series)) {
            connect(bars, &QAbstractBarSeries::hovered, this, [this](bool on, int index, QBarSet* set) {
                if (!on || index < 0 || index >= model_.categories.size()) return QToolTip::hideText();
                QToolTip::showText(
                    QCursor::pos(),
                    plainAsRichText(
                        tr("%1\n%2: %3").arg(set->label(), model_.categories[index], chartValueText(set->at(index)))),
                    this);
            });
        } else if (auto* xy = qobject_cast<QXYSeries*>(series)) {
            connect(xy, &QXYSeries::hovered, this, [this, xy](const QPointF& point, bool on) {
                const ChartSeries* s = modelSeries(model_, xy->name());
                if (!on || !s || s->points.empty()) return QToolTip::hideText();
                // The nearest point of the model, in plot units (log10 on a log axis).
                const auto distance = [&](const QPointF& p) {
                    return std::hypot(plotValue(model_.x, p.x()) - point.x(), plotValue(model_.y, p.y()) - point.y());
                };
                const QPointF* nearest = &s->points.front();
                for (const QPointF& p : s->points)
                    if (distance(p) < distance(*nearest)) nearest = &p;
                QToolTip::showText(QCursor::pos(),
                                   plainAsRichText(tr("%1\n%2: %3, %4: %5")
                                                       .arg(s->name, model_.x.title, chartValueText(nearest->x()),
                                                            model_.y.title, chartValueText(nearest->y()))),
                                   this);
            });
        }
    }
}

}  // namespace qkv::ui
