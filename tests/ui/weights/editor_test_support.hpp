#pragma once
// A document with the weights editor on it, shown, as the app wires them.

#include <gtest/gtest.h>

#include <QApplication>
#include <QTest>
#include <QUndoStack>

#include <memory>
#include <sstream>

#include "core/weights/attention_weights.hpp"
#include "tests/ui/support/wait_until.hpp"
#include "ui/document/document.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/weights/head_weights_view.hpp"

namespace qkv::ui::testing {

inline qkv::Config editorConfig(qkv::Index d_model = 32, qkv::Index heads = 4, qkv::Index keyValueHeads = 0)
{
    qkv::Config config;
    config.sourceText = "the cat sat on the mat";
    config.targetText = "le chat est assis";
    config.mode = qkv::AttentionMode::Cross;
    config.d_model = d_model;
    config.headCount = heads;
    config.keyValueHeadCount = keyValueHeads;
    config.seed = 11;
    return config;
}

// Bit-for-bit equality of two weight sets (sizes first), with the first difference named.
inline ::testing::AssertionResult sameWeights(const qkv::AttentionWeights& a, const qkv::AttentionWeights& b)
{
    const auto same = [](const auto& x, const auto& y) {
        return x.rows() == y.rows() && x.cols() == y.cols() && (x.array() == y.array()).all();
    };
    const std::pair<const char*, bool> checks[] = {
        {"W^Q", same(a.queryProjection, b.queryProjection)},
        {"W^K", same(a.keyProjection, b.keyProjection)},
        {"W^V", same(a.valueProjection, b.valueProjection)},
        {"W^O", same(a.outputProjection, b.outputProjection)},
        {"biases", a.hasBias() == b.hasBias() &&
                       (!a.hasBias() || (same(*a.queryBias, *b.queryBias) && same(*a.keyBias, *b.keyBias) &&
                                         same(*a.valueBias, *b.valueBias) && same(*a.outputBias, *b.outputBias)))},
    };
    for (const auto& [name, ok] : checks)
        if (!ok) return ::testing::AssertionFailure() << name << " differs";
    return ::testing::AssertionSuccess();
}

struct EditorFixture {
    explicit EditorFixture(const qkv::Config& config)
    {
        document.reset(config);
        document.waitUntilIdle();
        QObject::connect(&document, &Document::resultChanged, &view,
                         [this](std::shared_ptr<const qkv::Result> r) { view.setResult(r); });
        view.setResult(document.result());
        view.resize(1400, 900);
        view.show();
        EXPECT_TRUE(QTest::qWaitForWindowExposed(&view));
        waitForModel();
    }
    // Until the document has computed and the view's model is of the latest result.
    void waitForModel()
    {
        document.waitUntilIdle();
        view.ensureCurrent();
        waitUntil([&] {
            return view.model() && view.model()->resultPointer() == document.result() &&
                   view.model()->head() == selection.head();
        });
        ASSERT_TRUE(view.model());
        ASSERT_EQ(view.model()->resultPointer(), document.result());
    }
    std::shared_ptr<const qkv::AttentionWeights> weights() const { return document.result()->unscaledWeights; }

    Document document;
    HeadSelection selection;
    HeadWeightsView view{&document, &selection};
};

}  // namespace qkv::ui::testing
