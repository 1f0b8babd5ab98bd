#pragma once
// The synthetic checkpoints of tests/data/pretrained (one folder per family, written by the
// make_*.py scripts there): their paths, and a family's model opened with a test failure, not a
// crash, when it cannot be.

#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "core/pretrained/pretrained_model.hpp"
#include "support/test_paths.hpp"

namespace qkv {

// tests/data/pretrained/<family>
inline std::string pretrainedFixture(const std::string& family)
{
    return std::string(testDataDir()) + "/pretrained/" + family;
}

// The family's whole model; an empty one (and a failed expectation naming why) when it does not open.
inline PretrainedModel openPretrainedFixture(const std::string& family)
{
    Expected<PretrainedModel> model = openPretrainedModel(pretrainedFixture(family));
    EXPECT_TRUE(model.ok()) << (model ? "" : model.error());
    return model ? std::move(*model) : PretrainedModel();
}

}  // namespace qkv
