#pragma once
// Matrices of a sentence typed on: an earlier run's first rows over the rows computed after them.

#include "core/common/matrix.hpp"
#include "core/common/memory.hpp"

namespace qkv {

// The first `kept` rows of `earlier` over the rows of `later` (empty when both are).
//                                                                    (kept + later.rows()) x cols
inline MatrixF stackRows(const MatrixF& earlier, Index kept, const MatrixF& later)
{
    if (earlier.size() == 0 && later.size() == 0) return MatrixF();
    MatrixF stacked = freshLargeMatrix(kept + later.rows(), later.cols());
    stacked.topRows(kept) = earlier.topRows(kept);
    stacked.bottomRows(later.rows()) = later;
    return stacked;
}

}  // namespace qkv
