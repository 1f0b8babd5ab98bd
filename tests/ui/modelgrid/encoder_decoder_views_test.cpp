// The Model and Predict tabs on an encoder-decoder: the synthetic Marian checkpoint with the
// tokenizer whose vocab.json gives typed sentences the reference's ids (make_marian_text_fixture.py).
// Its decoder's cross-attention layers are not square and have no own position; the rollout
// follows the encoder; the decoder predicts at every target position.

#include <gtest/gtest.h>

#include <QImage>
#include <QPainter>
#include <QTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>

#include <nlohmann/json.hpp>

#include "core/checkpoint/checkpoint.hpp"
#include "core/pipeline/model_overview.hpp"
#include "core/pretrained/pretrained_model.hpp"
#include "support/test_paths.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/figure_registry/figure_registry.hpp"
#include "ui/figures/figure.hpp"
#include "ui/figures/figure_render.hpp"
#include "ui/modelgrid/model_grid_view.hpp"
#include "ui/predict/prediction_panel.hpp"
#include "ui/predict/prediction_view.hpp"
#include "ui/predict/rollout_panel.hpp"
#include "ui/wholemodel/whole_model_runs.hpp"

namespace qkv::ui::testing {
namespace {

std::string dataPath(const std::string& name) { return std::string(qkv::testDataDir()) + "/pretrained/" + name; }

// The Marian weights and the text tokenizer in one model folder, loaded once.
std::shared_ptr<const PretrainedModel> marianModel()
{
    static const std::shared_ptr<const PretrainedModel> model = []() -> std::shared_ptr<const PretrainedModel> {
        namespace fs = std::filesystem;
        const fs::path folder = fs::path(::testing::TempDir()) / "views-marian";
        fs::remove_all(folder);
        fs::create_directories(folder);
        for (const char* name : {"marian/config.json", "marian/model.safetensors", "marian_text/source.spm",
                                 "marian_text/target.spm", "marian_text/vocab.json"})
            fs::copy_file(dataPath(name), folder / fs::path(name).filename());
        Expected<PretrainedModel> loaded = openPretrainedModel(folder.string());
        EXPECT_TRUE(loaded) << (loaded ? "" : loaded.error());
        return loaded ? std::make_shared<const PretrainedModel>(std::move(*loaded)) : nullptr;
    }();
    return model;
}

std::shared_ptr<const Result> marianResult()
{
    std::ifstream in(dataPath("marian_text/sentences.json"));
    const nlohmann::json sentences = nlohmann::json::parse(in);
    auto result = std::make_shared<Result>();
    result->config.sourceText = sentences.at("source").get<std::string>();
    result->config.targetText = sentences.at("target").get<std::string>();
    result->wholeModel = marianModel();
    result->wholeModelLayer = 0;
    return result;
}

TEST(EncoderDecoderViews, TheModelAndPredictTabsDrawEveryLayerOfATranslationModel)
{
    ASSERT_TRUE(marianModel());
    HeadSelection selection;
    auto* runs = new WholeModelRuns(&selection);
    ModelGridView grid(&selection, runs);
    PredictionView predict(&selection, runs);
    grid.resize(1200, 800);
    predict.resize(1200, 800);
    const std::shared_ptr<const Result> result = marianResult();
    runs->setResult(result);
    grid.setResult(result);
    predict.setResult(result);
    grid.show();
    predict.show();
    ASSERT_TRUE(QTest::qWaitFor([&] { return runs->overview() && !runs->isBusy(); }, 20000)) << runs->problem().toStdString();
    const ModelOverview& overview = *runs->overview();

    // Cross-attention layers: queries from the target, keys from the source; no own position.
    bool sawCross = false;
    for (Index l = 0; l < overview.layerCount(); ++l) {
        const LayerRun& layer = overview.layer(l);
        if (layer.layer.kind != AttentionMode::Cross) continue;
        sawCross = true;
        EXPECT_EQ(layer.attention.queryCount(), static_cast<Index>(overview.sentences.decoder.tokens.size()));
        EXPECT_EQ(layer.attention.keyCount(), static_cast<Index>(overview.sentences.sequence.tokens.size()));
        EXPECT_TRUE(std::isnan(overview.statistics.ownPositionWeight(l, 0)));
    }
    EXPECT_TRUE(sawCross);

    // The rollout follows the encoder (its layers only) and says so; the decoder predicts.
    ASSERT_TRUE(QTest::qWaitFor([&] { return !predict.rolloutPanel()->isBusy(); }, 20000));
    EXPECT_EQ(predict.rolloutPanel()->stopCount(),
              static_cast<Index>(rolloutLayers(*overview.model, *overview.run).size()));
    EXPECT_LT(predict.rolloutPanel()->stopCount(), overview.layerCount());
    EXPECT_FALSE(predict.predictionPanel()->comparison().rows.empty());

    // Every figure of both tabs draws this model without a complaint.
    for (const char* name : {"model", "model-statistics", "rollout", "predictions"}) {
        const Figure* figure = findFigure(name);
        ASSERT_NE(figure, nullptr) << name;
        FigureInput input;
        input.result = result;
        input.overview = runs->overview();
        EXPECT_TRUE(figure->whyUnavailable(input).isEmpty()) << name << ": " << figure->whyUnavailable(input).toStdString();
        QImage image(900, 700, QImage::Format_ARGB32);
        image.fill(Qt::white);
        QPainter painter(&image);
        figure->paint(painter, QRectF(0, 0, 900, 700), input);
        painter.end();
        int inked = 0;
        for (int y = 0; y < image.height(); y += 7)
            for (int x = 0; x < image.width(); x += 7) inked += image.pixel(x, y) != qRgb(255, 255, 255);
        EXPECT_GT(inked, 100) << name;
    }
}

}  // namespace
}  // namespace qkv::ui::testing
