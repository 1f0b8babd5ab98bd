#pragma once
// Helpers shared by the analysis tests: JSON fixture values to matrices, random layers.

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/attention/multi_head_attention.hpp"
#include "core/common/random.hpp"

namespace qkv::testing {

inline double numberOrNaN(const nlohmann::json& value)
{
    return value.is_null() ? std::numeric_limits<double>::quiet_NaN() : value.get<double>();
}

inline MatrixD jsonMatrix(const nlohmann::json& rows)
{
    const Index cols = rows.empty() ? 0 : static_cast<Index>(rows.at(0).size());
    MatrixD m(static_cast<Index>(rows.size()), cols);
    for (Index r = 0; r < m.rows(); ++r)
        for (Index c = 0; c < cols; ++c) m(r, c) = numberOrNaN(rows.at(static_cast<std::size_t>(r)).at(static_cast<std::size_t>(c)));
    return m;
}

inline VectorD jsonVector(const nlohmann::json& values)
{
    VectorD v(static_cast<Index>(values.size()));
    for (Index i = 0; i < v.size(); ++i) v(i) = numberOrNaN(values.at(static_cast<std::size_t>(i)));
    return v;
}

inline RowVectorF jsonRowF(const nlohmann::json& values)
{
    return jsonVector(values).transpose().cast<float>();
}

// Equal where both are numbers (within tolerance), and NaN exactly where the other is NaN.
inline ::testing::AssertionResult sameOrBothNaN(double actual, double expected, double tolerance)
{
    if (std::isnan(actual) && std::isnan(expected)) return ::testing::AssertionSuccess();
    if (std::isnan(actual) != std::isnan(expected) || !(std::abs(actual - expected) <= tolerance))
        return ::testing::AssertionFailure() << actual << " vs expected " << expected << " (tolerance " << tolerance << ")";
    return ::testing::AssertionSuccess();
}

template <class A, class B>
void expectVectorsNear(const A& actual, const B& expected, double tolerance, const char* what)
{
    ASSERT_EQ(actual.size(), expected.size()) << what;
    for (Index i = 0; i < actual.size(); ++i)
        EXPECT_TRUE(sameOrBothNaN(static_cast<double>(actual(i)), static_cast<double>(expected(i)), tolerance)) << what << " [" << i << "]";
}

inline MatrixF randomMatrixF(Index rows, Index cols, SplitMix64& rng, double scale = 1.0)
{
    MatrixF m(rows, cols);
    for (Index r = 0; r < rows; ++r)
        for (Index c = 0; c < cols; ++c) m(r, c) = static_cast<float>(scale * rng.uniform(-1.0, 1.0));
    return m;
}

inline RowVectorF randomRowF(Index cols, SplitMix64& rng, double scale = 1.0)
{
    return randomMatrixF(1, cols, rng, scale).row(0);
}

// Random weights for h heads and g key/value heads at d_model (with or without biases).
inline AttentionWeights randomWeights(Index d_model, Index h, Index g, bool bias, SplitMix64& rng, double scale = 0.6)
{
    const Index d_k = d_model / h;
    AttentionWeights w;
    w.queryProjection = randomMatrixF(d_model, d_model, rng, scale);
    w.keyProjection = randomMatrixF(d_model, g * d_k, rng, scale);
    w.valueProjection = randomMatrixF(d_model, g * d_k, rng, scale);
    w.outputProjection = randomMatrixF(d_model, d_model, rng, scale);
    if (bias) {
        w.queryBias = randomRowF(d_model, rng, 0.3);
        w.keyBias = randomRowF(g * d_k, rng, 0.3);
        w.valueBias = randomRowF(g * d_k, rng, 0.3);
        w.outputBias = randomRowF(d_model, rng, 0.3);
    }
    return w;
}

}  // namespace qkv::testing
