// Every control of every tab has an accessible name (what a screen reader says when it lands on
// it), on an example and on the demo model; no tool button is an icon alone. A failure names each
// control without one, with the tab it is on and where it sits, so it is fixed at its source.

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QAccessible>
#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTabBar>
#include <QToolButton>

#include <set>

#include "tests/ui/support/window_fixture.hpp"
#include "ui/document/examples.hpp"
#include "ui/mainwindow/document_files.hpp"
#include "ui/mainwindow/view_tabs.hpp"
#include "ui/wholemodel/whole_model_runs.hpp"

using qkv::ui::testing::WindowTest;

namespace qkv::ui {
namespace {

// "QComboBox 'headBox' in HeadsView > QWidget > QGroupBox 'Show'": enough to find it in the code.
QString describe(const QWidget* w)
{
    QString text = QString::fromLatin1(w->metaObject()->className());
    if (!w->objectName().isEmpty()) text += QStringLiteral(" '%1'").arg(w->objectName());
    if (const auto* button = qobject_cast<const QAbstractButton*>(w)) text += QStringLiteral(" text '%1'").arg(button->text());
    QStringList path;
    for (const QWidget* p = w->parentWidget(); p && !p->isWindow(); p = p->parentWidget()) {
        QString part = QString::fromLatin1(p->metaObject()->className());
        if (!p->objectName().isEmpty()) part += QStringLiteral(" '%1'").arg(p->objectName());
        path.prepend(part);
    }
    return text + QStringLiteral(" in ") + path.join(QStringLiteral(" > "));
}

bool isControl(const QWidget* w)
{
    // A scroll bar and a table's header are parts of the scroll area or table they belong to:
    // assistive technology reads them as such (and no Tab lands on them).
    if (qobject_cast<const QScrollBar*>(w) || qobject_cast<const QHeaderView*>(w)) return false;
    return qobject_cast<const QAbstractButton*>(w) || qobject_cast<const QComboBox*>(w) ||
           qobject_cast<const QLineEdit*>(w) || qobject_cast<const QAbstractSpinBox*>(w) ||
           qobject_cast<const QAbstractSlider*>(w) || qobject_cast<const QTabBar*>(w) ||
           qobject_cast<const QAbstractItemView*>(w) || (w->focusPolicy() & Qt::TabFocus);
}

bool takesAValue(const QWidget* w)
{
    return qobject_cast<const QComboBox*>(w) || qobject_cast<const QAbstractSpinBox*>(w) ||
           qobject_cast<const QAbstractSlider*>(w) ||
           (qobject_cast<const QLineEdit*>(w) && !qobject_cast<const QComboBox*>(w->parentWidget()));
}

QString accessibleName(QWidget* w)
{
    QAccessibleInterface* a = QAccessible::queryAccessibleInterface(w);
    return a ? a->text(QAccessible::Name).trimmed() : QString();
}

class AccessibleControls : public WindowTest {
protected:
    // The controls of the window as shown now without a name, and icon-only tool buttons.
    void collectProblems(const QString& tab, std::set<QString>& problems)
    {
        std::set<const QWidget*> labelled;
        for (const QLabel* label : window->findChildren<QLabel*>())
            if (label->buddy()) labelled.insert(label->buddy());
        for (QWidget* w : window->findChildren<QWidget*>()) {
            if (!w->isVisibleTo(window.get()) || !isControl(w) || w->focusProxy()) continue;
            // A combo box's line edit and a spin box's are read as the box they belong to.
            if (qobject_cast<QLineEdit*>(w) && (qobject_cast<QComboBox*>(w->parentWidget()) ||
                                               qobject_cast<QAbstractSpinBox*>(w->parentWidget())))
                continue;
            if (accessibleName(w).isEmpty()) problems.insert(tab + QStringLiteral(": no accessible name: ") + describe(w));
            // A box's accessible name on Linux is its value ("4"): what it is comes from a name of
            // its own or a label whose buddy it is.
            if (takesAValue(w) && w->accessibleName().trimmed().isEmpty() && !labelled.count(w))
                problems.insert(tab + QStringLiteral(": a value without a label or name: ") + describe(w));
            if (auto* tool = qobject_cast<QToolButton*>(w)) {
                const bool iconOnly = tool->toolButtonStyle() == Qt::ToolButtonIconOnly && !tool->icon().isNull();
                if ((iconOnly || tool->text().isEmpty()) && tool->toolTip().isEmpty())
                    problems.insert(tab + QStringLiteral(": an icon without text or tool tip: ") + describe(w));
            }
            if (auto* bar = qobject_cast<QTabBar*>(w)) {
                QAccessibleInterface* a = QAccessible::queryAccessibleInterface(bar);
                for (int i = 0; a && i < a->childCount(); ++i) {
                    QAccessibleInterface* child = a->child(i);
                    if (child && child->role() == QAccessible::PageTab && child->text(QAccessible::Name).trimmed().isEmpty())
                        problems.insert(tab + QStringLiteral(": a tab without a name in ") + describe(bar));
                }
            }
        }
    }

    // Every tab in turn, its whole-model panels filled in.
    std::set<QString> problemsOfEveryTab()
    {
        std::set<QString> problems;
        ViewTabs* tabs = window->tabs();
        WholeModelRuns* runs = tabs->wholeModelRuns();
        for (int i = 0; i < tabs->count(); ++i) {
            tabs->setCurrentIndex(i);
            settle();
            EXPECT_TRUE(QTest::qWaitFor([runs] { return !runs->isBusy(); }, 20000));
            settle();
            const QString name = tabs->tabText(i).remove(QLatin1Char('&'));
            collectProblems(name, problems);
            // Pages inside the tab (Predict's Generate) are walked too.
            for (QTabWidget* inner : tabs->widget(i)->findChildren<QTabWidget*>()) {
                for (int page = 0; page < inner->count(); ++page) {
                    inner->setCurrentIndex(page);
                    settle();
                    collectProblems(name + QStringLiteral(" > ") + inner->tabText(page), problems);
                }
                inner->setCurrentIndex(0);
            }
        }
        return problems;
    }

    static std::string joined(const std::set<QString>& problems)
    {
        QStringList lines(problems.begin(), problems.end());
        return lines.join(QLatin1Char('\n')).toStdString();
    }
};

TEST_F(AccessibleControls, EveryControlOfAnExampleHasAName)
{
    // The translation example: cross-attention, so both sentence fields and their chips show.
    const Example* translation = nullptr;
    for (const Example& e : examples())
        if (e.fileName.contains(QStringLiteral("translation"))) translation = &e;
    ASSERT_NE(translation, nullptr);
    window->files()->openExample(*translation);
    settle();
    const std::set<QString> problems = problemsOfEveryTab();
    EXPECT_TRUE(problems.empty()) << problems.size() << " controls a screen reader cannot name:\n" << joined(problems);
}

TEST_F(AccessibleControls, EveryControlOfTheDemoModelHasAName)
{
    QSignalSpy loaded(window.get(), &MainWindow::checkpointLayerLoaded);
    ASSERT_TRUE(window->openDemoModel());
    ASSERT_TRUE(loaded.wait(20000));
    ASSERT_TRUE(loaded.front().front().toString().isEmpty()) << loaded.front().front().toString().toStdString();
    settle();
    const std::set<QString> problems = problemsOfEveryTab();
    EXPECT_TRUE(problems.empty()) << problems.size() << " controls a screen reader cannot name:\n" << joined(problems);
}

}  // namespace
}  // namespace qkv::ui
