#pragma once
// Sets up a guide step's state through the window's public paths, the ones its menus and views
// use: the Scenarios menu's DocumentFiles::applyScenario, File > Examples' demo model
// (MainWindow::openDemoModel, which asks about unsaved work first), ViewTabs' tabs by view id,
// the whole model's switched-off heads (WholeModelRuns) and the shared HeadSelection. Says when
// the state is reached: at once, or when the scenario's result arrives (presets are fitted off the
// GUI thread), or when the model is in and its overview run with the step's heads off.

#include <QObject>
#include <QString>

#include <optional>
#include <vector>

#include "core/pretrained/model_run.hpp"

namespace qkv::ui {

class MainWindow;
struct Example;
struct GuideState;

class GuideStateSetter : public QObject {
    Q_OBJECT
public:
    explicit GuideStateSetter(MainWindow* window);

    // Supersedes a state not yet reached.
    void apply(const GuideState& state);
    // The document holds `example`'s settings and generated weights (applying it again would
    // only add an undo step).
    bool holdsExample(const Example& example) const;
    // "Example … · tab … · head … · query «…»", rich text with the data escaped. On a model: what
    // the app measures on it now (learned_heads_text.hpp), or why the model is not shown.
    QString describe(const GuideState& state) const;

signals:
    void reached();

private:
    void select(const GuideState& state);
    void applyModel(const GuideState& state);
    // The model is the document: its tab, its heads off, then (once its overview is run) reached.
    void showModel(const GuideState& state);
    bool modelShown(const GuideState& state) const;
    // The model step's sentence and corrupted prompt (GuideState::sentence, ::corrupted): false
    // while they are being typed, run or patched (each done once per apply).
    bool sentenceShown(const GuideState& state);
    bool patchingShown(const GuideState& state);
    void dropPending();

    MainWindow* window_;
    QMetaObject::Connection pending_;
    std::vector<QMetaObject::Connection> waits_;  // a model step's: the load, the result, the runs
    QString modelProblem_;  // the model step's model is not shown: declined, or not readable
    std::optional<qkv::ModelHead> chosenHead_;  // GuideHeadsOff::StrongestInduction's, once found
    bool sentenceTyped_ = false;   // GuideState::sentence typed by this apply
    bool patchRequested_ = false;  // GuideState::corrupted handed to the Patching page by this apply
};

// The example called `id`, or null.
const Example* exampleById(const QString& id);

}  // namespace qkv::ui
