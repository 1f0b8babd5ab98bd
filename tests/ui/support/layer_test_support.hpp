#pragma once
// Results and shown views for the layer views' tests.

#include <gtest/gtest.h>

#include <QApplication>
#include <QTest>

#include <memory>
#include <string>

#include "core/config/config.hpp"
#include "core/config/examples.hpp"
#include "core/pipeline/compute.hpp"
#include "tests/ui/support/wait_until.hpp"

namespace qkv::ui::testing {

inline std::shared_ptr<const qkv::Result> computeResult(const qkv::Config& config)
{
    auto result = qkv::compute(config);
    EXPECT_TRUE(result.ok()) << (result.ok() ? std::string() : result.error());
    return result.ok() ? result.value() : nullptr;
}

// The same layer as a long one is computed (each head's map streamed and kept in `blocks` x
// `blocks` blocks, Result::streamed()), at any size: the app streams past 4,096 tokens only.
inline std::shared_ptr<const qkv::Result> streamedResult(const qkv::Config& config, qkv::Index blocks)
{
    auto result = qkv::compute(qkv::prepareCompute(config, {}, qkv::streamedPlan({}, blocks)));
    EXPECT_TRUE(result.ok()) << (result.ok() ? std::string() : result.error());
    return result.ok() ? result.value() : nullptr;
}

// Cross-attention, 4 heads of d_k 16, 5 target and 6 source tokens.
inline qkv::Config crossConfig()
{
    qkv::Config config;
    config.sourceText = "the cat sat on the mat";
    config.targetText = "le chat est assis";
    config.mode = qkv::AttentionMode::Cross;
    config.d_model = 64;
    config.headCount = 4;
    config.seed = 5;
    return config;
}

inline qkv::Config selfConfig()
{
    qkv::Config config = crossConfig();
    config.mode = qkv::AttentionMode::EncoderSelf;
    return config;
}

// `count` source tokens (self-attention).
inline qkv::Config longConfig(int count, qkv::Index d_model, qkv::Index heads)
{
    static const char* words[] = {"the", "cat", "sat", "on", "mat", "because", "it", "was", "tired", "and", "warm"};
    qkv::Config config;
    for (int i = 0; i < count; ++i) config.sourceText += std::string(words[i % 11]) + " ";
    config.targetText = "le chat";
    config.mode = qkv::AttentionMode::EncoderSelf;
    config.d_model = d_model;
    config.headCount = heads;
    config.seed = 1;
    return config;
}

// Shows a top-level widget at `size` and waits until it is exposed.
inline void showAt(QWidget& widget, QSize size)
{
    widget.resize(size);
    widget.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&widget));
}

// Waits for a view's background work (isBusy()) to be delivered.
template <class View> void waitUntilIdle(const View& view)
{
    ASSERT_TRUE(waitUntil([&] { return !view.isBusy(); })) << "the view's work never finished";
    QCoreApplication::processEvents();
}

}  // namespace qkv::ui::testing
