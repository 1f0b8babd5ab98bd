#pragma once
// Fits a chart of buildChart (chart_builder.hpp) to its size, as Qt Charts leaves undone: Qt
// elides a title, legend name or tick label that does not fit ("..."), puts the legend on one
// row, and knows no thousands separators. Owned by the chart; runs on every resize and zoom.

#include <QObject>
#include <QStringList>

#include <vector>

#include "ui/render/chart_builder.hpp"

class QAbstractBarSeries;
class QBarCategoryAxis;
class QCategoryAxis;
class QChart;
class QGraphicsSimpleTextItem;

namespace qkv::ui {

class ChartFitter : public QObject {
    Q_OBJECT
public:
    struct Parts {
        QCategoryAxis* x = nullptr;  // value axes (a bar chart has one of the two)
        QCategoryAxis* y = nullptr;
        QBarCategoryAxis* categories = nullptr;
        QAbstractBarSeries* bars = nullptr;
        // The exact value at the end of each bar: [bar set][category].
        std::vector<std::vector<QGraphicsSimpleTextItem*>> barLabels;
    };
    ChartFitter(QChart* chart, ChartModel model, ChartStyle style, Parts parts);

    const ChartModel& model() const { return model_; }
    const Parts& parts() const { return parts_; }

    // Lays everything out for the chart's current geometry (also called on resize).
    void fit();
    // Ticks, bar axis and bar labels for the current plot area (also called on zoom).
    void fitPlot();

private:
    double lineHeight() const;
    void wrapTitle();
    void layoutLegend();
    void wrapCategories();
    void wrapVerticalTitle();
    void fitBarAxis();
    void retick(QCategoryAxis* axis, const ChartAxis& model, bool horizontal);
    void placeBarLabels();

    QChart* chart_;
    ChartModel model_;
    ChartStyle style_;
    Parts parts_;
    QStringList categoryLabels_;  // as the axis shows them (wrapped)
    bool fitting_ = false;
};

// Word-wraps `text` into lines no wider than `width` for `font`, as Qt Charts' rich text
// ("<br>" between escaped lines), so that Qt never has to elide it.
QString wrappedChartText(const QString& text, const QFont& font, double width);

}  // namespace qkv::ui
