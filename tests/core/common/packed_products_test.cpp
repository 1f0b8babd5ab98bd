// The packed product's one arithmetic (packed_kernels.hpp): each output element is a chain of
// fused multiply-adds along the depth in index order, from zero or from the output's value. So
// every tile this CPU has equals a scalar std::fma loop bit for bit, at any shape: rows and
// columns that end in partial tiles, depths across several depth blocks, weights stored either
// way, strided operands.

#include <cmath>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "core/common/packed_products.hpp"
#include "core/common/product_kernels.hpp"
#include "core/common/random.hpp"

namespace qkv {
namespace {

std::vector<float> randomValues(Index count, SplitMix64& stream)
{
    std::vector<float> values(static_cast<std::size_t>(count));
    for (float& v : values) v = static_cast<float>(stream.normal());
    return values;
}

// The definition, written independently of the kernel: c = fma(x[i][p], w[p][j], c), p ascending.
void scalarProduct(const float* x, Index rows, Index k, Index ldx, const float* w, Index n, Index ldw, bool transposed,
                   float* out, Index ldo, bool accumulate)
{
    for (Index i = 0; i < rows; ++i)
        for (Index j = 0; j < n; ++j) {
            float c = accumulate ? out[i * ldo + j] : 0.0f;
            for (Index p = 0; p < k; ++p) c = std::fma(x[i * ldx + p], transposed ? w[j * ldw + p] : w[p * ldw + j], c);
            out[i * ldo + j] = c;
        }
}

std::vector<const packed::TileKernel*> tilesOfThisCpu()
{
    std::vector<const packed::TileKernel*> tiles;
    for (const ProductKernel kernel : rowKeepingProductKernels()) {
        if (kernel == ProductKernel::PackedAvx2) tiles.push_back(&packed::kAvx2Tile);
        if (kernel == ProductKernel::PackedAvx512) tiles.push_back(&packed::kAvx512Tile);
    }
    return tiles;
}

struct Shape {
    Index rows, k, n;
};

TEST(PackedProducts, EveryTileEqualsTheScalarFusedMultiplyAddChainBitForBit)
{
    const auto tiles = tilesOfThisCpu();
    if (tiles.empty()) GTEST_SKIP() << "this CPU has neither AVX2 with FMA nor AVX-512";
    SplitMix64 stream(71);
    // Partial tiles each way (1..13 rows, widths off 16 and 32), depths below, at and across the
    // depth block (384), widths across the column block (4096), an empty depth; a single row tile
    // (at most 6 or 12 rows) reads x W's whole panels in place.
    for (const Shape shape : {Shape{1, 1, 1}, Shape{5, 7, 3}, Shape{6, 256, 16}, Shape{13, 257, 33}, Shape{12, 600, 512},
                              Shape{7, 513, 530}, Shape{97, 300, 47}, Shape{3, 0, 20}, Shape{40, 64, 1100},
                              Shape{4, 800, 100}, Shape{1, 390, 4130}, Shape{11, 770, 70}})
        for (const bool transposed : {false, true})
            for (const bool accumulate : {false, true}) {
                SCOPED_TRACE(std::to_string(shape.rows) + " x " + std::to_string(shape.k) + " x " +
                             std::to_string(shape.n) + (transposed ? ", w^T" : "") + (accumulate ? ", accumulated" : ""));
                // Strided operands: each row padded by 3 floats.
                const Index ldx = shape.k + 3, ldo = shape.n + 3;
                const Index ldw = (transposed ? shape.k : shape.n) + 3;
                const auto x = randomValues(shape.rows * ldx, stream);
                const auto w = randomValues((transposed ? shape.n : shape.k) * ldw, stream);
                const auto start = randomValues(shape.rows * ldo, stream);
                auto expected = start;
                scalarProduct(x.data(), shape.rows, shape.k, ldx, w.data(), shape.n, ldw, transposed, expected.data(),
                              ldo, accumulate);
                for (const packed::TileKernel* tile : tiles) {
                    SCOPED_TRACE("tile " + std::to_string(tile->tileRows) + " x " + std::to_string(tile->tileColumns));
                    auto out = start;
                    packedProduct(*tile, x.data(), shape.rows, shape.k, ldx, w.data(), shape.n, ldw, transposed,
                                  out.data(), ldo, accumulate);
                    EXPECT_EQ(std::memcmp(out.data(), expected.data(), out.size() * sizeof(float)), 0);
                }
            }
}

// Infinities and NaN flow through the chains as the scalar definition has them (no tile skips a
// zero or reorders a sum).
TEST(PackedProducts, InfinitiesAndNotANumberFollowTheDefinition)
{
    const auto tiles = tilesOfThisCpu();
    if (tiles.empty()) GTEST_SKIP() << "this CPU has neither AVX2 with FMA nor AVX-512";
    SplitMix64 stream(72);
    const Index rows = 9, k = 40, n = 37;
    auto x = randomValues(rows * k, stream);
    auto w = randomValues(k * n, stream);
    x[3] = INFINITY;
    x[k + 5] = NAN;
    w[2 * n + 1] = -INFINITY;
    w[7 * n + 4] = 0.0f;
    std::vector<float> expected(rows * n);
    scalarProduct(x.data(), rows, k, k, w.data(), n, n, false, expected.data(), n, false);
    for (const packed::TileKernel* tile : tiles) {
        std::vector<float> out(rows * n);
        packedProduct(*tile, x.data(), rows, k, k, w.data(), n, n, false, out.data(), n, false);
        EXPECT_EQ(std::memcmp(out.data(), expected.data(), out.size() * sizeof(float)), 0);
    }
}

}  // namespace
}  // namespace qkv
