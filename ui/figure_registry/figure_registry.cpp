// The one list of figures. Each area (tab) contributes its figures through
// one function declared in its <area>_figures.hpp; a new view adds its include and one line to
// the list below, in tab order. Nothing registers itself at static-initialisation time: a
// static library drops object files nobody references, and the order would be undefined.
#include "ui/figure_registry/figure_registry.hpp"

#include <QCoreApplication>
#include <QSet>

#include "ui/circuits/circuit_figures.hpp"
#include "ui/compare/compare_figures.hpp"
#include "ui/costs/cost_figures.hpp"
#include "ui/figures/figure_text.hpp"
#include "ui/factored/factored_figures.hpp"
#include "ui/heads/head_statistics_figures.hpp"
#include "ui/heads/heads_figures.hpp"
#include "ui/matrices/matrices_figures.hpp"
#include "ui/qkmap/qk_map_figures.hpp"
#include "ui/steps/step_figures.hpp"
#include "ui/weights/head_weights_figures.hpp"
#include "ui/modelgrid/model_grid_figures.hpp"
#include "ui/patching/patching_figures.hpp"
#include "ui/predict/prediction_figures.hpp"

namespace qkv::ui {
namespace {

std::vector<Figure> concatenate(std::initializer_list<std::vector<Figure>> areas)
{
    std::vector<Figure> all;
    QSet<QString> names;
    for (const std::vector<Figure>& area : areas)
        for (const Figure& figure : area) {
            Q_ASSERT_X(!names.contains(figure.name), "allFigures", "two figures have the same name");
            names.insert(figure.name);
            all.push_back(figure);
        }
    return all;
}

}  // namespace

QString whyNoResult(const FigureInput& input)
{
    return input.result ? QString() : QCoreApplication::translate("Figure", "No result yet.");
}

QString whyNoSelectedHead(const FigureInput& input)
{
    if (!input.result) return whyNoResult(input);
    if (input.options.head < 0 || input.options.head >= input.result->attention.headCount())
        return QCoreApplication::translate("Figure", "The selected head is outside this result.");
    return {};
}

Figure perHeadFigure(QString name, QString title, QString view, QSizeF defaultSize,
                     std::function<void(QPainter&, const QRectF&, const FigureInput&)> paint)
{
    Figure figure;
    figure.name = std::move(name);
    figure.title = std::move(title);
    figure.view = std::move(view);
    figure.defaultSize = defaultSize;
    figure.unavailable = &whyNoSelectedHead;
    figure.paint = std::move(paint);
    return figure;
}

QFont figureFont()
{
    QFont font(QStringLiteral("DejaVu Sans"));
    font.setStyleHint(QFont::SansSerif);
    font.setPointSizeF(10.0);
    return font;
}

const std::vector<Figure>& allFigures()
{
    static const std::vector<Figure> figures = concatenate({
        headsFigures(),           // ui/heads/heads_figures.hpp
        headStatisticsFigures(),  // ui/heads/head_statistics_figures.hpp
        stepsFigures(),           // ui/steps/step_figures.hpp
        matricesFigures(),        // ui/matrices/matrices_figures.hpp
        qkMapFigures(),           // ui/qkmap/qk_map_figures.hpp
        compareFigures(),         // ui/compare/compare_figures.hpp
        factoredFigures(),        // ui/factored/factored_figures.hpp
        costFigures(),      // ui/costs/cost_figures.hpp
        headWeightsFigures(),     // ui/weights/head_weights_figures.hpp
        modelGridFigures(),       // ui/modelgrid/model_grid_figures.hpp
        predictionFigures(),      // ui/predict/prediction_figures.hpp
        circuitFigures(),         // ui/circuits/circuit_figures.hpp
        patchingFigures(),        // ui/patching/patching_figures.hpp
    });
    return figures;
}

const Figure* findFigure(const QString& name)
{
    for (const Figure& figure : allFigures())
        if (figure.name == name) return &figure;
    return nullptr;
}

std::vector<const Figure*> figuresOfView(const QString& view)
{
    std::vector<const Figure*> out;
    for (const Figure& figure : allFigures())
        if (figure.view == view) out.push_back(&figure);
    return out;
}

QStringList figureNamesOfView(const QString& view)
{
    QStringList names;
    for (const Figure* figure : figuresOfView(view)) names << figure->name;
    return names;
}

QString Figure::whyUnavailable(const FigureInput& input) const
{
    if (!input.result) return whyNoResult(input);
    if (input.result->streamed() && !drawsLongLayers)
        return longLayerText ? longLayerText(*input.result) : longLayerNote(*input.result);
    return unavailable ? unavailable(input) : QString();
}

QSizeF Figure::defaultSizeFor(const FigureInput& input) const
{
    const QSizeF size = sizeForInput && whyUnavailable(input).isEmpty() ? sizeForInput(input) : QSizeF();
    return size.isEmpty() ? defaultSize : size;
}

}  // namespace qkv::ui
