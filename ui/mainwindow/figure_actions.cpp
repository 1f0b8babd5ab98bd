#include "ui/mainwindow/figure_actions.hpp"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QMimeData>
#include <QStatusBar>

#include "ui/document/document.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/export/figure_export_dialog.hpp"
#include "ui/figure_widgets/chart_table.hpp"
#include "ui/figure_registry/figure_registry.hpp"
#include "ui/figures/figure_render.hpp"
#include "ui/figures/figure_text.hpp"
#include "ui/figures/number_format.hpp"
#include "ui/figures/shown_text.hpp"
#include "ui/mainwindow/main_window.hpp"
#include "ui/mainwindow/view_tabs.hpp"
#include "ui/views/result_view.hpp"
#include "ui/wholemodel/whole_model_runs.hpp"

namespace qkv::ui {

QString savedMessage(const QString& path, const ExportSize& size, FigureFormat format)
{
    const QSize shown = format == FigureFormat::Png ? size.pixels() : size.size.toSize();
    const QFileInfo info(path);
    return FigureActions::tr("Saved %1 (%2 x %3%4) to %5")
        .arg(info.fileName(), groupedInteger(shown.width()), groupedInteger(shown.height()),
             format == FigureFormat::Png ? FigureActions::tr(" pixels") : QString(),
             QDir::toNativeSeparators(info.absolutePath()));
}

FigureActions* FigureActions::install(MainWindow* window, QMenu* fileMenu)
{
    auto* actions = new FigureActions(window);
    // Before Quit, in the place the File menu keeps for them.
    fileMenu->insertActions(window->figureActionsAnchor(), {actions->exportAction(), actions->copyAction()});
    for (ResultView* view : window->tabs()->views()) actions->attachContextMenu(view);
    return actions;
}

FigureActions::FigureActions(MainWindow* window)
    : QObject(window), window_(window), export_(new QAction(tr("&Export Figure…"), window)),
      copy_(new QAction(tr("&Copy Figure"), window))
{
    export_->setShortcut(QKeySequence(tr("Ctrl+E")));
    export_->setStatusTip(
        tr("Save a figure of the current tab as PNG (any size or DPI), SVG or PDF, without on-screen marks"));
    copy_->setShortcut(QKeySequence(tr("Ctrl+Shift+C")));
    copy_->setStatusTip(tr("Copy the current tab's figure to the clipboard (PNG image and SVG)"));
    connect(export_, &QAction::triggered, this, [this] { exportInteractively(); });
    connect(copy_, &QAction::triggered, this, [this] { copyCurrent(); });
}

ResultView* FigureActions::currentView() const { return qobject_cast<ResultView*>(window_->tabs()->currentWidget()); }

std::vector<const Figure*> FigureActions::figuresOf(const ResultView* view) const
{
    if (!view) view = currentView();
    std::vector<const Figure*> figures;
    if (!view) return figures;
    for (const QString& name : figureNamesOfView(view->id()))
        if (const Figure* figure = findFigure(name)) figures.push_back(figure);
    return figures;
}

FigureInput FigureActions::currentInput() const
{
    FigureInput input;
    const Document* document = window_->document();
    input.result = document->result();
    input.overview = window_->tabs()->wholeModelRuns()->overview();  // the Model and Predictions figures
    FigureOptions& o = input.options;
    const HeadSelection* selection = window_->selection();
    o.head = selection->head();
    o.query = selection->queryRow();
    o.key = selection->keyColumn();
    if (selection->hasQuerySpan()) o.queryEnd = selection->querySpanEnd();
    const ViewTabs* tabs = window_->tabs();
    for (const ResultView* view : tabs->views()) {
        view->saveOptions(o.view);  // as shown, as a session keeps them
        view->saveFigureOptions(o);
    }
    qkv::Session session;
    session.config = document->config();
    session.weights = document->inputs().weights;
    o.headTitles = headTitlesOf(session);
    return input;  // publication colours and font: FigureOptions' defaults
}

void FigureActions::report(const QString& message) { window_->statusBar()->showMessage(message, 15000); }

QString FigureActions::exportFigure(const Figure& figure, const QString& path, FigureFormat format,
                                    const ExportSize& size)
{
    const QString error = writeFigure(figure, currentInput(), path, format, size);
    report(error.isEmpty() ? savedMessage(path, size, format) : error);
    return error;
}

QString FigureActions::copyFigure(const Figure& figure, const ExportSize& size)
{
    QString error;
    QMimeData* data = figureMimeData(figure, currentInput(), size, error);
    if (!data) {
        report(error);
        return error;
    }
    QApplication::clipboard()->setMimeData(data);
    const QSize pixels = size.pixels();
    report(tr("Copied %1 to the clipboard (PNG %2 x %3 pixels and SVG)")
               .arg(figure.title, groupedInteger(pixels.width()), groupedInteger(pixels.height())));
    return {};
}

void FigureActions::exportInteractively(const ResultView* view)
{
    const std::vector<const Figure*> figures = figuresOf(view);
    if (figures.empty()) {
        report(tr("This tab has no figure to export."));
        return;
    }
    FigureExportDialog dialog(figures, window_,
                              [input = currentInput()](const Figure& figure) { return figure.defaultSizeFor(input); });
    if (dialog.exec() != QDialog::Accepted || !dialog.figure()) return;
    const QString error = exportFigure(*dialog.figure(), dialog.path(), dialog.format(), dialog.size());
    if (!error.isEmpty()) showPlainWarning(window_, tr("Export failed"), error);
}

void FigureActions::copyCurrent(const ResultView* view)
{
    const std::vector<const Figure*> figures = figuresOf(view);
    if (figures.empty()) {
        report(tr("This tab has no figure to copy."));
        return;
    }
    copyFigure(*figures.front(), ExportSize{figures.front()->defaultSizeFor(currentInput()), 2.0});
}

void FigureActions::attachContextMenu(ResultView* view)
{
    view->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(view, &QWidget::customContextMenuRequested, this, [this, view](const QPoint& position) {
        QMenu menu(view);
        // The chart under the pointer offers its numbers first (ChartView leaves its menu to this one).
        if (QAction* table = showAsTableActionFor(view->childAt(position))) {
            menu.addAction(table);
            menu.addSeparator();
        }
        menu.addAction(tr("Export Figure…"), this, [this, view] { exportInteractively(view); });
        for (const Figure* figure : figuresOf(view))
            menu.addAction(tr("Copy “%1”").arg(figure->title), this, [this, figure] {
                copyFigure(*figure, ExportSize{figure->defaultSizeFor(currentInput()), 2.0});
            });
        menu.exec(view->mapToGlobal(position));
    });
}

}  // namespace qkv::ui
