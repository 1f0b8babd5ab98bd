#pragma once
// Export Figure… and Copy Figure, for the File menu and every view's context menu:
// the figures of the current tab come from the registry (ui/figures/figure.hpp), are painted
// for the current result, selection and view options, and written as PNG (a chosen size or
// DPI), SVG or PDF, or put on the clipboard (PNG and SVG). The status bar says where a figure
// went, or why not.
//
// The main window calls FigureActions::install(this, fileMenu) once, after its tabs exist.

#include <QObject>
#include <QString>

#include <vector>

#include "ui/figures/figure.hpp"
#include "ui/figures/figure_export.hpp"

class QAction;
class QMenu;

namespace qkv::ui {

class MainWindow;
class ResultView;

class FigureActions : public QObject {
    Q_OBJECT
public:
    // Creates the actions (owned by `window`), adds them to `fileMenu` and gives every view a
    // context menu with them.
    static FigureActions* install(MainWindow* window, QMenu* fileMenu);

    explicit FigureActions(MainWindow* window);

    QAction* exportAction() const { return export_; }
    QAction* copyAction() const { return copy_; }

    // What the figures are drawn from now: the result, the selection, the views' options.
    FigureInput currentInput() const;
    // The figures of `view` (the current tab's when null).
    std::vector<const Figure*> figuresOf(const ResultView* view = nullptr) const;

    // Writes `figure` and says so in the status bar. Returns the error (empty on success).
    QString exportFigure(const Figure& figure, const QString& path, FigureFormat format, const ExportSize& size);
    // Puts `figure` on the clipboard (PNG image and SVG) and says so. Returns the error.
    QString copyFigure(const Figure& figure, const ExportSize& size);

    // The dialog: figure (of `view`, or the current tab), format, size or DPI, file.
    void exportInteractively(const ResultView* view = nullptr);
    // Copies the first figure of `view` (or the current tab) at its default size.
    void copyCurrent(const ResultView* view = nullptr);

private:
    void attachContextMenu(ResultView* view);
    ResultView* currentView() const;
    void report(const QString& message);

    MainWindow* window_;
    QAction* export_;
    QAction* copy_;
};

// "Saved heads.svg (1,400 x 900) to /home/me/figures"
QString savedMessage(const QString& path, const ExportSize& size, FigureFormat format);

}  // namespace qkv::ui
