// HeadsView's entries in the window's View menu: what the grid shows, its colormap, the average
// of heads and the zoom. The view makes them, so the window lays out its View menu from every
// view's actions and knows none of the views' types.
#include <QAction>
#include <QActionGroup>
#include <QKeySequence>
#include <QMenu>

#include "ui/heads/heads_view.hpp"

namespace qkv::ui {

void HeadsView::makeMenuActions()
{
    auto* show = new QMenu(tr("&Show"), this);
    kindActions_ = new QActionGroup(this);
    for (std::size_t i = 0; i < kScoreKinds.size(); ++i) {
        const ScoreKind kind = kScoreKinds[i].value;
        QAction* action = show->addAction(scoreKindName(kind));
        action->setCheckable(true);
        action->setData(static_cast<int>(kind));
        action->setShortcut(QKeySequence(QStringLiteral("Ctrl+%1").arg(i + 1)));
        kindActions_->addAction(action);
        connect(action, &QAction::triggered, this, [this, kind] { setScoreKind(kind); });
    }
    auto* colormaps = new QMenu(tr("&Colormap"), this);
    colormapActions_ = new QActionGroup(this);
    for (ColormapName name : Colormap::all()) {
        QAction* action = colormaps->addAction(Colormap::get(name).displayName());
        action->setCheckable(true);
        action->setData(static_cast<int>(name));
        colormapActions_->addAction(action);
        connect(action, &QAction::triggered, this, [this, name] { setColormap(name); });
    }
    averageAction_ = new QAction(tr("&Average of Heads"), this);
    averageAction_->setCheckable(true);
    connect(averageAction_, &QAction::triggered, this, &HeadsView::setShowAverage);

    auto* separator = new QAction(this);
    separator->setSeparator(true);
    auto* zoomIn = new QAction(tr("Zoom &In"), this);
    zoomIn->setShortcut(QKeySequence::ZoomIn);
    connect(zoomIn, &QAction::triggered, this, [this] { zoomBy(1); });
    auto* zoomOut = new QAction(tr("Zoom &Out"), this);
    zoomOut->setShortcut(QKeySequence::ZoomOut);
    connect(zoomOut, &QAction::triggered, this, [this] { zoomBy(-1); });
    auto* fit = new QAction(tr("&Fit All Heads"), this);
    fit->setShortcut(QKeySequence(tr("Ctrl+0")));
    connect(fit, &QAction::triggered, this, &HeadsView::zoomToFit);

    menuActions_ = {show->menuAction(), colormaps->menuAction(), averageAction_, separator, zoomIn, zoomOut, fit};
    connect(this, &ResultView::optionsChanged, this, &HeadsView::showOptionsInMenu);
}

void HeadsView::showOptionsInMenu()
{
    for (QAction* action : kindActions_->actions())
        action->setChecked(action->data().toInt() == static_cast<int>(kind_));
    for (QAction* action : colormapActions_->actions())
        action->setChecked(action->data().toInt() == static_cast<int>(colormap()));
    averageAction_->setChecked(average_);
}

}  // namespace qkv::ui
