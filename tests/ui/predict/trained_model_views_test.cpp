// A model trained in the app and kept in the document, in the Model and Predict tabs: the
// document's result carries the whole model (as a checkpoint's layer does), the Model tab's runs
// give an overview instead of "not part of a model that runs whole", Predict shows predictions
// over the model's words, switching heads off changes them, and a layer picked from the Model
// grid becomes the document's layer in one undo step.

#include <QTest>
#include <QUndoStack>

#include <memory>

#include <gtest/gtest.h>

#include "core/pretrained/pretrained_model.hpp"
#include "core/session/trained_session.hpp"
#include "support/trained_model_fixture.hpp"
#include "ui/document/document.hpp"
#include "tests/ui/support/window_fixture.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/mainwindow/view_tabs.hpp"
#include "ui/modelgrid/model_grid_view.hpp"
#include "ui/predict/prediction_panel.hpp"
#include "ui/predict/prediction_view.hpp"
#include "ui/wholemodel/whole_model_runs.hpp"

namespace qkv::ui {
namespace {

// The document after Keep of a trained model, its cross-attention layer shown.
void keepTrainedModel(Document& document)
{
    const std::shared_ptr<const TrainedModel> model = qkv::testing::smallTrainedModel();
    TaskExample example;
    example.ids.source = *model->vocabulary.encode("the black cat sat");
    example.ids.targetInput = {Vocabulary::bos};
    const std::vector<std::int32_t> target = *model->vocabulary.encode("der schwarze katze saß");
    example.ids.targetInput.insert(example.ids.targetInput.end(), target.begin(), target.end());
    document.keep(trainedModelSession(model, 2, example), "Keep");
    document.waitUntilIdle();
    for (const ValidationIssue& issue : document.issues()) ADD_FAILURE() << issue.message;
}

TEST(TrainedModelViews, AKeptModelRunsWholeInTheModelAndPredictTabs)
{
    Document document;
    keepTrainedModel(document);
    const std::shared_ptr<const Result> result = document.result();
    ASSERT_TRUE(result);
    ASSERT_NE(result->wholeModel, nullptr);
    EXPECT_EQ(result->wholeModelLayer, 2);

    HeadSelection selection;
    auto* runs = new WholeModelRuns(&selection);
    ModelGridView grid(&selection, runs);
    PredictionView predict(&selection, runs);
    grid.resize(1200, 800);
    predict.resize(1200, 800);
    runs->setResult(result);
    grid.setResult(result);
    predict.setResult(result);
    grid.show();
    predict.show();
    ASSERT_TRUE(QTest::qWaitFor([&] { return runs->overview() && !runs->isBusy(); }, 20000))
        << runs->problem().toStdString();
    EXPECT_TRUE(runs->problem().isEmpty()) << runs->problem().toStdString();
    EXPECT_EQ(runs->overview()->layerCount(), 5);
    ASSERT_TRUE(QTest::qWaitFor([&] { return !predict.predictionPanel()->comparison().rows.empty(); }, 20000));
    const PredictionComparison before = predict.predictionPanel()->comparison();

    // Both cross-attention layers' heads off: what the decoder predicts changes.
    const std::set<ModelHead> off{{2, 0}, {2, 1}, {4, 0}, {4, 1}};
    runs->setHeadsOff(off);
    ASSERT_TRUE(QTest::qWaitFor([&] { return runs->overview() && !runs->isBusy() && runs->overview()->ablatedHeads() == off; },
                                20000));
    ASSERT_TRUE(QTest::qWaitFor([&] { return predict.predictionPanel()->comparison().rows.size() > 0; }, 20000));
    double largest = 0.0;
    for (const PredictionRow& row : predict.predictionPanel()->comparison().rows)
        largest = std::max(largest, std::abs(row.change()));
    EXPECT_GT(largest, 1e-6) << "switching the cross-attention heads off changed no probability shown";
    EXPECT_FALSE(before.rows.empty());
}

TEST(TrainedModelViews, ALayerPickedInTheModelGridBecomesTheDocumentsLayer)
{
    Document document;
    keepTrainedModel(document);
    const int steps = document.undoStack()->count();
    ASSERT_TRUE(document.showTrainedLayer(1));
    document.waitUntilIdle();
    EXPECT_EQ(document.session().modelLayer, 1);
    EXPECT_EQ(document.config().mode, AttentionMode::DecoderCausal);
    EXPECT_EQ(document.undoStack()->count(), steps + 1);
    ASSERT_TRUE(document.result());
    EXPECT_EQ(document.result()->wholeModelLayer, 1);
    EXPECT_FALSE(document.showTrainedLayer(9));
    document.undoStack()->undo();
    document.waitUntilIdle();
    EXPECT_EQ(document.session().modelLayer, 2);
    EXPECT_EQ(document.config().mode, AttentionMode::Cross);
}

// In the window: the Model grid's click on a trained model's layer shows that layer and selects
// the head, where a checkpoint's would be read from its file.
using TrainedModelWindow = testing::WindowTest;

TEST_F(TrainedModelWindow, AClickInTheModelGridShowsThatLayerAndHead)
{
    keepTrainedModel(*window->document());
    settle();
    const std::shared_ptr<const Result> result = window->document()->result();
    ASSERT_TRUE(result && result->wholeModel);
    auto* grid = qobject_cast<ModelGridView*>(window->tabs()->view(ModelGridView::kId));
    ASSERT_NE(grid, nullptr);
    const CheckpointLayer layer = result->wholeModel->layersInModelOrder[3];  // decoder.1.self_attention
    emit grid->openLayerRequested(result->wholeModel, layer, 1);
    settle();
    EXPECT_EQ(window->document()->session().modelLayer, 3);
    EXPECT_EQ(window->document()->config().mode, AttentionMode::DecoderCausal);
    EXPECT_EQ(window->selection()->head(), 1);
    ASSERT_TRUE(window->document()->result());
    EXPECT_EQ(window->document()->result()->wholeModelLayer, 3);
    EXPECT_EQ(window->document()->result()->wholeModel, result->wholeModel);
}

}  // namespace
}  // namespace qkv::ui
