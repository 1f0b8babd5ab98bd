#pragma once
// Results for widget tests, made by core's qkv::compute (never by the view).

#include <memory>

#include <gtest/gtest.h>

#include "core/config/examples.hpp"
#include "core/pipeline/compute.hpp"

namespace qkv::testing {

inline Config exampleConfig(Index d_model, Index heads, bool withBias = false)
{
    Config config = builtInExample();
    config.d_model = d_model;
    config.headCount = heads;
    config.withBias = withBias;
    return config;
}

inline std::shared_ptr<const Result> computeOrFail(const Config& config, const UserInputs& inputs = {})
{
    Expected<std::shared_ptr<const Result>> result = compute(config, inputs);
    EXPECT_TRUE(result.ok()) << (result.ok() ? std::string() : result.error());
    return result.ok() ? result.value() : nullptr;
}

}  // namespace qkv::testing
