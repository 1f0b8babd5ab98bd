#pragma once
// Sets up a guide step's state through the window's public paths, the ones its menus and views
// use: the Scenarios menu's DocumentFiles::applyScenario, ViewTabs' tabs by view id, and the
// shared HeadSelection. Says when the state is reached: at once, or when the scenario's
// result arrives (presets are fitted off the GUI thread).

#include <QObject>
#include <QString>

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
    // "Example … · tab … · head … · query «…»", rich text with the data escaped.
    QString describe(const GuideState& state) const;

signals:
    void reached();

private:
    void select(const GuideState& state);

    MainWindow* window_;
    QMetaObject::Connection pending_;
};

// The example called `id`, or null.
const Example* exampleById(const QString& id);

}  // namespace qkv::ui
