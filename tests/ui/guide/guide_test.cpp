// The student guide on a 1000 x 700 main window: every step of the tour is reached (its
// example, tab, head and tokens) and points at a place that is on screen, not covered by the
// guide's own panel; Back, Next, Close, F1 and the glossary.

#include <QAbstractButton>
#include <QLabel>
#include <QMenuBar>
#include <QPushButton>
#include <QTextBrowser>
#include <QToolButton>
#include <QUndoStack>

#include <array>
#include <cstdlib>

#include "tests/ui/support/recording_prompts.hpp"
#include "tests/ui/support/wait_until.hpp"
#include "tests/ui/support/window_fixture.hpp"
#include "ui/document/examples.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/guide/glossary.hpp"
#include "ui/guide/guide_panel.hpp"
#include "ui/guide/guide_state.hpp"
#include "ui/guide/guide_steps.hpp"
#include "ui/guide/guide_targets.hpp"
#include "ui/guide/highlight_overlay.hpp"
#include "ui/guide/student_guide.hpp"
#include "ui/mainwindow/document_files.hpp"
#include "ui/mainwindow/view_tabs.hpp"
#include "ui/views/result_view.hpp"

namespace qkv::ui::testing {
namespace {

// What each step must set up, written here independently of the step table: a change of the
// table that breaks a question's answer fails here.
struct Expected {
    int step;  // its index in the tour
    const char* example;
    AttentionMode mode;
    const char* tab;
    int head;
    const char* query;  // the selected query token's text, lower case
};
constexpr std::array<Expected, 9> kExpected{{
    {0, "decoder", AttentionMode::DecoderCausal, "matrices", 0, "dog"},   // what Q, K, V are
    {1, "decoder", AttentionMode::DecoderCausal, "step", 1, "cat"},       // what V is
    {2, "translation", AttentionMode::Cross, "heads", 0, "chat"},         // which sentence gives Q
    {3, "low-rank", AttentionMode::EncoderSelf, "factored", 0, "the"},    // why two thin matrices
    {4, "low-rank", AttentionMode::EncoderSelf, "comparison", 0, "the"},  // what they save
    {5, "low-rank", AttentionMode::EncoderSelf, "factored", 1, "the"},    // one W^Q split into heads
    {6, "low-rank", AttentionMode::EncoderSelf, "matrices", 1, "cat"},    // the reshape
    {7, "translation", AttentionMode::Cross, "heads", 1, "noir"},         // whether heads specialise
    // 8 to 11: the demo model's learned heads and circuits (learned_heads_guide_test.cpp) and its
    // patching (patching_guide_test.cpp)
    {12, "trained-reverse", AttentionMode::Cross, "heads", 0, "f"},       // a model trained here
}};

qint64 area(const QRect& r) { return r.isEmpty() ? 0 : qint64{r.width()} * r.height(); }

class GuideTest : public WindowTest {
protected:
    void SetUp() override
    {
        WindowTest::SetUp();
        window->resize(1000, 700);
        // The demo model's steps ask about the changes the earlier steps' scenarios made.
        log->answer = QMessageBox::Discard;
        window->files()->setPrompts(recordingPrompts(log));
        settle();
        guide = window->findChild<StudentGuide*>();
        ASSERT_NE(guide, nullptr);
    }
    // Goes to step `index` and waits until its state is reached and the window laid out.
    void reach(int index)
    {
        guide->goTo(index);
        ASSERT_TRUE(waitUntil([&] { return guide->isStepReached(); })) << "step " << index << " never reached";
        settle();
        QTest::qWait(20);  // layouts and scroll positions settle through posted events
    }
    void waitReached()
    {
        ASSERT_TRUE(waitUntil([&] { return guide->isStepReached(); }));
        settle();
    }
    QString queryText() const
    {
        const auto result = window->document()->result();
        const auto row = static_cast<std::size_t>(window->selection()->queryRow());
        return result && row < result->queryLabels.size() ? QString::fromStdString(result->queryLabels[row]).toLower()
                                                          : QString();
    }

    StudentGuide* guide = nullptr;
    std::shared_ptr<PromptLog> log = std::make_shared<PromptLog>();
};

TEST_F(GuideTest, TheTableHasTheStepsThisTestExpects)
{
    // The example steps, then the demo model's four (learned_heads_guide_test.cpp,
    // patching_guide_test.cpp).
    ASSERT_EQ(guideSteps().size(), kExpected.size() + 4);
    for (const GuideStep& step : guideSteps()) {
        SCOPED_TRACE(step.title.toStdString());
        EXPECT_FALSE(step.title.isEmpty());
        EXPECT_FALSE(step.text.isEmpty());
        EXPECT_FALSE(step.equation.isEmpty());
        EXPECT_FALSE(step.targetName.isEmpty());
        const auto index = &step - guideSteps().data();
        const bool onTheDemoModel = index >= 8 && index <= 11;
        EXPECT_EQ(step.state.model, onTheDemoModel ? GuideModel::Demo : GuideModel::None);
        if (!onTheDemoModel) EXPECT_NE(exampleById(step.state.example), nullptr);
        EXPECT_NE(window->tabs()->view(step.state.tab), nullptr);
        EXPECT_NE(targetWidget(*window, step.target), nullptr);
        // A few sentences, not a page.
        EXPECT_LT(step.text.size(), 480);
    }
}

class GuideStepTest : public GuideTest, public ::testing::WithParamInterface<int> {};

TEST_P(GuideStepTest, ReachesItsStateAndPointsAtAPlaceOnScreenAt1000x700)
{
    const Expected& expected = kExpected[static_cast<std::size_t>(GetParam())];
    const int index = expected.step;
    const GuideStep& step = guideSteps()[static_cast<std::size_t>(index)];
    ASSERT_EQ(window->size(), QSize(1000, 700));
    guide->start();
    reach(index);
    EXPECT_EQ(guide->currentStep(), index);
    EXPECT_TRUE(guide->isOpen());

    // The example, loaded and computed.
    const Example* example = exampleById(QString::fromLatin1(expected.example));
    ASSERT_NE(example, nullptr);
    const auto session = readExample(*example);
    ASSERT_TRUE(session) << session.error();
    EXPECT_EQ(window->document()->config(), session->config);
    ASSERT_NE(window->document()->result(), nullptr);
    EXPECT_EQ(window->document()->result()->config, session->config);
    EXPECT_EQ(window->document()->config().mode, expected.mode);
    // The tab, head and token.
    const auto* current = qobject_cast<ResultView*>(window->tabs()->currentWidget());
    ASSERT_NE(current, nullptr);
    EXPECT_EQ(current->id(), QString::fromLatin1(expected.tab));
    EXPECT_EQ(window->selection()->head(), expected.head);
    EXPECT_EQ(queryText(), QString::fromUtf8(expected.query));
    EXPECT_EQ(window->selection()->keyColumn(), step.state.key);

    // The place it points at: outlined, shown, inside the window, of a readable size.
    QWidget* target = targetWidget(*window, step.target);
    ASSERT_NE(target, nullptr);
    EXPECT_EQ(guide->overlay()->target(), target);
    EXPECT_TRUE(guide->overlay()->isVisible());
    EXPECT_TRUE(target->isVisible());
    const QRect shown = visibleRect(*target, *window);
    EXPECT_GE(shown.width(), 150) << "target " << step.targetName.toStdString();
    EXPECT_GE(shown.height(), 100) << "target " << step.targetName.toStdString();
    EXPECT_TRUE(window->centralWidget()->geometry().contains(shown));
    // Where the target answers within itself (the value rows of the Steps tab, Q and Q_i of the
    // Matrices tab), scrolled to and outlined, not the whole view.
    const QRect focus = targetFocus(*window, step.target, step.part);
    EXPECT_EQ(focus.isEmpty(), index != 1 && index != 6) << "only the V and reshape steps point inside their widget";
    if (focus.isEmpty()) {
        EXPECT_EQ(guide->overlay()->highlightedRect(), shown);
    } else {
        const QRect focusShown(target->mapTo(window.get(), focus.topLeft()), focus.size());
        EXPECT_TRUE(shown.contains(focusShown.topLeft()));
        EXPECT_GE(area(focusShown & shown), area(focusShown) / 2);
        EXPECT_EQ(guide->overlay()->highlightedRect(), focusShown & shown);
        EXPECT_LT(area(focusShown & shown), area(shown) * 3 / 4) << "a part, not the whole view";
    }
    // What Qt itself says is unobscured: the widget's own region, clipped by its ancestors.
    EXPECT_GE(area(target->visibleRegion().boundingRect()), area(shown) * 9 / 10);

    // The panel: inside the window, covering at most a sliver of the target, with the step.
    GuidePanel* panel = guide->panel();
    EXPECT_TRUE(panel->isVisible());
    EXPECT_TRUE(window->rect().contains(panel->geometry()));
    EXPECT_LE(area(panel->geometry() & shown), area(shown) / 20) << "the panel covers the target";
    EXPECT_EQ(panel->titleLabel()->text(), step.title);
    EXPECT_EQ(panel->equationLabel()->text(), step.equation);
    EXPECT_TRUE(
        panel->counterLabel()->text().contains(QStringLiteral("%1 of %2").arg(index + 1).arg(guideSteps().size())));
    EXPECT_TRUE(panel->whereLabel()->text().contains(step.targetName.toHtmlEscaped()));
    // Every label is whole: as tall as its text needs at its width.
    for (const QLabel* label : {panel->titleLabel(), panel->textLabel(), panel->equationLabel(), panel->whereLabel()})
        EXPECT_GE(label->height(), label->heightForWidth(label->width())) << label->text().toStdString();
}

INSTANTIATE_TEST_SUITE_P(EveryStep, GuideStepTest, ::testing::Range(0, static_cast<int>(kExpected.size())));

// What the last step says of the model trained here is so: averaged over the heads, decoder
// position t (reading <bos> and the target up to t) looks most at source position n - 1 - t, the
// symbol it is to copy, or at its neighbour (the rest of the model finds the symbol from there).
TEST_F(GuideTest, TheModelTrainedHereLearnedTheReverseAlignment)
{
    const int last = static_cast<int>(guideSteps().size()) - 1;
    ASSERT_EQ(guideSteps()[static_cast<std::size_t>(last)].state.example, QStringLiteral("trained-reverse"));
    guide->start();
    reach(last);
    const auto result = window->document()->result();
    ASSERT_TRUE(result);
    const qkv::AttentionResult& a = result->attention;
    const qkv::Index n = a.keyCount();
    ASSERT_EQ(n, 8);
    MatrixF mean = MatrixF::Zero(a.queryCount(), n);
    for (const qkv::HeadAttention& head : a.heads) mean += head.attention / static_cast<float>(a.headCount());
    int exact = 0;
    for (qkv::Index t = 0; t < n; ++t) {
        qkv::Index looked = 0;
        mean.row(t).maxCoeff(&looked);
        EXPECT_LE(std::abs(looked - (n - 1 - t)), 1) << "decoder position " << t;
        exact += looked == n - 1 - t;
    }
    EXPECT_GE(exact, 6) << "on the anti-diagonal itself at most positions";
}

TEST_F(GuideTest, HelpMenuOpensTheGuideWithF1)
{
    QMenu* help = nullptr;
    for (QAction* action : window->menuBar()->actions())
        if (action->text() == QStringLiteral("&Help")) help = action->menu();
    ASSERT_NE(help, nullptr);
    EXPECT_TRUE(help->actions().contains(guide->guideAction()));
    EXPECT_TRUE(help->actions().contains(guide->glossaryAction()));
    EXPECT_EQ(guide->guideAction()->shortcut(), QKeySequence(Qt::Key_F1));
    EXPECT_FALSE(guide->isOpen());

    window->activateWindow();
    ASSERT_TRUE(QTest::qWaitForWindowActive(window.get()));
    QTest::keyClick(window.get(), Qt::Key_F1);
    EXPECT_TRUE(guide->isOpen());
    waitReached();
    EXPECT_EQ(guide->currentStep(), 0);
}

TEST_F(GuideTest, NextBackAndCloseWalkTheTour)
{
    guide->start();
    waitReached();
    GuidePanel* panel = guide->panel();
    EXPECT_FALSE(panel->backButton()->isEnabled());
    for (int i = 1; i < guide->stepCount(); ++i) {
        QTest::mouseClick(panel->nextButton(), Qt::LeftButton);
        waitReached();
        EXPECT_EQ(guide->currentStep(), i);
        EXPECT_TRUE(panel->backButton()->isEnabled());
    }
    EXPECT_EQ(panel->nextButton()->text(), QStringLiteral("Fi&nish"));
    QTest::mouseClick(panel->backButton(), Qt::LeftButton);
    waitReached();
    EXPECT_EQ(guide->currentStep(), guide->stepCount() - 2);
    EXPECT_EQ(window->tabs()->currentWidget(), window->tabs()->view(guideSteps()[guideSteps().size() - 2].state.tab));

    QTest::mouseClick(panel->closeButton(), Qt::LeftButton);
    EXPECT_FALSE(guide->isOpen());
    EXPECT_FALSE(guide->overlay()->isVisible());
    EXPECT_EQ(guide->overlay()->target(), nullptr);

    // Opened again, it resumes where it was; Finish on the last step closes it.
    guide->start();
    waitReached();
    EXPECT_EQ(guide->currentStep(), guide->stepCount() - 2);
    QTest::mouseClick(panel->nextButton(), Qt::LeftButton);
    waitReached();
    QTest::mouseClick(panel->nextButton(), Qt::LeftButton);
    EXPECT_FALSE(guide->isOpen());
}

TEST_F(GuideTest, StepsOnTheSameExampleAddOneUndoStep)
{
    QUndoStack* undo = window->document()->undoStack();
    const int before = undo->count();
    reach(3);  // low-rank, applied as a scenario
    EXPECT_EQ(undo->count(), before + 1);
    reach(4);
    reach(5);
    reach(6);
    reach(3);
    EXPECT_EQ(undo->count(), before + 1);
    reach(7);  // translation
    EXPECT_EQ(undo->count(), before + 2);
    undo->undo();  // the tour's changes are ordinary undo steps
    settle();
    EXPECT_EQ(window->document()->config().mode, AttentionMode::EncoderSelf);
}

TEST_F(GuideTest, TheHighlightFollowsTheWindow)
{
    reach(7);
    const QRect before = guide->overlay()->highlightedRect();
    window->resize(1300, 850);
    settle();
    QTest::qWait(20);
    EXPECT_EQ(guide->overlay()->geometry(), window->rect());
    const QRect after = guide->overlay()->highlightedRect();
    EXPECT_EQ(after, visibleRect(*guide->overlay()->target(), *window));
    EXPECT_NE(after, before);
    EXPECT_FALSE(guide->panel()->geometry().intersects(after));
}

TEST_F(GuideTest, TheGlossaryNamesThePapersSymbols)
{
    guide->glossaryAction()->trigger();
    EXPECT_TRUE(guide->isOpen());
    EXPECT_TRUE(guide->panel()->isGlossaryShown());
    EXPECT_TRUE(guide->panel()->glossaryButton()->isChecked());
    const QString text = guide->panel()->glossaryBrowser()->toPlainText();
    for (const char* symbol : {"WQ", "WK", "WV", "WO", "WiQ", "dmodel", "dk", "dv", "nq", "nk", "softmax", "√dk", "QKT",
                               "headi", "Concat", "Wi", "rank", "(n, h, dk) → (h, n, dk)"})
        EXPECT_TRUE(text.contains(QString::fromUtf8(symbol))) << symbol;
    for (const GlossaryEntry& entry : glossaryEntries()) EXPECT_FALSE(entry.meaning.isEmpty());
    EXPECT_TRUE(text.contains(QStringLiteral("dk = dv = dmodel/h")));
    EXPECT_TRUE(window->rect().contains(guide->panel()->geometry()));

    // Back to the step it was on.
    QTest::mouseClick(guide->panel()->glossaryButton(), Qt::LeftButton);
    EXPECT_FALSE(guide->panel()->isGlossaryShown());
    EXPECT_TRUE(guide->panel()->counterLabel()->text().contains(QStringLiteral("1 of")));
}

// Help > Glossary is reading: the document is not touched until the user turns to the tour.
TEST_F(GuideTest, TheGlossaryNeverEditsTheDocument)
{
    const qkv::Config before = window->document()->config();
    const int steps = window->document()->undoStack()->count();
    guide->glossaryAction()->trigger();
    settle();
    EXPECT_TRUE(guide->panel()->isGlossaryShown());
    EXPECT_EQ(window->document()->config(), before);
    EXPECT_EQ(window->document()->undoStack()->count(), steps);
    EXPECT_FALSE(guide->isStepReached());
    // Turning to the tour sets its step up.
    QTest::mouseClick(guide->panel()->glossaryButton(), Qt::LeftButton);
    waitReached();
    EXPECT_NE(window->document()->config(), before);
    EXPECT_EQ(window->document()->undoStack()->count(), steps + 1);
}

TEST_F(GuideTest, TheSetupLineEscapesTokens)
{
    Config config = smallConfig();
    config.sourceText = "a<b x";
    setConfig(config);
    window->selection()->setCell(1, 0);  // "<", a token of its own
    ASSERT_EQ(window->document()->result()->queryLabels.at(1), "<");
    GuideStateSetter setter(window.get());
    GuideState state;
    state.tab = QStringLiteral("heads");
    const QString line = setter.describe(state);
    EXPECT_TRUE(line.contains(QStringLiteral("«&lt;»"))) << line.toStdString();
    EXPECT_FALSE(line.contains(QStringLiteral("«<»"))) << line.toStdString();
}

}  // namespace
}  // namespace qkv::ui::testing
