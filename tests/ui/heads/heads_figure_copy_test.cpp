// A HeadsFigure is a value: a copy stays valid after the original is gone (it used to point
// into the original's own vector). Run under ASan, a dangling panel is a reported error.

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "core/pipeline/compute.hpp"
#include "ui/heads/heads_figure.hpp"

namespace qkv::ui {
namespace {

std::shared_ptr<const Result> maskedResult()
{
    Config config;
    config.sourceText = "the cat sat on the mat";
    config.targetText = "le chat est assis";
    config.mode = AttentionMode::DecoderCausal;  // masked panels are the figure's own copies
    config.d_model = 32;
    config.headCount = 4;
    auto result = compute(config);
    EXPECT_TRUE(result.ok());
    return result.ok() ? result.value() : nullptr;
}

TEST(HeadsFigure, ACopyOutlivesTheOriginal)
{
    const auto result = maskedResult();
    ASSERT_NE(result, nullptr);
    for (const ScoreKindEntry& entry : kScoreKinds) {
        const ScoreKind kind = entry.value;
        HeadsFigureSpec spec;
        spec.kind = kind;
        spec.withAverage = true;
        auto original = std::make_unique<HeadsFigure>(result, spec);
        const HeadsFigure copy = *original;
        HeadsFigure assigned;
        assigned = *original;
        std::vector<MatrixF> expected;
        for (int p = 0; p < original->panelCount(); ++p) expected.push_back(original->panel(p));
        original.reset();
        ASSERT_EQ(copy.panelCount(), 5);  // four heads and their average (or their layer)
        for (int p = 0; p < copy.panelCount(); ++p) {
            // Equal as drawn (NaN where masked compares by position, hence the bitwise check).
            ASSERT_EQ(copy.panel(p).size(), expected[static_cast<std::size_t>(p)].size());
            EXPECT_EQ(std::memcmp(copy.panel(p).data(), expected[static_cast<std::size_t>(p)].data(),
                                  sizeof(float) * static_cast<std::size_t>(copy.panel(p).size())),
                      0)
                << "panel " << p;
            EXPECT_EQ(assigned.panel(p).data(), copy.panel(p).data());  // shared, not copied
        }
        EXPECT_FALSE(copy.image(0, ColormapName::Viridis).isNull());
    }
}

}  // namespace
}  // namespace qkv::ui
