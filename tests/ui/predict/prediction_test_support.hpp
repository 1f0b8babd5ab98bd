#pragma once
// The whole model of a synthetic checkpoint (tests/data/pretrained/<family>) behind a layer
// Result, as the app's document hands it to WholeModelRuns and the views.

#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "core/pipeline/compute.hpp"
#include "core/pipeline/pretrained_run.hpp"
#include "core/pretrained/model_run.hpp"
#include "core/pretrained/pretrained_model.hpp"
#include "support/test_paths.hpp"

namespace qkv::ui::testing {

inline std::shared_ptr<const PretrainedModel> openFixtureModel(const std::string& family)
{
    Expected<PretrainedModel> model = openPretrainedModel(std::string(qkv::testDataDir()) + "/pretrained/" + family);
    EXPECT_TRUE(model.ok()) << (model ? "" : model.error());
    return model ? std::make_shared<const PretrainedModel>(std::move(*model)) : nullptr;
}

// Layer `layer` (model order) of the model on the sentences, with its whole model attached.
inline std::shared_ptr<const Result> wholeModelResult(const std::shared_ptr<const PretrainedModel>& model,
                                                      const std::string& source, const std::string& target, Index layer)
{
    Expected<ModelSentences> sentences = modelSentences(*model, source, target);
    EXPECT_TRUE(sentences.ok()) << (sentences ? "" : sentences.error());
    if (!sentences) return nullptr;
    Expected<ModelRun> run = runPretrainedModel(*model, sentences->tokens, {});
    EXPECT_TRUE(run.ok()) << (run ? "" : run.error());
    if (!run) return nullptr;
    Config base;
    base.sourceText = source;
    base.targetText = target;
    Expected<std::shared_ptr<const Result>> layerResult = pretrainedLayerResult(model, *run, layer, *sentences, base);
    EXPECT_TRUE(layerResult.ok()) << (layerResult ? "" : layerResult.error());
    if (!layerResult) return nullptr;
    auto result = std::make_shared<Result>(**layerResult);
    result->wholeModel = model;
    result->wholeModelLayer = layer;
    return result;
}

// A run of the model on the sentences with every logit row, and `ablated` off.
inline ModelRun referenceRun(const PretrainedModel& model, const ModelSentences& sentences,
                             const std::set<ModelHead>& ablated = {})
{
    RunOptions options;
    options.ablatedHeads = ablated;
    Expected<ModelRun> run = runPretrainedModel(model, sentences.tokens, options);
    EXPECT_TRUE(run.ok()) << (run ? "" : run.error());
    return run ? std::move(*run) : ModelRun();
}

}  // namespace qkv::ui::testing
