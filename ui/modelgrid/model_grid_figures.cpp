#include "ui/modelgrid/model_grid_figures.hpp"

#include <QCoreApplication>

#include <algorithm>

#include "core/pipeline/model_overview.hpp"
#include "ui/modelgrid/model_grid_figure.hpp"
#include "ui/modelgrid/model_statistics_figure.hpp"
#include "ui/wholemodel/whole_model_figure_parts.hpp"

namespace qkv::ui {
namespace {

// The translation context of this file's visible text (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::ModelGridFigures)
};

}  // namespace

std::vector<Figure> modelGridFigures()
{
    Figure grid;
    grid.name = QStringLiteral("model");
    grid.title = Text::tr("Every layer's attention");
    grid.view = kModelViewId;
    grid.defaultSize = QSizeF(1000, 900);
    grid.minimumSize = QSizeF(480, 420);
    // 1000 wide and as tall as the grid's rows need (two layers of four heads left a third of
    // 900 blank); a model of many layers is cut at 1600 and its thumbnails shrink to fit.
    grid.sizeForInput = [minimum = grid.minimumSize](const FigureInput& input) {
        const double height = modelGridHeight(input, 1000);
        return height > 0 ? QSizeF(1000, std::clamp(height, minimum.height(), 1600.0)) : QSizeF();
    };
    grid.unavailable = [](const FigureInput& input) {
        if (const QString why = whyNoModelOverview(input); !why.isEmpty()) return why;
        if (input.options.valueWeighted && input.overview->valueNorms.empty())
            return Text::tr("The value-weighted norms of the model were not computed.");
        return QString();
    };
    grid.paint = [](QPainter& painter, const QRectF& rect, const FigureInput& input) {
        paintModelGrid(painter, rect, input);
    };

    Figure statistics;
    statistics.name = QStringLiteral("model-statistics");
    statistics.title = Text::tr("Per-head statistics of every layer");
    statistics.view = kModelViewId;
    statistics.defaultSize = QSizeF(1000, 800);
    statistics.minimumSize = QSizeF(520, 480);
    statistics.unavailable = &whyNoModelOverview;
    statistics.paint = [](QPainter& painter, const QRectF& rect, const FigureInput& input) {
        paintModelStatistics(painter, rect, input);
    };
    return {grid, statistics};
}

}  // namespace qkv::ui
