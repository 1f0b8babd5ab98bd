// Compares every intermediate of multiHeadAttentionForward with NumPy's float64 computation
// (tests/data/golden/make_attention_golden.py made the fixture).

#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/attention/multi_head_attention.hpp"
#include "support/matrix_assertions.hpp"
#include "support/test_paths.hpp"

namespace qkv {
namespace {

MatrixD toMatrix(const nlohmann::json& rows)
{
    MatrixD m(static_cast<Index>(rows.size()), static_cast<Index>(rows.at(0).size()));
    for (Index r = 0; r < m.rows(); ++r)
        for (Index c = 0; c < m.cols(); ++c) m(r, c) = rows.at(static_cast<std::size_t>(r)).at(static_cast<std::size_t>(c)).get<double>();
    return m;
}

RowVectorF toRow(const nlohmann::json& values)
{
    RowVectorF v(static_cast<Index>(values.size()));
    for (Index i = 0; i < v.size(); ++i) v(i) = values.at(static_cast<std::size_t>(i)).get<float>();
    return v;
}

TEST(AttentionGolden, MatchesNumPyForEveryCase)
{
    std::ifstream file(std::string(qkv::testDataDir()) + "/golden/attention_golden.json");
    ASSERT_TRUE(file) << "missing fixture";
    const nlohmann::json golden = nlohmann::json::parse(file);
    // Three cases of d_k = d_model / h, then heads wider (d_k 5 at d_model 6, h 2) and narrower
    // (d_k 3 at d_model 8, h 2) than that.
    ASSERT_EQ(golden.at("cases").size(), 5u);
    for (const nlohmann::json& c : golden.at("cases")) {
        SCOPED_TRACE(c.at("name").get<std::string>());
        AttentionWeights w;
        w.queryProjection = toMatrix(c.at("W_Q")).cast<float>();
        w.keyProjection = toMatrix(c.at("W_K")).cast<float>();
        w.valueProjection = toMatrix(c.at("W_V")).cast<float>();
        w.outputProjection = toMatrix(c.at("W_O")).cast<float>();
        if (c.at("bias").get<bool>()) {
            w.queryBias = toRow(c.at("b_Q"));
            w.keyBias = toRow(c.at("b_K"));
            w.valueBias = toRow(c.at("b_V"));
            w.outputBias = toRow(c.at("b_O"));
        }
        AttentionMask mask;
        mask.causal = c.at("causal").get<bool>();
        const AttentionResult r = multiHeadAttentionForward(toMatrix(c.at("X_q")).cast<float>(),
                                                            toMatrix(c.at("X_kv")).cast<float>(), w,
                                                            c.at("heads").get<Index>(), mask);
        EXPECT_EQ(r.d_k(), c.at("d_k").get<Index>());
        const nlohmann::json& e = c.at("expected");
        EXPECT_MATRIX_NEAR(r.query, toMatrix(e.at("Q")), 1e-5);
        EXPECT_MATRIX_NEAR(r.key, toMatrix(e.at("K")), 1e-5);
        EXPECT_MATRIX_NEAR(r.value, toMatrix(e.at("V")), 1e-5);
        ASSERT_EQ(r.heads.size(), e.at("per_head").size());
        for (std::size_t i = 0; i < r.heads.size(); ++i) {
            EXPECT_MATRIX_NEAR(r.heads[i].scores, toMatrix(e.at("per_head")[i].at("scores")), 1e-5);
            EXPECT_MATRIX_NEAR(r.heads[i].attention, toMatrix(e.at("per_head")[i].at("attention")), 1e-6);
        }
        EXPECT_MATRIX_NEAR(r.headOutputs, toMatrix(e.at("concat")), 1e-5);
        EXPECT_MATRIX_NEAR(r.output, toMatrix(e.at("output")), 1e-5);
    }
}

}  // namespace
}  // namespace qkv
