// File > Export Figure… and Copy Figure from the app: the current tab's figures,
// drawn from the current result and options, written or copied, and the status bar says so.

#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMimeData>
#include <QSettings>
#include <QSpinBox>
#include <QStatusBar>
#include <QTemporaryDir>

#include "core/common/limits.hpp"
#include "tests/ui/support/window_fixture.hpp"
#include "ui/costs/costs_view.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/export/figure_export_dialog.hpp"
#include "ui/factored/factored_view.hpp"
#include "ui/figure_registry/figure_registry.hpp"
#include "ui/heads/heads_view.hpp"
#include "ui/mainwindow/figure_actions.hpp"
#include "ui/mainwindow/view_tabs.hpp"

using qkv::ui::testing::WindowTest;

namespace qkv::ui {
namespace {

FigureActions* actionsOf(MainWindow* window) { return window->findChild<FigureActions*>(); }

TEST_F(WindowTest, FileMenuHasExportAndCopyFigure)
{
    QStringList texts;
    for (QAction* menu : window->menuBar()->actions())
        if (menu->menu())
            for (QAction* action : menu->menu()->actions()) texts << action->text();
    EXPECT_TRUE(texts.contains(QStringLiteral("&Export Figure…")));
    EXPECT_TRUE(texts.contains(QStringLiteral("&Copy Figure")));
    ASSERT_NE(actionsOf(window.get()), nullptr);
    // Every view offers them in its context menu.
    for (ResultView* view : window->tabs()->views()) EXPECT_EQ(view->contextMenuPolicy(), Qt::CustomContextMenu);
}

TEST_F(WindowTest, EachTabExportsItsOwnFigures)
{
    FigureActions* actions = actionsOf(window.get());
    window->tabs()->setCurrentWidget(window->tabs()->headsView());
    QStringList names;
    for (const Figure* f : actions->figuresOf()) names << f->name;
    EXPECT_EQ(names, (QStringList{QStringLiteral("heads"), QStringLiteral("head"), QStringLiteral("query-row"), QStringLiteral("head-statistics")}));
    window->tabs()->setCurrentWidget(window->tabs()->factoredView());
    names.clear();
    for (const Figure* f : actions->figuresOf()) names << f->name;
    EXPECT_TRUE(names.contains(QStringLiteral("spectrum")));
    FigureExportDialog dialog(actions->figuresOf(), window.get());
    EXPECT_EQ(dialog.figure()->name, QStringLiteral("factored"));
    EXPECT_TRUE(dialog.selectFigure(QStringLiteral("spectrum")));
    EXPECT_TRUE(dialog.path().endsWith(QStringLiteral("spectrum.png")) ||
                dialog.path().endsWith(QStringLiteral("spectrum.svg")) ||
                dialog.path().endsWith(QStringLiteral("spectrum.pdf")))
        << dialog.path().toStdString();
    EXPECT_EQ(dialog.size().size, QSizeF(900, 600));
}

// The dialog offers the sizes and resolutions `qkv-studio figure` takes: the one figure-size limit.
TEST_F(WindowTest, TheExportDialogOffersTheFigureSizeLimits)
{
    FigureExportDialog dialog(actionsOf(window.get())->figuresOf(), window.get());
    int sizes = 0, resolutions = 0;
    for (const QSpinBox* box : dialog.findChildren<QSpinBox*>()) {
        const bool dpi = box->suffix().contains(QStringLiteral("dpi"));
        (dpi ? resolutions : sizes) += 1;
        EXPECT_EQ(box->minimum(), dpi ? limits::minFigureDpi : limits::minFigureSide) << box->suffix().toStdString();
        EXPECT_EQ(box->maximum(), dpi ? limits::maxFigureDpi : limits::maxFigureSide) << box->suffix().toStdString();
    }
    EXPECT_EQ(sizes, 2);
    EXPECT_EQ(resolutions, 1);
}

// A label with a mnemonic shows its "&" as text unless it has a buddy ("&Size:", "F&ile:").
TEST_F(WindowTest, EveryLabelOfTheExportDialogUnderlinesItsMnemonic)
{
    FigureExportDialog dialog(actionsOf(window.get())->figuresOf(), window.get());
    for (const QLabel* label : dialog.findChildren<QLabel*>()) {
        if (!label->text().contains(QLatin1Char('&'))) continue;
        EXPECT_NE(label->buddy(), nullptr) << label->text().toStdString();
    }
}

TEST_F(WindowTest, ExportWritesTheFigureAndTheStatusBarSaysWhere)
{
    FigureActions* actions = actionsOf(window.get());
    QTemporaryDir directory;
    const Figure& heads = *findFigure(QStringLiteral("heads"));
    const QString svg = directory.filePath(QStringLiteral("heads.svg"));
    EXPECT_EQ(actions->exportFigure(heads, svg, FigureFormat::Svg, ExportSize{QSizeF(1400, 900), 1.0}), QString());
    EXPECT_TRUE(QFileInfo(svg).size() > 4000);
    const QString message = window->statusBar()->currentMessage();
    EXPECT_TRUE(message.startsWith(QStringLiteral("Saved heads.svg (1,400 x 900) to "))) << message.toStdString();
    EXPECT_TRUE(message.contains(QFileInfo(svg).absolutePath())) << message.toStdString();

    const QString png = directory.filePath(QStringLiteral("heads.png"));
    EXPECT_EQ(actions->exportFigure(heads, png, FigureFormat::Png, ExportSize{QSizeF(1400, 900), 2.0}), QString());
    EXPECT_TRUE(window->statusBar()->currentMessage().contains(QStringLiteral("(2,800 x 1,800 pixels)")));
    EXPECT_EQ(QImage(png).size(), QSize(2800, 1800));

    // A path that cannot be written: the status bar says why, nothing is left behind.
    const QString bad = directory.filePath(QStringLiteral("missing/heads.pdf"));
    const QString error = actions->exportFigure(heads, bad, FigureFormat::Pdf, ExportSize{QSizeF(800, 600), 1.0});
    EXPECT_TRUE(error.contains(QStringLiteral("heads.pdf"))) << error.toStdString();
    EXPECT_EQ(window->statusBar()->currentMessage(), error);
    EXPECT_FALSE(QFileInfo::exists(bad));
}

// A fresh account has no ~/Pictures until a desktop makes one: the dialog must not propose a
// folder that does not exist (Save would fail for a folder the user never chose).
TEST_F(WindowTest, ExportProposesAFolderThatExists)
{
    QTemporaryDir home;
    const QByteArray savedHome = qgetenv("HOME"), savedConfig = qgetenv("XDG_CONFIG_HOME");
    qputenv("HOME", home.path().toLocal8Bit());
    qputenv("XDG_CONFIG_HOME", home.filePath(QStringLiteral("config")).toLocal8Bit());  // no user-dirs.dirs
    QSettings().remove(QStringLiteral("figures/directory"));
    const std::vector<const Figure*> heads{findFigure(QStringLiteral("heads"))};
    const auto proposedFolder = [&heads] { return QFileInfo(FigureExportDialog(heads).path()).absolutePath(); };

    EXPECT_EQ(proposedFolder(), home.path()) << "no Pictures folder: home";
    ASSERT_TRUE(QDir(home.path()).mkdir(QStringLiteral("Pictures")));
    EXPECT_EQ(proposedFolder(), home.filePath(QStringLiteral("Pictures")));
    QSettings().setValue(QStringLiteral("figures/directory"), home.filePath(QStringLiteral("gone")));
    EXPECT_EQ(proposedFolder(), home.filePath(QStringLiteral("Pictures"))) << "the remembered folder is gone";
    ASSERT_TRUE(QDir(home.path()).mkdir(QStringLiteral("slides")));
    QSettings().setValue(QStringLiteral("figures/directory"), home.filePath(QStringLiteral("slides")));
    EXPECT_EQ(proposedFolder(), home.filePath(QStringLiteral("slides")));

    QSettings().remove(QStringLiteral("figures/directory"));
    qputenv("HOME", savedHome);
    if (savedConfig.isNull())
        qunsetenv("XDG_CONFIG_HOME");
    else
        qputenv("XDG_CONFIG_HOME", savedConfig);
}

TEST_F(WindowTest, ExportUsesTheViewsOptionsNotItsScreenMarks)
{
    FigureActions* actions = actionsOf(window.get());
    window->headsView()->setColorRange({qkv::ColorRange::Mode::Fixed, 0.0, 0.25});
    window->selection()->setHead(2);
    window->selection()->setCell(1, 2);
    const FigureInput input = actions->currentInput();
    EXPECT_EQ(input.options.view.colorRange, (qkv::ColorRange{qkv::ColorRange::Mode::Fixed, 0.0, 0.25}));
    EXPECT_EQ(input.options.head, 2);
    EXPECT_EQ(input.options.query, 1);
    EXPECT_EQ(input.options.key, 2);
    EXPECT_FALSE(input.options.showSelection);
    EXPECT_EQ(input.options.background, QColor(Qt::white));
    window->headsView()->setColorRange({});
}

// State sessions do not store but an export keeps: each view writes its own into the figure's
// options (the Costs tab's g, the factor product's zoom), and the window names no view type.
TEST_F(WindowTest, ExportKeepsTheComparisonsGAndTheFactorProductsZoom)
{
    FigureActions* actions = actionsOf(window.get());
    ViewTabs* tabs = window->tabs();
    const qkv::Index d_model = window->document()->result()->weights->d_model();
    tabs->costsView()->setKeyValueHeads(2);
    tabs->setCurrentWidget(tabs->factoredView());  // a view computes only when shown
    settle();
    tabs->factoredView()->setZoomWindow(MatrixWindow{2, 3, 8, 8});
    FigureInput input = actions->currentInput();
    EXPECT_EQ(input.options.keyValueHeads, 2);
    EXPECT_EQ(input.options.productWindow, QRect(3, 2, 8, 8));
    tabs->factoredView()->setZoomWindow(MatrixWindow{0, 0, d_model, d_model});
    input = actions->currentInput();
    EXPECT_TRUE(input.options.productWindow.isNull());  // all of W_i
}

// The dialog opens with the format and the tab's figure of the last export: someone exporting a
// series of spectra as SVG should not pick both again each time.
TEST_F(WindowTest, TheExportDialogOpensWithTheLastFigureAndFormat)
{
    QTemporaryDir directory;
    QSettings settings;
    settings.remove(QStringLiteral("figures"));
    std::vector<const Figure*> factored, heads;
    for (const QString& name : {QStringLiteral("factored"), QStringLiteral("spectrum")}) factored.push_back(findFigure(name));
    for (const QString& name : {QStringLiteral("heads"), QStringLiteral("head")}) heads.push_back(findFigure(name));
    ASSERT_TRUE(factored[0] && factored[1] && heads[0] && heads[1]);
    {
        FigureExportDialog first(factored);
        EXPECT_EQ(first.figure()->name, QStringLiteral("factored")) << "nothing remembered yet: the tab's first";
        EXPECT_EQ(first.format(), FigureFormat::Png);
        ASSERT_TRUE(first.selectFigure(QStringLiteral("spectrum")));
        first.setPath(directory.filePath(QStringLiteral("spectrum.svg")));
        first.accept();
    }
    FigureExportDialog again(factored);
    EXPECT_EQ(again.figure()->name, QStringLiteral("spectrum"));
    EXPECT_EQ(again.format(), FigureFormat::Svg);
    EXPECT_TRUE(again.path().endsWith(QStringLiteral("spectrum.svg"))) << again.path().toStdString();
    // Another tab keeps its own figure, in the format chosen last.
    FigureExportDialog other(heads);
    EXPECT_EQ(other.figure()->name, QStringLiteral("heads"));
    EXPECT_EQ(other.format(), FigureFormat::Svg);
    // A suffix typed into the file's name is the format chosen.
    {
        FigureExportDialog typed(heads);
        auto* edit = typed.findChild<QLineEdit*>();
        ASSERT_NE(edit, nullptr);
        edit->setText(directory.filePath(QStringLiteral("head.pdf")));
        ASSERT_TRUE(typed.selectFigure(QStringLiteral("head")));
        edit->setText(directory.filePath(QStringLiteral("head.pdf")));
        typed.accept();
        EXPECT_EQ(typed.format(), FigureFormat::Pdf);
    }
    FigureExportDialog afterTyped(heads);
    EXPECT_EQ(afterTyped.figure()->name, QStringLiteral("head"));
    EXPECT_EQ(afterTyped.format(), FigureFormat::Pdf);
    settings.remove(QStringLiteral("figures"));
}

TEST_F(WindowTest, CopyFigurePutsAnImageAndAnSvgOnTheClipboard)
{
    FigureActions* actions = actionsOf(window.get());
    window->tabs()->setCurrentWidget(window->tabs()->headsView());
    actions->copyCurrent();
    const QMimeData* data = QApplication::clipboard()->mimeData();
    ASSERT_NE(data, nullptr);
    EXPECT_TRUE(data->hasImage());
    EXPECT_EQ(qvariant_cast<QImage>(data->imageData()).size(), QSize(2800, 1800));
    EXPECT_TRUE(data->data(QStringLiteral("image/svg+xml")).contains("<svg"));
    EXPECT_TRUE(window->statusBar()->currentMessage().startsWith(QStringLiteral("Copied Heads grid to the clipboard")))
        << window->statusBar()->currentMessage().toStdString();
}

}  // namespace
}  // namespace qkv::ui
