#pragma once
// The student guide: a tour of guideSteps() (guide_steps.hpp) over the main window. Each step
// sets up its state (GuideStateSetter), outlines the widget it points at (HighlightOverlay) and
// shows its text in a panel (GuidePanel) placed where it does not cover that widget. Not
// modal: the window stays usable, and the tour's changes are scenario undo steps.
//
// Help > Student Guide (F1) opens it, Help > Glossary opens it on the symbols.

#include <QObject>

class QAction;
class QMenu;

namespace qkv::ui {

class GuidePanel;
class GuideStateSetter;
class HighlightOverlay;
class MainWindow;

class StudentGuide : public QObject {
    Q_OBJECT
public:
    explicit StudentGuide(MainWindow* window);
    // Removes its outline and panel (and the outline's watch on the window) with it.
    ~StudentGuide() override;

    // Adds Student Guide (F1) and Glossary to `help`, driving a guide owned by `window`.
    static StudentGuide* install(MainWindow* window, QMenu* help);

    // Opens the tour on its current step (the first, the first time).
    void start();
    // Opens the panel on the glossary, changing nothing in the document.
    void showGlossary();
    // Sets up step `index` and points at its place.
    void goTo(int index);
    void next();  // on the last step: closes
    void back();
    void close();

    bool isOpen() const;
    int currentStep() const { return current_; }
    // The step's state is set up (its scenario's result shown, its head and token selected).
    bool isStepReached() const { return reached_; }
    int stepCount() const;

    GuidePanel* panel() const { return panel_; }
    HighlightOverlay* overlay() const { return overlay_; }
    QAction* guideAction() const { return guideAction_; }
    QAction* glossaryAction() const { return glossaryAction_; }

signals:
    // Step `index`'s state is set up and its place outlined.
    void stepReached(int index);

private:
    void open();
    void onReached();
    void showCurrentText();
    void placePanel();

    MainWindow* window_;
    GuideStateSetter* setter_;
    HighlightOverlay* overlay_;
    GuidePanel* panel_;
    QAction* guideAction_ = nullptr;
    QAction* glossaryAction_ = nullptr;
    int current_ = 0;
    bool reached_ = false;
    bool stepPending_ = false;  // shown by the glossary, the step's state not set up
};

}  // namespace qkv::ui
