#include "ui/guide/student_guide.hpp"

#include <QAction>
#include <QCoreApplication>
#include <QEvent>
#include <QMenu>
#include <QTimer>

#include <algorithm>

#include "ui/guide/guide_panel.hpp"
#include "ui/guide/guide_state.hpp"
#include "ui/guide/guide_steps.hpp"
#include "ui/guide/guide_targets.hpp"
#include "ui/guide/highlight_overlay.hpp"
#include "ui/guide/panel_placement.hpp"
#include "ui/mainwindow/main_window.hpp"

namespace qkv::ui {

StudentGuide::StudentGuide(MainWindow* window)
    : QObject(window), window_(window), setter_(new GuideStateSetter(window)), overlay_(new HighlightOverlay(window)),
      panel_(new GuidePanel(window))
{
    setObjectName(QStringLiteral("StudentGuide"));
    panel_->hide();
    connect(setter_, &GuideStateSetter::reached, this, &StudentGuide::onReached);
    connect(panel_, &GuidePanel::nextRequested, this, &StudentGuide::next);
    connect(panel_, &GuidePanel::backRequested, this, &StudentGuide::back);
    connect(panel_, &GuidePanel::closeRequested, this, &StudentGuide::close);
    connect(panel_, &GuidePanel::glossaryToggled, this, [this](bool shown) {
        if (!shown && stepPending_) goTo(current_);  // from the glossary to a step not set up yet
        else placePanel();
    });
    // The panel moves off the outlined widget as it moves (the overlay also follows resizes).
    connect(overlay_, &HighlightOverlay::highlightChanged, this, &StudentGuide::placePanel);
}

StudentGuide::~StudentGuide()
{
    delete overlay_;
    delete panel_;
}

StudentGuide* StudentGuide::install(MainWindow* window, QMenu* help)
{
    auto* guide = new StudentGuide(window);
    guide->guideAction_ = help->addAction(tr("Student &Guide"), guide, &StudentGuide::start);
    guide->guideAction_->setShortcut(QKeySequence::HelpContents);
    guide->guideAction_->setStatusTip(tr("A tour of the questions students ask about Q, K, V and heads"));
    guide->glossaryAction_ = help->addAction(tr("G&lossary"), guide, &StudentGuide::showGlossary);
    guide->glossaryAction_->setStatusTip(tr("The symbols of “Attention Is All You Need”"));
    help->addSeparator();
    return guide;
}

int StudentGuide::stepCount() const { return static_cast<int>(guideSteps().size()); }

bool StudentGuide::isOpen() const { return panel_->isVisible(); }

void StudentGuide::start() { goTo(current_); }

void StudentGuide::showGlossary()
{
    // Reading help never changes the document: the panel opens on the glossary alone, and the
    // step's state (an example applied as a scenario) is set up only once the user turns to the
    // tour (glossaryToggled(false), Next or Back).
    if (!isOpen()) {
        reached_ = false;
        stepPending_ = true;
        overlay_->setTarget(nullptr);
        open();
        showCurrentText();
    }
    panel_->showGlossary(true);
    placePanel();
}

void StudentGuide::next()
{
    if (current_ + 1 < stepCount())
        goTo(current_ + 1);
    else
        close();
}

void StudentGuide::back()
{
    if (current_ > 0) goTo(current_ - 1);
}

void StudentGuide::close()
{
    panel_->hide();
    overlay_->setTarget(nullptr);
}

void StudentGuide::goTo(int index)
{
    current_ = std::clamp(index, 0, stepCount() - 1);
    reached_ = false;
    stepPending_ = false;
    overlay_->setTarget(nullptr);  // until the step's state is reached
    open();
    showCurrentText();
    setter_->apply(guideSteps()[static_cast<std::size_t>(current_)].state);
}

void StudentGuide::open()
{
    panel_->show();
    panel_->raise();
}

void StudentGuide::onReached()
{
    const GuideStep& step = guideSteps()[static_cast<std::size_t>(current_)];
    QWidget* target = targetWidget(*window_, step.target);
    // The tab just shown lays itself out on the next pass; the scroll position needs its sizes.
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    scrollIntoView(*target, targetFocus(*window_, step.target, step.part));
    overlay_->setTarget(target, [window = window_, step] { return targetFocus(*window, step.target, step.part); });
    showCurrentText();  // the setup line names the head and token now selected
    reached_ = true;
    emit stepReached(current_);
}

void StudentGuide::showCurrentText()
{
    const GuideStep& step = guideSteps()[static_cast<std::size_t>(current_)];
    panel_->showStep(step, current_, stepCount(), setter_->describe(step.state));
    placePanel();
}

void StudentGuide::placePanel()
{
    // No central widget: the window is being destroyed (its hiding still reaches the overlay).
    const QWidget* central = window_->centralWidget();
    if (!panel_->isVisible() || !central) return;
    const QRect area = central->geometry();
    panel_->setGeometry(
        qkv::ui::placePanel(QSize(GuidePanel::kWidth, panel_->preferredHeight()), area, overlay_->highlightedRect()));
    panel_->raise();
}

}  // namespace qkv::ui
