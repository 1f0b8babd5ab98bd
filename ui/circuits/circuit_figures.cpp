#include "ui/circuits/circuit_figures.hpp"

#include <QCoreApplication>
#include <QPainter>

#include "ui/circuits/circuit_store.hpp"
#include "ui/circuits/heads_map_figure.hpp"
#include "ui/modelgrid/model_grid_text.hpp"
#include "ui/wholemodel/whole_model_figure_parts.hpp"

namespace qkv::ui {
namespace {

struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::CircuitFigures)
};

// A figure that cannot get its numbers says why where it would have been drawn.
void paintProblem(QPainter& painter, const QRectF& rect, const FigureOptions& options, const QString& problem)
{
    painter.setFont(options.font);
    painter.setPen(options.text);
    painter.drawText(rect.adjusted(16, 16, -16, -16), Qt::AlignCenter | Qt::TextWordWrap, problem);
}

void paintCopyingFigure(QPainter& painter, const QRectF& rect, const FigureInput& input)
{
    qkv::Expected<std::shared_ptr<const qkv::MatrixD>> scores = copyingScoresOf(input.overview->model);
    if (!scores) return paintProblem(painter, rect, input.options, QString::fromStdString(scores.error()));
    paintCopyingGrid(painter, rect, copyingGridData(*input.overview, **scores), input.options);
}

// The layer the document shows, or the model's last self-attention layer when the result is not
// one of its layers; the selected head.
qkv::CircuitHead figureHead(const FigureInput& input)
{
    const qkv::ModelOverview& overview = *input.overview;
    qkv::Index layer = input.result->wholeModel == overview.model ? input.result->wholeModelLayer : -1;
    if (layer < 0 || layer >= overview.layerCount())
        for (qkv::Index l = overview.layerCount() - 1; l >= 0 && layer < 0; --l)
            if (overview.layer(l).layer.kind != qkv::AttentionMode::Cross) layer = l;
    return {layer, input.options.head};
}

void paintEigenvalueFigure(QPainter& painter, const QRectF& rect, const FigureInput& input)
{
    const qkv::CircuitHead head = figureHead(input);
    qkv::Expected<qkv::HeadSpectrum> spectrum = headSpectrumOf(input.overview->model, head);
    if (!spectrum) return paintProblem(painter, rect, input.options, QString::fromStdString(spectrum.error()));
    paintEigenvaluePlane(painter, rect,
                         {spectrum->eigenvalues, spectrum->copyingScore, circuitHeadName(*input.overview, head)},
                         input.options);
}

void paintHeadsMapFigure(QPainter& painter, const QRectF& rect, const FigureInput& input)
{
    // The copying scores when the model has circuits; the map draws its other axes without them.
    std::shared_ptr<const qkv::MatrixD> copying;
    if (qkv::noCircuitsReason(*input.overview->model).empty())
        if (qkv::Expected<std::shared_ptr<const qkv::MatrixD>> scores = copyingScoresOf(input.overview->model))
            copying = *scores;
    const std::shared_ptr<const AblationEffects> ablation = storedAblationEffects(input.overview);
    const HeadsMapData data = headsMapData(*input.overview, copying.get(), ablation.get(), chosenHeadsMapAxes());
    paintHeadsMap(painter, rect, data, modelShapeLine(*input.overview), input.options);
}

}  // namespace

QString whyNoCircuits(const FigureInput& input)
{
    if (const QString why = whyNoModelOverview(input); !why.isEmpty()) return why;
    return QString::fromStdString(qkv::noCircuitsReason(*input.overview->model));
}

CopyingGridData copyingGridData(const qkv::ModelOverview& overview, const qkv::MatrixD& scores)
{
    CopyingGridData data;
    data.scores = scores;
    data.layerNames = layerLabels(overview);
    data.modelLine = modelShapeLine(overview);
    return data;
}

QString circuitHeadName(const qkv::ModelOverview& overview, const qkv::CircuitHead& head)
{
    if (head.layer < 0 || head.layer >= overview.layerCount()) return QString::number(head.head + 1);
    return modelHeadName(overview.layer(head.layer), head.head);
}

std::vector<Figure> circuitFigures()
{
    Figure copying;
    copying.name = QStringLiteral("circuit-copying-scores");
    copying.title = Text::tr("Copying score of every head");
    copying.view = kCircuitsViewId;
    copying.defaultSize = QSizeF(760, 560);
    copying.minimumSize = QSizeF(420, 320);
    copying.unavailable = &whyNoCircuits;
    copying.paint = &paintCopyingFigure;

    Figure eigenvalues;
    eigenvalues.name = QStringLiteral("circuit-eigenvalues");
    eigenvalues.title = Text::tr("Eigenvalues of the selected head's OV circuit");
    eigenvalues.view = kCircuitsViewId;
    eigenvalues.defaultSize = QSizeF(640, 640);
    eigenvalues.minimumSize = QSizeF(360, 360);
    eigenvalues.unavailable = [](const FigureInput& input) {
        if (const QString why = whyNoCircuits(input); !why.isEmpty()) return why;
        const qkv::CircuitHead head = figureHead(input);
        if (head.layer < 0) return Text::tr("The model has no self-attention layer.");
        if (head.head < 0 || head.head >= input.overview->layer(head.layer).layer.headCount)
            return Text::tr("The selected head is outside the layer's heads.");
        return QString();
    };
    eigenvalues.paint = &paintEigenvalueFigure;

    Figure map;
    map.name = QStringLiteral("heads-map");
    map.title = Text::tr("Every head placed by what it does");
    map.view = kCircuitsViewId;
    map.defaultSize = QSizeF(900, 640);
    map.minimumSize = QSizeF(520, 400);
    map.unavailable = &whyNoModelOverview;
    map.paint = &paintHeadsMapFigure;
    return {copying, eigenvalues, map};
}

}  // namespace qkv::ui
