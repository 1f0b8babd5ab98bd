#include "core/attention/causal_extension.hpp"

#include <cassert>

#include "core/attention/head_blocks.hpp"
#include "core/common/memory.hpp"
#include "core/common/stack_rows.hpp"

namespace qkv {

namespace {

// A head's map over n queries and keys from its first `kept` rows and columns (the rows' later
// columns are masked: zero weights, or scores written afterwards).               n x n
MatrixF grownMap(const MatrixF& earlier, Index kept, Index n)
{
    MatrixF map = freshLargeMatrix(n, n);
    map.topLeftCorner(kept, kept) = earlier.topLeftCorner(kept, kept);
    map.topRightCorner(kept, n - kept).setZero();
    return map;
}

}  // namespace

AttentionResult extendCausalAttention(const AttentionResult& earlier, Index kept, const MatrixF& input,
                                      const AttentionWeights& weights, const HeadGrouping& grouping,
                                      const AttentionOptions& options)
{
    const Index n = input.rows();
    const Index added = n - kept;
    assert(options.mask.causal && options.mask.keyPadding.empty());
    assert(kept >= 0 && kept <= earlier.queryCount() && added >= 0);

    // 1. The new rows' projections, rotated from their own positions.
    AttentionOptions newRows = options;
    newRows.firstPosition = options.firstPosition + kept;
    const MatrixF x = input.bottomRows(added);  // added x d_model
    AttentionResult r = projectAttentionInputs(x, x, weights, grouping, newRows);
    r.mask = options.mask;
    r.query = stackRows(earlier.query, kept, r.query);  // n x h d_k
    r.key = stackRows(earlier.key, kept, r.key);        // n x g d_k
    r.value = stackRows(earlier.value, kept, r.value);  // n x g d_v
    if (options.rotary != RotaryLayout::None) {
        r.queryBeforeRotation = stackRows(earlier.queryBeforeRotation, kept, r.queryBeforeRotation);
        r.keyBeforeRotation = stackRows(earlier.keyBeforeRotation, kept, r.keyBeforeRotation);
    }

    // 2-4. The earlier rows' maps and head outputs as they were, their scores against the new
    //      keys, then every head's new rows.
    for (Index head = 0; head < r.headCount(); ++head) {
        const HeadAttention& before = earlier.heads[static_cast<std::size_t>(head)];
        HeadAttention& h = r.heads[static_cast<std::size_t>(head)];
        if (options.keepWeights) h.attention = grownMap(before.attention, kept, n);
        if (options.keepScores) h.scores = grownMap(before.scores, kept, n);
    }
    if (options.keepScores) scoreLaterKeys(r, kept, kept);
    r.headOutputs.resize(n, grouping.concatWidth());  // n x h d_v
    r.headOutputs.topRows(kept) = earlier.headOutputs.topRows(kept);
    r.fullyMaskedRows.assign(earlier.fullyMaskedRows.begin(), earlier.fullyMaskedRows.begin() + kept);
    attendQueryRows(r, options.keepScores, kept, 0, options.keepWeights);

    // 5. The new rows of the output.
    r.output.resize(n, weights.d_model());
    r.output.topRows(kept) = earlier.output.topRows(kept);
    projectAttentionOutput(r, weights, kept);
    return r;
}

}  // namespace qkv
