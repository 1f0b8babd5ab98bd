#include "core/common/packed_products.hpp"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <new>

namespace qkv {

namespace {

struct AlignedFree {
    void operator()(float* p) const { std::free(p); }
};

// This thread's block of packed weights (kKernelDepthBlock x kKernelColumnBlock floats, rounded
// up to whole panels of the widest tile: 6 MiB, of which a product touches what its block needs),
// 64-byte aligned so that a panel's rows start on cache lines. Kept between calls: a model runs
// thousands of products, each would allocate it again.
float* packBuffer()
{
    constexpr std::size_t widestTile = 32;
    constexpr std::size_t floats =
        kKernelDepthBlock * ((kKernelColumnBlock + widestTile - 1) / widestTile) * widestTile;
    thread_local std::unique_ptr<float, AlignedFree> buffer{
        static_cast<float*>(std::aligned_alloc(64, floats * sizeof(float)))};
    if (!buffer) throw std::bad_alloc();
    return buffer.get();
}

// Packs w's depth rows [p0, p0 + kc) x columns [j0, j0 + nc) into panels of Nr columns: panel q
// holds columns j0 + q Nr ... as kc rows of Nr floats, zero past column j0 + nc. Nr is a constant
// so a panel's row is a few vector moves, not a library call per row.
template <Index Nr>
void packRowMajor(const float* w, Index ldw, Index p0, Index kc, Index j0, Index nc, float* packed)
{
    const Index whole = nc - nc % Nr;  // columns of whole panels
    // Depth row by depth row: each reads nc contiguous floats of w and hands Nr to each panel.
    for (Index p = 0; p < kc; ++p) {
        const float* source = w + (p0 + p) * ldw + j0;
        for (Index q = 0; q < whole; q += Nr) {
            float* row = packed + q * kc + p * Nr;
            for (Index j = 0; j < Nr; ++j) row[j] = source[q + j];
        }
        if (whole < nc) {
            float* row = packed + whole * kc + p * Nr;
            for (Index j = 0; j < Nr; ++j) row[j] = whole + j < nc ? source[whole + j] : 0.0f;
        }
    }
}

void packRowMajor(const float* w, Index ldw, Index p0, Index kc, Index j0, Index nc, Index nr, float* packed)
{
    if (nr == 32) packRowMajor<32>(w, ldw, p0, kc, j0, nc, packed);
    else packRowMajor<16>(w, ldw, p0, kc, j0, nc, packed);
}

}  // namespace

void packedProduct(const packed::TileKernel& kernel, const float* x, Index rows, Index k, Index ldx, const float* w,
                   Index n, Index ldw, bool transposed, float* out, Index ldo, bool accumulate)
{
    if (rows <= 0 || n <= 0) return;
    if (k <= 0) {  // an empty sum: zero, or out unchanged
        if (!accumulate)
            for (Index i = 0; i < rows; ++i) std::fill_n(out + i * ldo, n, 0.0f);
        return;
    }
    const Index mr = kernel.tileRows, nr = kernel.tileColumns;
    float* packed = packBuffer();
    for (Index j0 = 0; j0 < n; j0 += kKernelColumnBlock) {
        const Index nc = std::min(kKernelColumnBlock, n - j0);
        for (Index p0 = 0; p0 < k; p0 += kKernelDepthBlock) {
            const Index kc = std::min(kKernelDepthBlock, k - p0);
            // A single row tile (typing on, generation) reuses no panel: x W's whole panels are then
            // read in place, only the last partial one copied (same chains, same bits).
            const bool inPlace = !transposed && rows <= mr;
            const Index whole = inPlace ? nc - nc % nr : 0;
            if (transposed) kernel.packTransposed(w, ldw, p0, kc, j0, nc, static_cast<int>(nr), packed);
            else if (whole < nc) packRowMajor(w, ldw, p0, kc, j0 + whole, nc - whole, nr, packed + whole * kc);
            // The chains continue from out after the first depth block (packed_kernels.hpp).
            const bool load = accumulate || p0 > 0;
            for (Index i0 = 0; i0 < rows; i0 += kKernelRowBlock) {
                const Index mc = std::min(kKernelRowBlock, rows - i0);
                for (Index q = 0; q < nc; q += nr) {
                    const bool direct = q < whole;
                    const float* panel = direct ? w + p0 * ldw + j0 + q : packed + (q / nr) * kc * nr;
                    const Index panelStride = direct ? ldw : nr;
                    const int cols = static_cast<int>(std::min(nr, nc - q));
                    for (Index i = i0; i < i0 + mc; i += mr) {
                        const packed::TileArguments tile{x + i * ldx + p0, ldx, panel, panelStride, kc,
                                                         out + i * ldo + j0 + q, ldo,
                                                         static_cast<int>(std::min(mr, i0 + mc - i)), cols, load};
                        kernel.tile(tile);
                    }
                }
            }
        }
    }
}

}  // namespace qkv
