// The steps on their own: identities each must satisfy for any input.

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "core/embedding/embeddings.hpp"
#include "core/trainable/model_steps.hpp"
#include "support/matrix_assertions.hpp"

namespace qkv {
namespace {

using MatrixDR = RowMajorMatrix<double>;

TEST(ModelSteps, SinusoidIsTheAppsPositionalEncoding)
{
    // The float table is core/embedding's positionalEncoding bit for bit (both compute in double).
    const RowMajorMatrix<float> table = sinusoidalPositions<float>(40, 12);
    const MatrixF app = positionalEncoding(40, 12);
    EXPECT_TRUE(table == app);
    EXPECT_EQ(sinusoidalPositions<double>(3, 4)(1, 0), std::sin(1.0));
    EXPECT_EQ(sinusoidalPositions<double>(3, 4)(2, 3), std::cos(2.0 / 100.0));
}

TEST(ModelSteps, CrossEntropyOfEqualLogitsIsLogV)
{
    const MatrixDR logits = MatrixDR::Constant(3, 5, 0.7);
    MatrixDR probabilities(3, 5), dLogits(3, 5);
    const std::vector<std::int32_t> labels{2, -1, 4};
    std::vector<std::int32_t> predictions(3);
    EXPECT_NEAR(crossEntropyForward<double>(probabilities, logits, labels, predictions), 2.0 * std::log(5.0), 1e-14);
    EXPECT_EQ(predictions[0], 0) << "ties go to the first maximum";
    crossEntropyBackward<double>(dLogits, probabilities, labels, 0.5);
    EXPECT_NEAR(dLogits(0, 2), 0.5 * (0.2 - 1.0), 1e-15);
    EXPECT_NEAR(dLogits(0, 0), 0.5 * 0.2, 1e-15);
    EXPECT_EQ(dLogits.row(1).cwiseAbs().maxCoeff(), 0.0) << "an unlabelled row takes no gradient";
    EXPECT_NEAR(dLogits.row(2).sum(), 0.0, 1e-15);
}

TEST(ModelSteps, FullHeadScoresAreTheBilinearForm)
{
    // scores_i = X_q W_i X_kv^T / sqrt(d_k): attentionForward with queries X_q W_i and shared
    // keys X_kv reproduces the softmax of that product.
    const Index n_q = 3, n_k = 4, d = 4, h = 2, d_k = 2;
    const MatrixDR Xq = MatrixDR::Random(n_q, d), Xkv = MatrixDR::Random(n_k, d), V = MatrixDR::Random(n_k, d);
    const MatrixDR W1 = MatrixDR::Random(d, d), W2 = MatrixDR::Random(d, d);
    MatrixDR queries(n_q, h * d);
    queries << Xq * W1, Xq * W2;
    AttentionShape shape{h, d_k, d, true, false};
    MatrixDR heads(n_q, d);
    std::vector<double> attention(static_cast<std::size_t>(h * n_q * n_k));
    attentionForward<double>(heads, attention.data(), queries, Xkv, V, shape);
    MatrixDR expected = Xq * W2 * Xkv.transpose() / std::sqrt(2.0);
    for (Index q = 0; q < n_q; ++q) {
        expected.row(q) = (expected.row(q).array() - expected.row(q).maxCoeff()).exp().matrix();
        expected.row(q) /= expected.row(q).sum();
    }
    const Eigen::Map<const MatrixDR> second(attention.data() + n_q * n_k, n_q, n_k);
    EXPECT_MATRIX_NEAR(second, expected, 1e-14);
    EXPECT_MATRIX_NEAR(heads.middleCols(2, 2), (expected * V.middleCols(2, 2)).eval(), 1e-14);
}

TEST(ModelSteps, LinearBackwardGivesTheSameBitsAtEveryAddress)
{
    // The gradients of W and b written at each float offset of a 64-byte line: a vectorised
    // reduction must not round differently with the destination's alignment (two training runs
    // hold their gradient buffers at different addresses and must agree bit for bit).
    using MatrixFR = RowMajorMatrix<float>;
    const MatrixFR x = MatrixFR::Random(37, 24), dy = MatrixFR::Random(37, 29), W = MatrixFR::Random(24, 29);
    std::vector<float> first;
    for (Index offset = 0; offset < 16; ++offset) {
        std::vector<float> buffer(static_cast<std::size_t>(offset + 24 * 29 + 29 + 37 * 24), 0.0f);
        float* dW = buffer.data() + offset;
        float* db = dW + 24 * 29;
        float* dx = db + 29;
        linearBackward<float>(Eigen::Map<MatrixFR>(dx, 37, 24), Eigen::Map<MatrixFR>(dW, 24, 29), db, dy, x, W);
        const std::vector<float> written(dW, dx + 37 * 24);
        if (offset == 0)
            first = written;
        else
            EXPECT_EQ(written, first) << "at a float offset of " << offset;
    }
}

}  // namespace
}  // namespace qkv
