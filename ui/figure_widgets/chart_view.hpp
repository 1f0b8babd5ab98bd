#pragma once
// A ChartModel on screen: the QChart of buildChart (ui/render/chart_builder.hpp), the same
// chart every exported figure renders, in the widget's palette and font, with what a screen
// adds: a tooltip with the exact value over a bar or point, rubber-band zoom (double-click
// resets it), legend entries that hide or show their series when clicked, and Show as Table
// (chart_table.hpp: the same numbers as an accessible table, in its context menu and on Ctrl+T).
//
// Building a QChart and fitting it takes the GUI thread 2-10 ms (more with thousands of
// points), so a tab of four charts would take one long turn of the event loop. A new model is
// therefore drawn later: a hidden chart when it is shown, a visible one in a turn of its own
// (one chart per turn, across every ChartView). Until then the previous chart stays on screen.

#include <QChartView>

#include "ui/render/chart_model.hpp"

namespace qkv::ui {

class ChartView : public QChartView {
    Q_OBJECT
public:
    explicit ChartView(QWidget* parent = nullptr);

    // The model is current at once; the chart drawing it is built soon (see above).
    void setModel(ChartModel model);
    const ChartModel& model() const { return model_; }
    // Builds the chart of the current model now if it is not yet (chart() is then current).
    void ensureBuilt();
    bool isBuilt() const { return built_; }
    // Some visible chart waits for its turn to be built (tests wait for none, as a user would).
    static bool buildsPending();

    // Whether the series named `name` is drawn (a click on its legend entry toggles it).
    bool seriesShown(const QString& name);

    QSize sizeHint() const override { return {520, 360}; }
    QSize minimumSizeHint() const override { return {320, 240}; }

protected:
    void changeEvent(QEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;

private:
    void rebuild();
    void connectLegend();
    void connectHover();
    void toggle(QLegendMarker* marker);

    ChartModel model_;
    bool built_ = true;  // chart() draws model_
    QString shownName_;  // the accessible name the model gave (chartAccessibleName)
};

}  // namespace qkv::ui
