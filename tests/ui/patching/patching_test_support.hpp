#pragma once
// The demo model (docs/demo-model: two layers of four heads, an induction circuit) and the
// overview of a typed prompt, as the Predict tab's pages read them.

#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "core/checkpoint/checkpoint.hpp"
#include "core/pipeline/model_overview.hpp"
#include "core/pretrained/pretrained_model.hpp"
#include "support/test_paths.hpp"

namespace qkv::ui::testing {

inline constexpr const char* kClean = "a b c d e a b c d";
inline constexpr const char* kCorrupt = "a b c d f a b c d";

inline std::shared_ptr<const PretrainedModel> demoModel()
{
    static const std::shared_ptr<const PretrainedModel> model = [] {
        Expected<PretrainedModel> opened = openPretrainedModel(std::string(qkv::sourceDir()) + "/docs/demo-model");
        EXPECT_TRUE(opened) << opened.error();
        return opened ? std::make_shared<const PretrainedModel>(std::move(*opened)) : nullptr;
    }();
    return model;
}

inline std::shared_ptr<const ModelOverview> demoOverview(const std::string& target = kClean)
{
    ModelOverviewRequest request;
    request.target = target;
    Expected<ModelOverview> overview = computeModelOverview(demoModel(), request);
    EXPECT_TRUE(overview) << overview.error();
    return overview ? std::make_shared<const ModelOverview>(std::move(*overview)) : nullptr;
}

}  // namespace qkv::ui::testing
