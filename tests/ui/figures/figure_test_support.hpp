#pragma once
// Inputs for the figure tests: small results of each mode, as a figure gets them from the app
// or `qkv-studio figure`; the whole model's figures read the overview of a synthetic checkpoint.

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "core/pipeline/compute.hpp"
#include "core/pipeline/model_overview.hpp"
#include "core/pretrained/pretrained_model.hpp"
#include "support/test_paths.hpp"
#include "ui/figures/figure.hpp"
#include "ui/patching/patching_data.hpp"

namespace qkv::ui::testing {

inline std::shared_ptr<const qkv::Result> figureResult(qkv::AttentionMode mode = qkv::AttentionMode::Cross,
                                                       qkv::Index d_model = 64, qkv::Index heads = 4,
                                                       std::uint64_t seed = 7, qkv::Index headDim = 0)
{
    qkv::Config config;
    config.sourceText = "the cat sat on the mat";
    config.targetText = "le chat est assis";
    config.mode = mode;
    config.d_model = d_model;
    config.headCount = heads;
    config.seed = seed;
    config.headDim = headDim;
    auto result = qkv::compute(config);
    EXPECT_TRUE(result.ok()) << (result.ok() ? std::string() : result.error());
    return result.ok() ? result.value() : nullptr;
}

// The synthetic BERT (tests/data/pretrained/bert) on a sentence with two [MASK]s, two heads off,
// with value norms: what the Model and Predictions figures draw. Computed once.
inline std::shared_ptr<const qkv::ModelOverview> figureOverview()
{
    static const std::shared_ptr<const qkv::ModelOverview> overview = [] {
        qkv::Expected<qkv::PretrainedModel> model =
            qkv::openPretrainedModel(std::string(qkv::testDataDir()) + "/pretrained/bert");
        EXPECT_TRUE(model.ok()) << (model ? "" : model.error());
        if (!model) return std::shared_ptr<const qkv::ModelOverview>();
        qkv::ModelOverviewRequest request;
        request.source = "d [MASK] super / [MASK]";
        request.ablatedHeads = {{0, 1}, {2, 3}};
        request.valueNorms = true;  // the Model figures' value-weighted grid
        qkv::Expected<qkv::ModelOverview> o =
            qkv::computeModelOverview(std::make_shared<const qkv::PretrainedModel>(std::move(*model)), request);
        EXPECT_TRUE(o.ok()) << (o ? "" : o.error());
        return o ? std::make_shared<const qkv::ModelOverview>(std::move(*o)) : nullptr;
    }();
    return overview;
}

inline FigureInput figureInput(qkv::AttentionMode mode = qkv::AttentionMode::Cross)
{
    FigureInput input;
    input.result = figureResult(mode);
    // The compare figures' pinned result: the same shapes, other weights.
    input.pinned = figureResult(mode, 64, 4, 8);
    input.overview = figureOverview();
    input.options.head = 1;
    input.options.query = 2;
    input.options.key = 3;
    return input;
}

// The demo model (docs/demo-model, a causal LM whose readout is the direct path) on its README's
// sentence: what the Circuits figures draw (the synthetic BERT's masked-LM readout has no
// circuits). Computed once.
inline std::shared_ptr<const qkv::ModelOverview> circuitOverview()
{
    static const std::shared_ptr<const qkv::ModelOverview> overview = [] {
        qkv::Expected<qkv::PretrainedModel> model =
            qkv::openPretrainedModel(std::string(qkv::sourceDir()) + "/docs/demo-model");
        EXPECT_TRUE(model.ok()) << (model ? "" : model.error());
        if (!model) return std::shared_ptr<const qkv::ModelOverview>();
        qkv::ModelOverviewRequest request;
        request.target = "a b c d e f g h a b c d e f g";
        qkv::Expected<qkv::ModelOverview> o =
            qkv::computeModelOverview(std::make_shared<const qkv::PretrainedModel>(std::move(*model)), request);
        EXPECT_TRUE(o.ok()) << (o ? "" : o.error());
        return o ? std::make_shared<const qkv::ModelOverview>(std::move(*o)) : nullptr;
    }();
    return overview;
}

inline bool isCircuitFigure(const std::string& name) { return name.rfind("circuit-", 0) == 0 || name == "heads-map"; }

inline bool isPatchingFigure(const std::string& name) { return name.rfind("patching-", 0) == 0 || name == "logit-lens"; }

// The Patching page's last patching, as the page leaves it for its figures: the demo model's
// sentence against the same with one letter changed (g to h at position 6). Once.
inline void showDemoPatching(const std::shared_ptr<const qkv::ModelOverview>& overview)
{
    static const bool shown = [&] {
        qkv::Expected<PatchingPrompts> prompts = patchingPrompts(overview, QStringLiteral("a b c d e f h h a b c d e f g"));
        EXPECT_TRUE(prompts) << (prompts ? "" : prompts.error());
        if (!prompts) return false;
        auto shared = std::make_shared<const PatchingPrompts>(std::move(*prompts));
        qkv::Expected<qkv::PatchingReadouts> readouts = qkv::patchingReadouts(*shared->model, shared->runs);
        EXPECT_TRUE(readouts) << (readouts ? "" : readouts.error());
        if (!readouts) return false;
        const std::int32_t wrong = shared->corruptTop != shared->cleanTop ? shared->corruptTop : (shared->cleanTop + 1) % 200;
        qkv::Expected<qkv::PatchingGrids> grids = qkv::patchingGrids(*shared->model, *readouts, shared->cleanTop, wrong);
        EXPECT_TRUE(grids) << (grids ? "" : grids.error());
        if (!grids) return false;
        PatchingShown page;
        page.prompts = shared;
        page.grids = std::make_shared<const qkv::PatchingGrids>(std::move(*grids));
        setShownPatching(std::move(page));
        return true;
    }();
    (void)shown;
}

// figureInput, or for the Circuits and Patching figures the demo model's overview with a result of
// its layer 1 (the Patching figures with the page's patching of it).
inline FigureInput figureInputFor(const std::string& name, qkv::AttentionMode mode = qkv::AttentionMode::Cross)
{
    FigureInput input = figureInput(mode);
    if ((!isCircuitFigure(name) && !isPatchingFigure(name)) || !circuitOverview()) return input;
    if (isPatchingFigure(name)) showDemoPatching(circuitOverview());
    auto result = std::make_shared<qkv::Result>(*input.result);
    result->wholeModel = circuitOverview()->model;
    result->wholeModelLayer = 1;
    input.result = result;
    input.overview = circuitOverview();
    return input;
}

}  // namespace qkv::ui::testing
