#pragma once
// A ChartModel on screen: the QChart of buildChart (ui/render/chart_builder.hpp), the same
// chart every exported figure renders, in the widget's palette and font, with what a screen
// adds: a tooltip with the exact value over a bar or point, rubber-band zoom (double-click
// resets it), and legend entries that hide or show their series when clicked.

#include <QChartView>

#include "ui/render/chart_model.hpp"

namespace qkv::ui {

class ChartView : public QChartView {
    Q_OBJECT
public:
    explicit ChartView(QWidget* parent = nullptr);

    void setModel(ChartModel model);
    const ChartModel& model() const { return model_; }

    // Whether the series named `name` is drawn (a click on its legend entry toggles it).
    bool seriesShown(const QString& name) const;

    QSize sizeHint() const override { return {520, 360}; }
    QSize minimumSizeHint() const override { return {320, 240}; }

protected:
    void changeEvent(QEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;

private:
    void rebuild();
    void connectLegend();
    void connectHover();
    void toggle(QLegendMarker* marker);

    ChartModel model_;
};

}  // namespace qkv::ui
