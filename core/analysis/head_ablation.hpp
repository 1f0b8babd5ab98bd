#pragma once
// What each head contributes to the layer output, and what switching heads off changes.
// docs/formats.md (`heads[i].ablation`) is the user-facing definition.
//
// The output projection splits by heads (paper section 3.2.2):
//   Output = Concat(head_1..head_h) W^O + b^O = sum_i head_i W^O_i + b^O,
// with W^O_i head i's d_v rows of W^O. Head ablation zeroes head i's block of Concat, which
// removes exactly c_i = head_i W^O_i (n_q x d_model) from the output. So, per query q:
//   output_full(q) = output(q) + sum_{i ablated} c_i(q)     the output with no head ablated,
//                    recovered from the stored output (attention is not recomputed)
//   ablating head i alone:  ||c_i(q)|| / ||output_full(q)||   (relative output change)
//   the current ablation set: ||output(q) - output_full(q)|| / ||output_full(q)||
//                           = ||sum_{i ablated} c_i(q)|| / ||output_full(q)||
//   the head that matters most for q: argmax_i ||c_i(q)|| (the lowest index among equals;
//                    -1 when every head contributes exactly 0, e.g. a fully masked row
//                    without biases)
// Norms are Euclidean over the d_model entries. Zero output: when ||output_full(q)|| = 0 a
// relative change has no meaning: it is NaN (null in JSON), the absolute change ||c_i(q)|| is
// reported beside it, and the row is left out of the means.
// All in double from the float head outputs, W^O and output. Cost: the norms ||c_i(q)|| come
// from a thin QR of each W^O_i (O(d_model d_k^2 + n_q d_k^2) per head), so only the ablated
// heads' c_i are formed (2 n_q d_k d_model flops each).

#include <vector>

#include "core/common/expected.hpp"
#include "core/common/matrix.hpp"

namespace qkv {

struct Result;
struct AttentionResult;
struct AttentionWeights;

struct AblationEffects {
    VectorD fullOutputNorm;         // n_q: ||output_full(q)||
    MatrixD changeNorm;             // n_q x h: ||c_i(q)||, the change from ablating head i alone
    MatrixD relativeChange;         // n_q x h: changeNorm / fullOutputNorm; NaN where that is 0
    VectorD meanRelativeChange;     // h: mean over the queries with a defined relative change
    VectorD currentChangeNorm;      // n_q: ||output(q) - output_full(q)||, the current ablations
    VectorD currentRelativeChange;  // n_q: the same over ||output_full(q)||; NaN where that is 0
    std::vector<Index> mostImportantHead;  // n_q, 0-based; -1 when no head contributes
    std::vector<bool> ablated;      // h: the current ablation set
    Index definedRows = 0;          // queries with ||output_full(q)|| > 0

    Index headCount() const { return changeNorm.cols(); }
    bool zeroOutput(Index query) const { return !(fullOutputNorm(query) > 0.0); }
};

// The kernel. headOutputs: Concat(head_1..head_h), n_q x (h d_v), every head as computed;
// outputProjection: W^O, (h d_v) x d_model; output: the stored layer output (n_q x d_model,
// with `ablated` heads' blocks zeroed, and b^O); ablated: h entries or empty (none).
// Errors: shapes that disagree, non-finite values.
Expected<AblationEffects> ablationEffects(const MatrixF& headOutputs, const MatrixF& outputProjection,
                                          const MatrixF& output, const std::vector<bool>& ablated, Index d_v);

// A computed layer (its stored ablation set) and the weights it used.
Expected<AblationEffects> ablationEffects(const AttentionResult& attention, const AttentionWeights& weights);
// What the views call.
Expected<AblationEffects> ablationEffects(const Result& result);

}  // namespace qkv
