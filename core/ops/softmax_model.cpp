// The trainable model's softmax (softmax.hpp), compiled as core/trainable is (core/ops/CMakeLists.txt).
#include "core/ops/softmax.hpp"

namespace qkv {

// Not softmaxRow: the model's rows are a sequence's (~10 keys), so the exp runs over the whole
// n_q x n_k block at once, and the trained weights keep the bits of that evaluation.
template <typename Scalar>
void softmaxRowsForward(Scalar* scores, Index n_q, Index n_k, bool causal)
{
    using Row = Eigen::Array<Scalar, 1, Eigen::Dynamic>;
    // 1. s - max over the keys each query sees (the masked keys' values are overwritten below).
    for (Index q = 0; q < n_q; ++q) {
        const Index visible = visibleKeysEnd(causal, q, n_k);
        Eigen::Map<Row> row(scores + q * n_k, visible);
        row -= row.maxCoeff();
    }
    // 2. exp over the whole block at once: a row of ~10 keys is shorter than one AVX-512 packet.
    Eigen::Map<Row> block(scores, n_q * n_k);
    block = block.exp();
    // 3. Normalise; masked keys get exact zeros.
    for (Index q = 0; q < n_q; ++q) {
        const Index visible = visibleKeysEnd(causal, q, n_k);
        Eigen::Map<Row> row(scores + q * n_k, visible);
        row *= Scalar(1) / row.sum();
        for (Index k = visible; k < n_k; ++k) scores[q * n_k + k] = Scalar(0);
    }
}

template <typename Scalar>
void softmaxRowsBackward(Scalar* dScores, const Scalar* dAttention, const Scalar* attention, Index n_q, Index n_k)
{
    using Row = Eigen::Array<Scalar, 1, Eigen::Dynamic>;
    for (Index q = 0; q < n_q; ++q) {
        const Eigen::Map<const Row> a(attention + q * n_k, n_k), da(dAttention + q * n_k, n_k);
        const Scalar dot = (da * a).sum();
        Eigen::Map<Row>(dScores + q * n_k, n_k) = a * (da - dot);
    }
}

template void softmaxRowsForward<float>(float*, Index, Index, bool);
template void softmaxRowsForward<double>(double*, Index, Index, bool);
template void softmaxRowsBackward<float>(float*, const float*, const float*, Index, Index);
template void softmaxRowsBackward<double>(double*, const double*, const double*, Index, Index);

}  // namespace qkv
