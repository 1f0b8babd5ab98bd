#pragma once
// Helpers for the session tests: compare two results bit for bit, make a FIFO.

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <QString>

#include "core/pipeline/compute.hpp"

namespace qkv::ui::testing {

// The same numbers, bit for bit: what a saved and reopened session must give.
inline void expectSameResult(const qkv::Result& a, const qkv::Result& b)
{
    EXPECT_EQ(a.config, b.config);
    EXPECT_EQ(a.queryLabels, b.queryLabels);
    EXPECT_EQ(a.keyLabels, b.keyLabels);
    EXPECT_EQ(a.queryInput, b.queryInput);
    EXPECT_EQ(a.keyValueInput, b.keyValueInput);
    EXPECT_EQ(a.unscaledWeights->queryProjection, b.unscaledWeights->queryProjection);
    EXPECT_EQ(a.unscaledWeights->keyProjection, b.unscaledWeights->keyProjection);
    EXPECT_EQ(a.unscaledWeights->valueProjection, b.unscaledWeights->valueProjection);
    EXPECT_EQ(a.unscaledWeights->outputProjection, b.unscaledWeights->outputProjection);
    ASSERT_EQ(a.attention.headCount(), b.attention.headCount());
    for (Index h = 0; h < a.attention.headCount(); ++h) {
        const auto i = static_cast<std::size_t>(h);
        EXPECT_EQ(a.attention.heads[i].scores, b.attention.heads[i].scores) << "head " << h + 1;
        EXPECT_EQ(a.attention.heads[i].attention, b.attention.heads[i].attention) << "head " << h + 1;
    }
    EXPECT_EQ(a.attention.output, b.attention.output);
}

inline bool makeFifo(const QString& path) { return ::mkfifo(path.toLocal8Bit().constData(), 0600) == 0; }

}  // namespace qkv::ui::testing
