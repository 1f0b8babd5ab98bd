// Head contributions and ablation effects (definitions in head_ablation.hpp).
//
// Symbols: n_q queries, h heads, d_k, d_model = h d_k; c_i = head_i W^O_i (n_q x d_model).
//   (1) ||c_i(q)|| through a thin QR of W^O_i (c_i itself is formed only for ablated heads)
//   (2) output_full = output + sum_{i ablated} c_i
//   (3) relative changes ||c_i(q)|| / ||output_full(q)||, and for the current set
//       ||sum_{i ablated} c_i(q)|| / ||output_full(q)||

#include "core/analysis/head_ablation.hpp"

#include <algorithm>
#include <limits>
#include <new>
#include <string>

#include "core/common/decompositions.hpp"
#include "core/common/shape_text.hpp"
#include "core/result/result.hpp"

namespace qkv {

namespace {

constexpr double notANumber = std::numeric_limits<double>::quiet_NaN();

std::string shapeProblem(const MatrixF& headOutputs, const MatrixF& outputProjection, const MatrixF& output,
                         const std::vector<bool>& ablated, Index d_k)
{
    const Index width = headOutputs.cols();
    if (d_k < 1 || width % d_k != 0)
        return "head ablation: d_k = " + std::to_string(d_k) + " does not divide the " + std::to_string(width) +
               " columns of the head outputs";
    if (outputProjection.rows() != width)
        return "head ablation: W^O is " + shapeText(outputProjection.rows(), outputProjection.cols()) + " but the head outputs have " +
               std::to_string(width) + " columns";
    if (output.rows() != headOutputs.rows() || output.cols() != outputProjection.cols())
        return "head ablation: the output is " + shapeText(output.rows(), output.cols()) + " but should be " +
               shapeText(headOutputs.rows(), outputProjection.cols());
    if (!ablated.empty() && static_cast<Index>(ablated.size()) != width / d_k)
        return "head ablation: " + std::to_string(ablated.size()) + " ablation flags for " + std::to_string(width / d_k) + " heads";
    if (!headOutputs.allFinite() || !outputProjection.allFinite() || !output.allFinite())
        return "head ablation: the head outputs, W^O or the output contain NaN or infinite values";
    return {};
}

// (1) ||c_i(q)|| = ||head_i(q) W^O_i|| for every q without forming c_i (n_q x d_model): with
//     the thin QR (W^O_i)^T = Q R (Q: d_model x r with orthonormal columns, R: r x d_k,
//     r = min(d_model, d_k)), c_i(q) = head_i(q) R^T Q^T and Q keeps lengths, so
//     ||c_i(q)|| = ||head_i(q) R^T||. Cost O(d_model d_k^2 + n_q d_k^2) instead of
//     O(n_q d_k d_model), and no squared condition number as in a Gram-matrix quadratic form.
VectorD contributionNorms(const MatrixD& head, const MatrixD& outputRows)
{
    const Eigen::HouseholderQR<Eigen::MatrixXd> qr(outputRows.transpose());  // d_model x d_k
    const Index r = std::min(outputRows.rows(), outputRows.cols());
    const Eigen::MatrixXd triangle = qr.matrixQR().topRows(r).triangularView<Eigen::Upper>();  // r x d_k
    return (head * triangle.transpose()).rowwise().norm();  // n_q
}

// (3) Quotients that are NaN where the denominator is 0.
VectorD relativeTo(const VectorD& change, const VectorD& reference)
{
    VectorD relative(change.size());
    for (Index q = 0; q < change.size(); ++q) relative(q) = reference(q) > 0.0 ? change(q) / reference(q) : notANumber;
    return relative;
}

}  // namespace

Expected<AblationEffects> ablationEffects(const MatrixF& headOutputs, const MatrixF& outputProjection,
                                          const MatrixF& output, const std::vector<bool>& ablated, Index d_k)
{
    if (const std::string problem = shapeProblem(headOutputs, outputProjection, output, ablated, d_k); !problem.empty())
        return Error{problem};
    const Index n_q = headOutputs.rows();
    const Index h = headOutputs.cols() / d_k;
    const Index d_model = outputProjection.cols();
    try {
        AblationEffects effects;
        effects.ablated = ablated;
        effects.ablated.resize(static_cast<std::size_t>(h), false);
        effects.changeNorm.resize(n_q, h);
        MatrixD ablatedSum = MatrixD::Zero(n_q, d_model);  // sum_{i ablated} c_i, n_q x d_model
        for (Index i = 0; i < h; ++i) {
            const MatrixD head = headOutputs.middleCols(i * d_k, d_k).cast<double>();      // n_q x d_k
            const MatrixD w_o = outputProjection.middleRows(i * d_k, d_k).cast<double>();  // d_k x d_model
            effects.changeNorm.col(i) = contributionNorms(head, w_o);                      // (1)
            if (effects.ablated[static_cast<std::size_t>(i)]) ablatedSum.noalias() += head * w_o;
        }
        // (2) The output with no head ablated.
        effects.fullOutputNorm = (output.cast<double>() + ablatedSum).rowwise().norm();
        effects.currentChangeNorm = ablatedSum.rowwise().norm();
        effects.currentRelativeChange = relativeTo(effects.currentChangeNorm, effects.fullOutputNorm);

        // (3) Per head, and the head that matters most per query.
        effects.relativeChange.resize(n_q, h);
        for (Index i = 0; i < h; ++i) effects.relativeChange.col(i) = relativeTo(effects.changeNorm.col(i), effects.fullOutputNorm);
        effects.mostImportantHead.assign(static_cast<std::size_t>(n_q), -1);
        for (Index q = 0; q < n_q; ++q) {
            if (!effects.zeroOutput(q)) ++effects.definedRows;
            Index best = -1;
            for (Index i = 0; i < h; ++i)
                if (effects.changeNorm(q, i) > (best < 0 ? 0.0 : effects.changeNorm(q, best))) best = i;
            effects.mostImportantHead[static_cast<std::size_t>(q)] = best;
        }
        effects.meanRelativeChange = VectorD::Constant(h, notANumber);
        if (effects.definedRows > 0) {
            for (Index i = 0; i < h; ++i) {
                double sum = 0.0;
                for (Index q = 0; q < n_q; ++q)
                    if (!effects.zeroOutput(q)) sum += effects.relativeChange(q, i);
                effects.meanRelativeChange(i) = sum / static_cast<double>(effects.definedRows);
            }
        }
        return effects;
    } catch (const std::bad_alloc&) {
        return Error{"head ablation: not enough memory for two " + shapeText(n_q, d_model) + " matrices in double"};
    }
}

Expected<AblationEffects> ablationEffects(const AttentionResult& attention, const AttentionWeights& weights)
{
    return ablationEffects(attention.headOutputs, weights.outputProjection, attention.output, attention.ablated,
                           attention.d_v());
}

Expected<AblationEffects> ablationEffects(const Result& result)
{
    return ablationEffects(result.attention, *result.weights);
}

}  // namespace qkv
