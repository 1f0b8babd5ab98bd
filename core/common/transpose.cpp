#include "core/common/transpose.hpp"

#include <algorithm>

namespace qkv {

MatrixF transposed(const MatrixF& m)
{
    // 64 x 64 floats: 16 KiB read and 16 KiB written per tile, within a 48 KiB L1 data cache.
    constexpr Index tile = 64;
    const Index rows = m.rows(), cols = m.cols();
    MatrixF t(cols, rows);  // row-major, as m
    const float* in = m.data();
    float* out = t.data();
    for (Index r0 = 0; r0 < rows; r0 += tile) {
        const Index r1 = std::min(rows, r0 + tile);
        for (Index c0 = 0; c0 < cols; c0 += tile) {
            const Index c1 = std::min(cols, c0 + tile);
            for (Index c = c0; c < c1; ++c)
                for (Index r = r0; r < r1; ++r) out[c * rows + r] = in[r * cols + c];
        }
    }
    return t;
}

}  // namespace qkv
