#include "ui/patching/patching_figures.hpp"

#include <QCoreApplication>
#include <QPainter>

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

// A corrupted prompt is typed only on the Patching page: without one for this sentence, the figure
// says so where it would have been drawn.
// Says in place why there is nothing to draw (true): a model patching cannot read (core's words),
// or, for the patching grids, no corrupted prompt patched for this sentence (one is typed only
// on the Patching page).
bool paintWhyNot(QPainter& painter, const QRectF& rect, const FigureInput& input, const PatchingShown* shown)
{
    QString why;
    if (qkv::Status s = qkv::checkPatchingModel(*input.overview->model); !s)
        why = QString::fromStdString(s.error());
    else if (shown && !shown->grids)
        why = Text::tr("Type a corrupted prompt on the Predict tab's Patching page and patch: these grids compare "
                       "two prompts.");
    if (why.isEmpty()) return false;
    painter.setFont(input.options.font);
    painter.setPen(input.options.text);
    painter.drawText(rect.adjusted(16, 16, -16, -16), Qt::AlignCenter | Qt::TextWordWrap, why);
    return true;
}

void paintHeads(QPainter& painter, const QRectF& rect, const FigureInput& input)
{
    const PatchingShown shown = shownFor(input);
    if (paintWhyNot(painter, rect, input, &shown)) return;
    paintPatchGrid(painter, rect, headsGridData(*shown.prompts, *shown.grids), input.options);
}

void paintResidual(QPainter& painter, const QRectF& rect, const FigureInput& input)
{
    const PatchingShown shown = shownFor(input);
    if (paintWhyNot(painter, rect, input, &shown)) return;
    paintPatchGrid(painter, rect, residualGridData(*shown.prompts, *shown.grids), input.options);
}

void paintLens(QPainter& painter, const QRectF& rect, const FigureInput& input)
{
    if (paintWhyNot(painter, rect, input, nullptr)) return;
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
        gridFigure(QStringLiteral("patching-heads"), Text::tr("Patching: heads grid"), QSizeF(720, 520), &whyNoModelOverview,
                   &paintHeads),
        gridFigure(QStringLiteral("patching-residual"), Text::tr("Patching: residual stream grid"), QSizeF(900, 520),
                   &whyNoModelOverview, &paintResidual),
        gridFigure(QStringLiteral("logit-lens"), Text::tr("Logit lens grid"), QSizeF(760, 620), &whyNoModelOverview, &paintLens),
    };
}

}  // namespace qkv::ui
