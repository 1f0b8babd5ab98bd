// The Train tab with a document: Start trains and the curves and heads fill in while the other
// tabs preview the model (no undo step); Pause, Step and Reset; Keep is one undo step and Undo
// brings the document back; what the tab says of itself.

#include <QComboBox>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QUndoStack>
#include <QValueAxis>

#include <gtest/gtest.h>

#include "tests/ui/train/train_test_support.hpp"
#include "ui/controls/field_message.hpp"
#include "ui/document/document.hpp"
#include "ui/document/session_text.hpp"
#include "ui/factored/factored_figures.hpp"
#include "ui/factored/factored_head_model.hpp"
#include "ui/figure_widgets/chart_view.hpp"
#include "ui/train/attention_panel.hpp"
#include "ui/train/curve_chart.hpp"
#include "ui/train/learned_attention.hpp"
#include "ui/train/train_settings_form.hpp"
#include "ui/train/train_tab.hpp"
#include "ui/train/training_worker.hpp"

namespace qkv::ui::testing {
namespace {

using State = TrainingSnapshot::State;

class TrainTabTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        qkv::Config config;
        config.sourceText = "the cat sat on the mat";
        config.targetText = "le chat";
        config.mode = qkv::AttentionMode::Cross;
        config.d_model = 32;
        config.headCount = 4;
        config.seed = 5;
        document.reset(config);
        document.waitUntilIdle();
        original = document.session();
        tab.worker()->setPublishInterval(30);
        tab.worker()->setEvaluations(10);
        makeSmall(*tab.form());
        tab.resize(1200, 800);
    }
    bool waitForSnapshot(const std::function<bool(const TrainingSnapshot&)>& done)
    {
        return waitFor(&tab, &TrainTab::snapshotShown,
                       [&] { return tab.worker()->latest() && done(*tab.worker()->latest()); });
    }
    Document document;
    qkv::Session original;
    TrainTab tab{&document};
};

TEST_F(TrainTabTest, StartTrainsAndTheCurvesAndHeadsFillInWhileTheOtherTabsPreview)
{
    const int undoSteps = document.undoStack()->count();
    ASSERT_TRUE(tab.startButton()->isEnabled());
    tab.form()->stepsBox()->setValue(100000);
    tab.startButton()->click();
    EXPECT_FALSE(tab.form()->isEnabled());  // the settings of a run stay as they are
    EXPECT_TRUE(tab.pauseButton()->isEnabled());
    ASSERT_TRUE(waitForSnapshot([](const TrainingSnapshot& s) { return s.steps > 0; }));
    const std::size_t firstPoints = tab.lossChart()->drawnPoints(QStringLiteral("factored · training")).size();
    EXPECT_GT(firstPoints, 0u);
    ASSERT_TRUE(waitForSnapshot([&](const TrainingSnapshot& s) { return static_cast<std::size_t>(s.steps) > firstPoints + 20; }));
    EXPECT_GT(tab.lossChart()->drawnPoints(QStringLiteral("factored · training")).size(), firstPoints);
    EXPECT_EQ(tab.progressBar()->value(), tab.worker()->latest()->steps);
    EXPECT_EQ(tab.progressBar()->maximum(), 100000);
    EXPECT_TRUE(tab.progressLabel()->text().contains(QStringLiteral("steps/s"))) << tab.progressLabel()->text().toStdString();
    // Every head of the chosen layer, labelled with the example's tokens.
    const AttentionPanel* panel = tab.attentionPanel();
    ASSERT_EQ(panel->shown().size(), 1u);
    EXPECT_EQ(panel->shown()[0].heads.size(), 2u);
    EXPECT_EQ(panel->shown()[0].rowLabels.size(), panel->shown()[0].heads[0].rows());
    EXPECT_EQ(panel->shown()[0].columnLabels.size(), panel->shown()[0].heads[0].cols());
    EXPECT_EQ(panel->layerBox()->currentText(), QStringLiteral("decoder.0.cross_attention"));
    // The other tabs preview the model: not an undo step, not what Save writes.
    EXPECT_TRUE(document.isPreviewing());
    EXPECT_TRUE(document.session().model);
    EXPECT_EQ(document.undoStack()->count(), undoSteps);
    EXPECT_EQ(document.documentSession().config, original.config);
    EXPECT_FALSE(document.isModified());
    EXPECT_TRUE(tab.hasUnkeptTraining());
}

TEST_F(TrainTabTest, PauseStopsTheStepsAndStepDoesOne)
{
    tab.form()->stepsBox()->setValue(100000);
    tab.startButton()->click();
    ASSERT_TRUE(waitForSnapshot([](const TrainingSnapshot& s) { return s.steps > 0; }));
    tab.pauseButton()->click();
    ASSERT_TRUE(waitForSnapshot([](const TrainingSnapshot& s) { return s.state == State::Paused; }));
    EXPECT_FALSE(tab.pauseButton()->isEnabled());
    EXPECT_TRUE(tab.startButton()->isEnabled());  // resumes
    EXPECT_TRUE(tab.progressLabel()->text().startsWith(QStringLiteral("Paused")));
    const long pausedAt = tab.worker()->latest()->steps;
    QSignalSpy shown(&tab, &TrainTab::snapshotShown);
    runEventsFor(150);
    EXPECT_EQ(shown.count(), 0);
    tab.stepButton()->click();
    ASSERT_TRUE(waitForSnapshot([&](const TrainingSnapshot& s) { return s.steps != pausedAt; }));
    EXPECT_EQ(tab.worker()->latest()->steps, pausedAt + 1);
}

TEST_F(TrainTabTest, ResetClearsTheTabAndReturnsTheDocument)
{
    tab.form()->stepsBox()->setValue(100000);
    tab.startButton()->click();
    ASSERT_TRUE(waitForSnapshot([](const TrainingSnapshot& s) { return s.steps > 0; }));
    ASSERT_TRUE(document.isPreviewing());
    QSignalSpy runChanged(&tab, &TrainTab::runChanged);
    tab.resetButton()->click();
    EXPECT_EQ(runChanged.count(), 1);
    EXPECT_FALSE(tab.worker()->hasRun());
    EXPECT_FALSE(tab.hasUnkeptTraining());
    EXPECT_TRUE(tab.lossChart()->drawnPoints(QStringLiteral("factored · training")).empty());
    EXPECT_TRUE(tab.attentionPanel()->shown().empty());
    EXPECT_EQ(tab.progressBar()->value(), 0);
    EXPECT_TRUE(tab.form()->isEnabled());
    EXPECT_FALSE(document.isPreviewing());
    EXPECT_EQ(document.session().config, original.config);
    EXPECT_FALSE(document.session().model);
    QSignalSpy shown(&tab, &TrainTab::snapshotShown);
    runEventsFor(100);
    EXPECT_EQ(shown.count(), 0) << "the stopped run still delivered";
}

TEST_F(TrainTabTest, KeepIsOneUndoStepAndUndoRestoresTheDocument)
{
    tab.form()->stepsBox()->setValue(30);
    tab.startButton()->click();
    ASSERT_TRUE(waitForSnapshot([](const TrainingSnapshot& s) { return s.state == State::Finished; }));
    const int undoSteps = document.undoStack()->count();
    ASSERT_TRUE(tab.keepButton()->isEnabled());
    tab.keepButton()->click();
    EXPECT_EQ(document.undoStack()->count(), undoSteps + 1);
    EXPECT_FALSE(document.isPreviewing());
    ASSERT_TRUE(document.session().model);
    EXPECT_EQ(document.session().model, tab.worker()->latest()->variants[0].model);
    const QString provenance = QString::fromStdString(document.session().model->provenance());
    EXPECT_TRUE(document.undoStack()->undoText().contains(provenance)) << document.undoStack()->undoText().toStdString();
    EXPECT_TRUE(document.isModified());
    EXPECT_FALSE(tab.hasUnkeptTraining());
    EXPECT_FALSE(tab.keepButton()->isEnabled());
    document.waitUntilIdle();
    EXPECT_TRUE(document.isValid());
    // Where the weights came from, said where the app says it, and the heads are the model's.
    EXPECT_TRUE(weightsOriginLines(document.session()).front().contains(provenance));
    EXPECT_EQ(document.headTitles(document.config()), (QStringList{"trained", "trained"}));

    document.undoStack()->undo();
    EXPECT_FALSE(document.session().model);
    EXPECT_EQ(document.session().config, original.config);
    EXPECT_FALSE(document.isModified());
}

TEST_F(TrainTabTest, KeepWhileRunningPausesAndKeepsTheModelItPausedAt)
{
    tab.form()->stepsBox()->setValue(100000);
    tab.startButton()->click();
    ASSERT_TRUE(waitForSnapshot([](const TrainingSnapshot& s) { return s.steps > 0; }));
    const int undoSteps = document.undoStack()->count();
    tab.keepButton()->click();
    EXPECT_TRUE(tab.worker()->isPaused());
    ASSERT_TRUE(waitFor(&document, &Document::previewChanged, [&] { return document.session().model && !document.isPreviewing(); }));
    EXPECT_EQ(document.undoStack()->count(), undoSteps + 1);
    ASSERT_TRUE(tab.worker()->latest());
    EXPECT_EQ(tab.worker()->latest()->state, State::Paused);
    EXPECT_EQ(document.session().model, tab.worker()->latest()->variants[0].model);
    EXPECT_EQ(document.session().model->steps, tab.worker()->latest()->steps);
    EXPECT_FALSE(tab.hasUnkeptTraining());
}

TEST_F(TrainTabTest, AFullModelIsKeptAndItsLayerIsShownLikeAnyOther)
{
    tab.form()->variantBox()->setCurrentIndex(1);
    tab.form()->stepsBox()->setValue(10);
    tab.startButton()->click();
    ASSERT_TRUE(waitForSnapshot([](const TrainingSnapshot& s) { return s.state == State::Finished; }));
    tab.keepButton()->click();
    ASSERT_TRUE(document.session().model);
    EXPECT_EQ(document.session().model->parameters.spec.scoreForm, qkv::ScoreForm::Full);
    document.waitUntilIdle();
    // Never an error state: head i is W_i^Q = W_i, W_i^K = I, d_k = d_model.
    EXPECT_TRUE(document.isValid()) << (document.issues().empty() ? std::string() : document.issues().front().message);
    ASSERT_NE(document.result(), nullptr);
    EXPECT_EQ(document.result()->attention.d_k(), document.config().d_model);
    EXPECT_EQ(document.result()->attention.d_v(), document.config().d_model / document.config().headCount);
    // The Factored W_i tab says what it shows: the learned W_i, not two thin factors.
    const FactoredHeadModel head = FactoredHeadModel::build(document.result(), 0, false);
    ASSERT_TRUE(head.valid());
    EXPECT_TRUE(factoredHeadline(head).contains(QStringLiteral("learned one full W_i"))) << factoredHeadline(head).toStdString();
    EXPECT_TRUE(factoredTradeOff(head).contains(QStringLiteral("two thin factors of d_k = %1").arg(document.config().d_model / document.config().headCount)))
        << factoredTradeOff(head).toStdString();
}

TEST_F(TrainTabTest, StartIsOffWithTheReasonWhileTheSizesDoNotFit)
{
    tab.form()->dModelBox()->setValue(16);
    tab.form()->headsBox()->setValue(3);
    EXPECT_FALSE(tab.startButton()->isEnabled());
    EXPECT_FALSE(tab.stepButton()->isEnabled());
    EXPECT_TRUE(tab.startButton()->toolTip().contains(QStringLiteral("h must divide d_model 16; 3 does not")))
        << tab.startButton()->toolTip().toStdString();
    EXPECT_TRUE(tab.form()->sizeMessage()->isVisibleTo(tab.form()));
    tab.form()->headsBox()->setValue(4);
    EXPECT_TRUE(tab.startButton()->isEnabled());
}

TEST_F(TrainTabTest, BothVariantsSideBySideWithTheFullModelsSpectrum)
{
    tab.form()->variantBox()->setCurrentIndex(2);
    tab.form()->stepsBox()->setValue(20);
    tab.startButton()->click();
    ASSERT_TRUE(waitForSnapshot([](const TrainingSnapshot& s) { return s.state == State::Finished; }));
    const AttentionPanel* panel = tab.attentionPanel();
    ASSERT_EQ(panel->shown().size(), 2u);
    EXPECT_TRUE(panel->shown()[0].title.startsWith(QStringLiteral("Factored")));
    EXPECT_TRUE(panel->shown()[1].title.startsWith(QStringLiteral("Full")));
    // The number in a head's short title ("1 · 73%") is explained in the picture, not only in a tooltip.
    EXPECT_TRUE(panel->shown()[0].scoreKey.startsWith(QStringLiteral("n · p%: head n's attention on the aligned source word")))
        << panel->shown()[0].scoreKey.toStdString();
    const QFont font;
    const LearnedAttentionLayout small =
        layoutLearnedAttention(panel->shown()[0], QRectF(0, 0, 300, 260), QFontMetricsF(font));
    EXPECT_GT(small.key.height(), 0.0);
    ASSERT_FALSE(small.panels.empty());
    EXPECT_LE(small.panels.front().bottom(), small.key.top());
    EXPECT_LE(small.key.bottom(), small.legend.top());
    // Where it would take more than a third of the heads' room, it gives way to the heads.
    const LearnedAttentionLayout tiny = layoutLearnedAttention(panel->shown()[0], QRectF(0, 0, 200, 110), QFontMetricsF(font));
    EXPECT_TRUE(tiny.key.isEmpty());
    EXPECT_EQ(panel->spectrum(0), nullptr);
    ASSERT_NE(panel->spectrum(1), nullptr);
    const ChartModel& spectrum = panel->spectrum(1)->model();
    ASSERT_EQ(spectrum.series.size(), 3u);  // one line per head, then k = d_k
    EXPECT_TRUE(spectrum.title.contains(QStringLiteral("full W_i's σ_k")));
    EXPECT_TRUE(spectrum.title.contains(QStringLiteral("legend: rank at 99% energy")));
    // The factored form's rank bound, d_k = 16 / 2, as a dashed vertical line.
    const ChartSeries& reference = spectrum.series[2];
    EXPECT_TRUE(reference.name.startsWith(QStringLiteral("k = d_k = 8"))) << reference.name.toStdString();
    EXPECT_EQ(reference.lineStyle, Qt::DashLine);
    ASSERT_EQ(reference.points.size(), 2u);
    EXPECT_EQ(reference.points[0].x(), 8.0);
    EXPECT_EQ(reference.points[1].x(), 8.0);
    const QString rank = spectrum.series[0].name.mid(QStringLiteral("Head 1: ").size());
    EXPECT_TRUE(spectrum.series[0].name.startsWith(QStringLiteral("Head 1: ")));
    EXPECT_GE(rank.toInt(), 1);
    EXPECT_LE(rank.toInt(), 16);
    EXPECT_EQ(spectrum.series[0].points.size(), 16u);
    EXPECT_FALSE(tab.lossChart()->drawnPoints(QStringLiteral("full W_i · training")).empty());
    EXPECT_EQ(tab.shownModelBox()->count(), 3);  // factored, full, the document

    // The run's verdict in words, from core's numbers: the target, what the scores cost, and how
    // many of d_model = 16 singular values the full W_i use against d_k = 16 / 2.
    const QString verdict = tab.verdictLabel()->text();
    EXPECT_TRUE(tab.verdictLabel()->isVisibleTo(&tab));
    EXPECT_TRUE(verdict.startsWith(QStringLiteral("Target, held-out whole-sequence accuracy >= 99%: "))) << verdict.toStdString();
    EXPECT_TRUE(verdict.contains(QStringLiteral("Score parameters: factored "))) << verdict.toStdString();
    EXPECT_TRUE(verdict.contains(QStringLiteral(", full W_i "))) << verdict.toStdString();
    EXPECT_TRUE(verdict.contains(QStringLiteral(" of 16 singular values hold 99% of the energy; a factored W_i has "
                                                "rank ≤ d_k = 8.")))
        << verdict.toStdString();
}

TEST(TrainTabTextTest, TheTabAndItsPartsSayWhatTheyAre)
{
    TrainTab tab(nullptr);
    EXPECT_FALSE(TrainTab::title().isEmpty());
    EXPECT_TRUE(TrainTab::summary().contains(QStringLiteral("W_i")));
    for (QPushButton* b : {tab.startButton(), tab.pauseButton(), tab.stepButton(), tab.resetButton(), tab.keepButton()})
        EXPECT_FALSE(b->toolTip().isEmpty()) << b->text().toStdString();
    EXPECT_EQ(tab.lossChart()->stepAxis()->titleText(), QStringLiteral("step"));
    EXPECT_EQ(tab.lossChart()->valueAxis()->titleText(), QStringLiteral("loss"));
    EXPECT_TRUE(tab.accuracyChart()->valueAxis()->titleText().startsWith(QStringLiteral("held-out accuracy")));
    EXPECT_EQ(tab.accuracyChart()->stepAxis()->titleText(), QStringLiteral("step"));
    EXPECT_FALSE(tab.form()->taskBox()->toolTip().isEmpty());
    EXPECT_FALSE(tab.form()->variantBox()->toolTip().isEmpty());
    // Without a document there is nothing to keep into.
    EXPECT_FALSE(tab.keepButton()->isEnabled());
}

}  // namespace
}  // namespace qkv::ui::testing
