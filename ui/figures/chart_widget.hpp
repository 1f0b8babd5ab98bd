#pragma once
// A widget that shows a ChartModel with the painter every exported chart uses
// (ui/render/chart_painter.hpp), in the widget's palette (light or dark).

#include <QWidget>

#include "ui/render/chart_model.hpp"

namespace qkv::ui {

class ChartWidget : public QWidget {
    Q_OBJECT
public:
    explicit ChartWidget(QWidget* parent = nullptr);

    void setModel(ChartModel model);
    const ChartModel& model() const { return model_; }

    QSize sizeHint() const override { return {520, 360}; }
    QSize minimumSizeHint() const override { return {320, 240}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    ChartModel model_;
};

}  // namespace qkv::ui
