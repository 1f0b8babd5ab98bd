// The Predictions tab on the synthetic BERT (masked LM) and GPT-2 (causal LM) checkpoints: every
// number it shows is core's (topPredictions, tokenProbability and modelRollout on runs made here
// independently), switching a head off moves the "after" column to the ablated run's numbers, the
// ranking is rankHeadsAtPosition's and its top row changes the prediction, Stop stops, and without
// a model the tab says how to get one.

#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QThreadPool>

#include <algorithm>
#include <memory>

#include <gtest/gtest.h>

#include "core/export/model_export.hpp"
#include "support/matrix_assertions.hpp"
#include "tests/ui/predict/prediction_test_support.hpp"
#include "tests/ui/support/untokenized_checkpoint.hpp"
#include "ui/background/work_pool.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/figure_widgets/chart_view.hpp"
#include "ui/predict/head_ranking_panel.hpp"
#include "ui/predict/prediction_panel.hpp"
#include "ui/predict/prediction_view.hpp"
#include "ui/predict/rollout_panel.hpp"
#include "ui/support/wait_until.hpp"
#include "ui/wholemodel/whole_model_runs.hpp"

namespace qkv::ui {
namespace {

using testing::copyGpt2WithoutTokenizer;
using testing::openFixtureModel;
using testing::referenceRun;
using testing::waitUntil;
using testing::wholeModelResult;

constexpr const char* kBertSentence = "d [MASK] super / [MASK]";
constexpr const char* kGpt2Sentence = "the cat sat on a mat";

// The tab as ViewTabs holds it: one selection, the shared runs, the view shown.
struct Tab {
    HeadSelection selection;
    WholeModelRuns runs;
    PredictionView view{&selection, &runs};

    Tab() { view.resize(1200, 800); }
    void show(const std::shared_ptr<const Result>& result)
    {
        runs.setResult(result);
        view.setResult(result);
        view.show();
    }
    // Waits for an overview with `heads` switched off.
    bool waitForOverview(const std::set<ModelHead>& heads = {})
    {
        return waitUntil([&] { return view.overview() && view.overview()->ablatedHeads() == heads && !runs.isBusy(); });
    }
};

ModelSentences sentencesOf(const PretrainedModel& model, const std::string& source, const std::string& target)
{
    Expected<ModelSentences> sentences = modelSentences(model, source, target);
    EXPECT_TRUE(sentences.ok());
    return sentences ? std::move(*sentences) : ModelSentences();
}

// Each shown row's probabilities against core's on independent runs.
void expectComparisonOf(const PredictionComparison& shown, const ModelRun& before, const ModelRun& after)
{
    ASSERT_FALSE(shown.rows.empty());
    const Index row = before.logitRow(shown.position);
    ASSERT_GE(row, 0);
    for (const PredictionRow& r : shown.rows) {
        const Expected<double> p0 = tokenProbability(before.logits.row(row), r.id);
        const Expected<double> p1 = tokenProbability(after.logits.row(after.logitRow(shown.position)), r.id);
        ASSERT_TRUE(p0.ok() && p1.ok());
        EXPECT_NEAR(r.before, *p0, 1e-12) << "token " << r.id;
        EXPECT_NEAR(r.after, *p1, 1e-12) << "token " << r.id;
    }
}

TEST(PredictionView, MaskedLmShowsCoresTopFiveAtEachMask)
{
    const auto model = openFixtureModel("bert");
    ASSERT_TRUE(model);
    Tab tab;
    tab.show(wholeModelResult(model, kBertSentence, "", 1));
    ASSERT_TRUE(tab.waitForOverview());
    EXPECT_TRUE(tab.view.message().isEmpty()) << tab.view.message().toStdString();

    // The sentence is the fixture's run.json: ids 2 57 4 120 33 4 3, [MASK] (id 4) at 2 and 5.
    const ModelSentences sentences = sentencesOf(*model, kBertSentence, "");
    ASSERT_EQ(sentences.tokens.ids, (std::vector<std::int32_t>{2, 57, 4, 120, 33, 4, 3}));
    PredictionPanel* panel = tab.view.predictionPanel();
    ASSERT_EQ(panel->positionBox()->count(), 2);
    EXPECT_EQ(panel->positionBox()->itemData(0).toLongLong(), 2);
    EXPECT_EQ(panel->positionBox()->itemData(1).toLongLong(), 5);

    const ModelRun reference = referenceRun(*model, sentences);
    for (const Index position : {Index{2}, Index{5}}) {
        panel->setPosition(position);
        const PredictionComparison& shown = panel->comparison();
        ASSERT_EQ(shown.position, position);
        const Expected<std::vector<TokenProbability>> top =
            topPredictions(reference.logits.row(reference.logitRow(position)), 5);
        ASSERT_TRUE(top.ok());
        // Every head on: the rows are the top 5, most likely first, with core's probabilities.
        ASSERT_EQ(shown.rows.size(), top->size());
        for (std::size_t i = 0; i < top->size(); ++i) {
            EXPECT_EQ(shown.rows[i].id, (*top)[i].id);
            EXPECT_NEAR(shown.rows[i].before, (*top)[i].probability, 1e-12);
            EXPECT_EQ(shown.rows[i].after, shown.rows[i].before);
        }
        // The chart draws those numbers (bottom-up: the most likely token last).
        const ChartModel& chart = panel->chart()->model();
        ASSERT_EQ(chart.series.size(), 1u);
        ASSERT_EQ(chart.series[0].values.size(), top->size());
        EXPECT_NEAR(chart.series[0].values.back(), top->front().probability, 1e-12);
    }
    EXPECT_TRUE(panel->headsOffLabel()->text().contains("Every head is on"));
    EXPECT_FALSE(panel->switchOnButton()->isVisible());
}

TEST(PredictionView, RolloutAtEachStopIsCoresModelRollout)
{
    const auto model = openFixtureModel("bert");
    ASSERT_TRUE(model);
    Tab tab;
    tab.show(wholeModelResult(model, kBertSentence, "", 0));
    ASSERT_TRUE(tab.waitForOverview());
    RolloutPanel* rollout = tab.view.rolloutPanel();
    const ModelRun reference = referenceRun(*model, sentencesOf(*model, kBertSentence, ""));
    const Index stops = static_cast<Index>(rolloutLayers(*model, reference).size());
    ASSERT_EQ(rollout->stopCount(), stops);
    ASSERT_GE(stops, 2);
    // The last layer by default.
    ASSERT_TRUE(waitUntil([&] { return rollout->picture().rollout.size() > 0; }));
    EXPECT_EQ(rollout->stop(), stops - 1);
    for (const Index stop : {stops - 1, Index{0}}) {
        rollout->setStop(stop);
        ASSERT_TRUE(waitUntil([&] { return rollout->picture().stop == stop && !rollout->isBusy(); }));
        const Expected<MatrixD> expected = modelRollout(*model, reference, stop);
        ASSERT_TRUE(expected.ok());
        EXPECT_MATRIX_NEAR(rollout->picture().rollout, *expected, 1e-12);
        EXPECT_EQ(rollout->picture().tokens.size(), expected->cols());
    }
    EXPECT_NE(modelRollout(*model, reference, 0)->maxCoeff(), modelRollout(*model, reference, stops - 1)->maxCoeff());
}

TEST(PredictionView, SwitchingAHeadOffShowsTheAblatedRunAndSwitchesBackOn)
{
    const auto model = openFixtureModel("bert");
    ASSERT_TRUE(model);
    Tab tab;
    tab.show(wholeModelResult(model, kBertSentence, "", 1));
    ASSERT_TRUE(tab.waitForOverview());
    const ModelSentences sentences = sentencesOf(*model, kBertSentence, "");
    const std::set<ModelHead> off{{0, 0}, {1, 1}};
    tab.runs.setHeadsOff(off);
    ASSERT_TRUE(tab.waitForOverview(off));

    PredictionPanel* panel = tab.view.predictionPanel();
    const ModelRun before = referenceRun(*model, sentences);
    const ModelRun after = referenceRun(*model, sentences, off);
    expectComparisonOf(panel->comparison(), before, after);
    double largest = 0.0;
    for (const PredictionRow& row : panel->comparison().rows) largest = std::max(largest, std::abs(row.change()));
    EXPECT_GT(largest, 1e-6) << "switching two heads off changed no probability shown";
    // Both series, the heads named as --ablate writes them, and the way back.
    ASSERT_EQ(panel->chart()->model().series.size(), 2u);
    for (const ModelHead& head : off)
        EXPECT_TRUE(panel->headsOffLabel()->text().contains(QString::fromStdString(modelHeadText(*model, head))));
    ASSERT_TRUE(panel->switchOnButton()->isVisible());
    panel->switchOnButton()->click();
    EXPECT_TRUE(tab.runs.headsOff().empty());
    ASSERT_TRUE(tab.waitForOverview());
    EXPECT_EQ(panel->chart()->model().series.size(), 1u);
}

TEST(PredictionView, CausalLmFollowsTheQueryRowAndRanksHeadsAsCoreDoes)
{
    const auto model = openFixtureModel("gpt2");
    ASSERT_TRUE(model);
    Tab tab;
    tab.show(wholeModelResult(model, "", kGpt2Sentence, 1));
    ASSERT_TRUE(tab.waitForOverview());
    PredictionPanel* panel = tab.view.predictionPanel();
    const ModelSentences sentences = sentencesOf(*model, "", kGpt2Sentence);
    const auto n = static_cast<Index>(sentences.sequence.tokens.size());
    ASSERT_EQ(panel->positionBox()->count(), n);
    EXPECT_EQ(panel->position(), n - 1);  // the next token after the sentence
    EXPECT_TRUE(panel->positionBox()->currentText().startsWith("after «"));
    tab.selection.setCell(2, 0);
    EXPECT_EQ(panel->position(), 2);
    expectComparisonOf(panel->comparison(), referenceRun(*model, sentences), referenceRun(*model, sentences));

    HeadRankingPanel* ranking = tab.view.rankingPanel();
    ASSERT_EQ(ranking->tokenBox()->count(), 5);
    ranking->setTokenIndex(1);  // the second most likely token
    const std::int32_t id = ranking->tokenId();
    EXPECT_EQ(id, panel->comparison().rows[1].id);
    QSignalSpy ended(ranking, &HeadRankingPanel::rankingEnded);
    ranking->rankButton()->click();
    ASSERT_TRUE(waitUntil([&] { return ended.count() == 1; }));
    const Expected<std::vector<HeadEffect>> expected = rankHeadsAtPosition(*tab.view.overview(), 2, id);
    ASSERT_TRUE(expected.ok());
    ASSERT_EQ(ranking->effects().size(), expected->size());
    ASSERT_EQ(ranking->table()->rowCount(), static_cast<int>(expected->size()));
    for (std::size_t i = 0; i < expected->size(); ++i) {
        EXPECT_EQ(ranking->effects()[i].candidate.layer, (*expected)[i].candidate.layer);
        EXPECT_EQ(ranking->effects()[i].candidate.head, (*expected)[i].candidate.head);
        EXPECT_EQ(ranking->effects()[i].change.after, (*expected)[i].change.after);
    }
    const HeadEffect top = expected->front();
    const ModelHead head{top.candidate.layer, top.candidate.head};
    EXPECT_EQ(ranking->table()->item(0, 0)->text().toStdString(), modelHeadText(*model, head));
    ASSERT_GT(std::abs(top.change.change), 1e-6);

    // The top row is selected for "Switch off"; it switches its head off, and the prediction
    // moves to what the ranking said.
    ASSERT_TRUE(ranking->switchOffButton()->isEnabled());
    ranking->switchOffButton()->click();
    ASSERT_TRUE(tab.waitForOverview({head}));
    EXPECT_EQ(panel->position(), 2);
    const auto row = std::find_if(panel->comparison().rows.begin(), panel->comparison().rows.end(),
                                  [&](const PredictionRow& r) { return r.id == id; });
    ASSERT_NE(row, panel->comparison().rows.end());
    EXPECT_NEAR(row->after, top.change.after, 1e-12);
    EXPECT_NEAR(row->change(), top.change.change, 1e-12);
    // The ranking stays (same sentence) and marks the head now off.
    EXPECT_EQ(ranking->effects().size(), expected->size());
    EXPECT_TRUE(ranking->table()->item(0, 0)->text().contains("off"));
    EXPECT_FALSE(ranking->switchOffButton()->isEnabled());

    // A new sentence clears it.
    tab.show(wholeModelResult(model, "", "a mat", 1));
    ASSERT_TRUE(waitUntil([&] {
        return tab.view.overview() &&
               tab.view.overview()->sentences.sequence.tokens.size() != sentences.sequence.tokens.size();
    }));
    EXPECT_TRUE(ranking->effects().empty());
    EXPECT_EQ(ranking->table()->rowCount(), 0);
}

// The position chosen in the tab stays while the selection keeps its query row: another key,
// a span from the same query, switching a head off and a recompute of the same sentence do not
// move it; selecting another query row does.
TEST(PredictionView, ThePositionChosenStaysUntilAnotherQueryRowIsSelected)
{
    const auto model = openFixtureModel("gpt2");
    ASSERT_TRUE(model);
    Tab tab;
    tab.show(wholeModelResult(model, "", kGpt2Sentence, 1));
    ASSERT_TRUE(tab.waitForOverview());
    PredictionPanel* panel = tab.view.predictionPanel();
    ASSERT_GE(panel->positionBox()->count(), 6);
    tab.selection.setCell(2, 0);
    ASSERT_EQ(panel->position(), 2);
    const int chosen = panel->positionBox()->findData(QVariant::fromValue<qlonglong>(4));
    ASSERT_GE(chosen, 0);
    emit panel->positionBox()->activated(chosen);  // as a click on the list does
    ASSERT_EQ(panel->position(), 4);

    tab.selection.setKey(1);
    EXPECT_EQ(panel->position(), 4) << "another key of the same query";
    tab.selection.setCell(2, 2);
    EXPECT_EQ(panel->position(), 4) << "a cell of the same query";
    tab.selection.setQuerySpan(2, 4);
    EXPECT_EQ(panel->position(), 4) << "a span from the same query";
    tab.runs.setHeadsOff({{0, 0}});
    ASSERT_TRUE(tab.waitForOverview({{0, 0}}));
    EXPECT_EQ(panel->position(), 4) << "a head switched off";
    tab.show(wholeModelResult(model, "", kGpt2Sentence, 1));
    ASSERT_TRUE(waitUntil([&] { return !tab.runs.isBusy() && tab.view.overview(); }));
    tab.selection.setKey(0);
    EXPECT_EQ(panel->position(), 4) << "the same sentence computed again";
    EXPECT_EQ(panel->positionBox()->currentData().toLongLong(), 4);

    tab.selection.setCell(3, 0);
    EXPECT_EQ(panel->position(), 3) << "another query row is followed";
}

// At the tab's size in a 1000 x 700 window the combo boxes show their entries whole (the layer's
// name, the position, the token and its probability), and the rollout gets half the width.
TEST(PredictionView, AtTheSmallestWindowEveryComboBoxReadsWhole)
{
    const auto model = openFixtureModel("gpt2");
    ASSERT_TRUE(model);
    Tab tab;
    tab.view.resize(630, 590);
    tab.show(wholeModelResult(model, "", kGpt2Sentence, 1));
    ASSERT_TRUE(tab.waitForOverview());
    QCoreApplication::processEvents();
    for (QComboBox* box : {tab.view.rolloutPanel()->stopBox(), tab.view.predictionPanel()->positionBox(),
                           tab.view.rankingPanel()->tokenBox()}) {
        ASSERT_GT(box->count(), 0);
        int widest = 0;
        for (int i = 0; i < box->count(); ++i)
            widest = std::max(widest, box->fontMetrics().horizontalAdvance(box->itemText(i)));
        EXPECT_GE(box->width(), widest + 16) << box->currentText().toStdString();  // the text and the arrow
        EXPECT_TRUE(box->isVisible()) << box->currentText().toStdString();
    }
    EXPECT_GE(tab.view.rolloutPanel()->width() * 10, tab.view.width() * 4) << "the rollout keeps about half the width";
}

TEST(PredictionView, StopEndsTheRankingWithNothingRanked)
{
    const auto model = openFixtureModel("gpt2");
    ASSERT_TRUE(model);
    Tab tab;
    tab.show(wholeModelResult(model, "", kGpt2Sentence, 0));
    ASSERT_TRUE(tab.waitForOverview());
    HeadRankingPanel* ranking = tab.view.rankingPanel();
    // Hold every thread of the pool, so that Stop comes before the ranking's first head.
    QSemaphore hold, started;
    const int threads = workPool()->maxThreadCount();
    for (int i = 0; i < threads; ++i)
        workPool()->start([&] {
            started.release();
            hold.acquire();
        });
    ASSERT_TRUE(started.tryAcquire(threads, 60000));
    QSignalSpy ended(ranking, &HeadRankingPanel::rankingEnded);
    ranking->rankButton()->click();
    EXPECT_TRUE(ranking->isRanking());
    EXPECT_TRUE(ranking->stopButton()->isEnabled());
    EXPECT_FALSE(ranking->rankButton()->isEnabled());
    ranking->stopButton()->click();
    hold.release(threads);
    ASSERT_TRUE(waitUntil([&] { return ended.count() == 1; }));
    EXPECT_TRUE(ranking->effects().empty());
    EXPECT_EQ(ranking->table()->rowCount(), 0);
    EXPECT_TRUE(ranking->statusLabel()->text().startsWith("Stopped after 1 of 12 heads"))
        << ranking->statusLabel()->text().toStdString();
    EXPECT_TRUE(ranking->rankButton()->isEnabled());
}

TEST(PredictionView, WithoutAModelSaysHowToOpenOne)
{
    Tab tab;
    tab.view.show();
    EXPECT_TRUE(tab.view.message().contains("File > Open Checkpoint")) << tab.view.message().toStdString();
    EXPECT_FALSE(tab.view.overview());
    // A layer that is not part of a model that runs whole (the app's own generated weights).
    auto result = std::make_shared<Result>();
    result->config.sourceText = "the cat sat";
    tab.show(result);
    EXPECT_TRUE(tab.view.message().contains("File > Open Checkpoint"));
    EXPECT_FALSE(tab.view.rolloutPanel()->isVisibleTo(&tab.view));
}

// A checkpoint folder without its tokenizer: Predict says what is missing, as the Model tab does,
// never to open a model right after one was opened.
TEST(PredictionView, ACheckpointWithoutTokenizerFilesSaysWhatIsMissing)
{
    QTemporaryDir folder;
    ASSERT_TRUE(folder.isValid());
    const QString weights = copyGpt2WithoutTokenizer(folder);
    ASSERT_FALSE(weights.isEmpty());
    Tab tab;
    auto layerOnly = std::make_shared<Result>();  // the layer loaded without its model
    layerOnly->config.targetText = "the cat";
    tab.runs.setWeightsFile(weights);
    tab.show(layerOnly);
    const QString message = tab.view.message();
    EXPECT_TRUE(message.contains(QStringLiteral("no tokenizer files"))) << message.toStdString();
    EXPECT_TRUE(message.contains(QStringLiteral("vocab.json and merges.txt"))) << message.toStdString();
    EXPECT_TRUE(message.contains(QStringLiteral("Choose tokenizer.json"))) << message.toStdString();
    EXPECT_FALSE(message.contains(QStringLiteral("Open a model folder"))) << message.toStdString();
}

TEST(PredictionView, TitleAndMnemonic)
{
    Tab tab;
    EXPECT_EQ(tab.view.id(), QStringLiteral("predictions"));
    EXPECT_EQ(tab.view.title(), QStringLiteral("Pre&dict"));
    EXPECT_FALSE(tab.view.summary().isEmpty());
}

}  // namespace
}  // namespace qkv::ui
