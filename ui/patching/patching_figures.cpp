#include "ui/patching/patching_figures.hpp"

#include <QCoreApplication>

#include "core/pipeline/model_overview.hpp"
#include "ui/patching/patch_grid_figure.hpp"
#include "ui/patching/patching_data.hpp"
#include "ui/predict/prediction_figures.hpp"
#include "ui/wholemodel/whole_model_figure_parts.hpp"

namespace qkv::ui {
namespace {

struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::PatchingFigures)
};

// The page's last patching when it patched this overview's model on this sentence.
PatchingShown shownFor(const FigureInput& input)
{
    PatchingShown shown = shownPatching();
    if (!input.overview || !shown.prompts || !shown.grids || shown.prompts->overview != input.overview) return {};
    return shown;
}

QString whyNoPatching(const FigureInput& input)
{
    if (const QString why = whyNoModelOverview(input); !why.isEmpty()) return why;
    if (!shownFor(input).grids)
        return Text::tr("Type a corrupted prompt on the Predict tab's Patching page and patch: these grids compare "
                        "two prompts.");
    return {};
}

QString whyNoLens(const FigureInput& input)
{
    if (const QString why = whyNoModelOverview(input); !why.isEmpty()) return why;
    if (qkv::Status s = qkv::checkPatchingModel(*input.overview->model); !s) return QString::fromStdString(s.error());
    return {};
}

void paintHeads(QPainter& painter, const QRectF& rect, const FigureInput& input)
{
    const PatchingShown shown = shownFor(input);
    paintPatchGrid(painter, rect, headsGridData(*shown.prompts, *shown.grids), input.options);
}

void paintResidual(QPainter& painter, const QRectF& rect, const FigureInput& input)
{
    const PatchingShown shown = shownFor(input);
    paintPatchGrid(painter, rect, residualGridData(*shown.prompts, *shown.grids), input.options);
}

void paintLens(QPainter& painter, const QRectF& rect, const FigureInput& input)
{
    // The page's lens when it shows this sentence's, else computed here (a figure has no widget).
    PatchingShown shown = shownPatching();
    std::shared_ptr<const LogitLensShown> lens = shown.lens;
    if (!lens || lens->overview != input.overview) {
        qkv::Expected<LogitLensShown> computed = logitLensShown(input.overview, -1);
        if (!computed) return;
        lens = std::make_shared<const LogitLensShown>(std::move(*computed));
    }
    paintPatchGrid(painter, rect, logitLensGridData(*lens), input.options);
}

Figure gridFigure(QString name, QString title, QSizeF size, std::function<QString(const FigureInput&)> unavailable,
                  std::function<void(QPainter&, const QRectF&, const FigureInput&)> paint)
{
    Figure figure;
    figure.name = std::move(name);
    figure.title = std::move(title);
    figure.view = kPredictionViewId;
    figure.defaultSize = size;
    figure.minimumSize = QSizeF(420, 320);
    figure.unavailable = std::move(unavailable);
    figure.paint = std::move(paint);
    return figure;
}

}  // namespace

std::vector<Figure> patchingFigures()
{
    return {
        gridFigure(QStringLiteral("patching-heads"), Text::tr("Patching: heads grid"), QSizeF(720, 520), &whyNoPatching,
                   &paintHeads),
        gridFigure(QStringLiteral("patching-residual"), Text::tr("Patching: residual stream grid"), QSizeF(900, 520),
                   &whyNoPatching, &paintResidual),
        gridFigure(QStringLiteral("logit-lens"), Text::tr("Logit lens grid"), QSizeF(760, 620), &whyNoLens, &paintLens),
    };
}

}  // namespace qkv::ui
