// multiplyRowsStable: a row of x w has the same bits whichever rows are multiplied with it, so a
// sentence's earlier rows are a longer sentence's rows (a causal prompt typed on) and a row does
// not depend on the thread that computed it. Plain Eigen fails this for a lone row (a
// matrix-vector product) and for the last R mod 4 rows when w's columns end in a partial panel.
// Each promise is checked on every kernel this binary carries that keeps rows on this CPU
// (product_kernels.hpp), the chosen one first; CTest also runs this program once per kernel
// forced by QKV_PRODUCT_KERNEL (tests/core/common/CMakeLists.txt).

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "core/common/product_kernels.hpp"
#include "core/common/random.hpp"
#include "core/common/row_products.hpp"

namespace qkv {
namespace {

// The measured choice (nullopt: product_kernels.hpp) and each
// row-keeping kernel of this CPU forced; or only the one QKV_PRODUCT_KERNEL forces (CTest's run per
// kernel).
std::vector<std::optional<ProductKernel>> kernelsToCheck()
{
    const std::vector<ProductKernel> available = rowKeepingProductKernels();
    const char* forced = std::getenv("QKV_PRODUCT_KERNEL");
    const std::optional<ProductKernel> kernel = forced ? parseProductKernel(forced) : std::nullopt;
    if (kernel && std::find(available.begin(), available.end(), *kernel) != available.end()) return {kernel};
    std::vector<std::optional<ProductKernel>> kernels{std::nullopt};
    kernels.insert(kernels.end(), available.begin(), available.end());
    return kernels;
}

// Runs `check` with each kernel to check in turn, then restores the choice.
template <typename Check>
void onEveryKernel(Check check)
{
    for (const std::optional<ProductKernel> kernel : kernelsToCheck()) {
        SCOPED_TRACE("kernel " + (kernel ? std::string(productKernelSpelling(*kernel)) : std::string("chosen")));
        ASSERT_TRUE(forceProductKernel(kernel));
        check();
    }
    forceProductKernel(std::nullopt);
}

MatrixF randomMatrix(Index rows, Index cols, SplitMix64& stream)
{
    MatrixF m(rows, cols);
    for (Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<float>(stream.normal());
    return m;
}

bool sameBits(const Eigen::Ref<const MatrixF>& a, const Eigen::Ref<const MatrixF>& b)
{
    if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
    for (Index r = 0; r < a.rows(); ++r)
        if (std::memcmp(a.row(r).data(), b.row(r).data(), static_cast<std::size_t>(a.cols()) * sizeof(float)) != 0)
            return false;
    return true;
}

MatrixF product(const Eigen::Ref<const MatrixF>& x, const MatrixF& w, bool accumulate, const MatrixF& start)
{
    MatrixF out = accumulate ? start : MatrixF(x.rows(), w.cols());
    multiplyRowsStable(x, w, out, accumulate);
    return out;
}

TEST(RowProducts, EveryRowHasTheBitsOfTheWholeProductWhateverRowsGoWithIt)
{
    onEveryKernel([&] {
        SplitMix64 stream(31);
        const Index n = 41;
        // Depths below and above Eigen's depth block; widths ending in whole and partial panels.
        for (const Index depth : {16, 64, 1000})
            for (const Index width : {16, 50, 128, 200}) {
                SCOPED_TRACE("depth " + std::to_string(depth) + ", width " + std::to_string(width));
                const MatrixF x = randomMatrix(n, depth, stream);
                const MatrixF w = randomMatrix(depth, width, stream);
                for (const bool accumulate : {false, true}) {
                    const MatrixF start = randomMatrix(n, width, stream);
                    const MatrixF whole = product(x, w, accumulate, start);
                    EXPECT_TRUE(whole.isApprox(accumulate ? MatrixF(start + x * w) : MatrixF(x * w), 1e-4f));
                    for (const Index first : {0, 1, 4, 5, 7, 16, 38, 40})
                        for (const Index last : {first + 1, first + 2, first + 3, first + 5, n}) {
                            if (last > n) continue;
                            const Index rows = last - first;
                            const MatrixF part = product(x.middleRows(first, rows), w, accumulate,
                                                         start.middleRows(first, rows));
                            EXPECT_TRUE(sameBits(part, whole.middleRows(first, rows)))
                                << "rows " << first << " to " << last << (accumulate ? ", accumulated" : "");
                        }
                }
            }
    });
}

// The libraries' kernels change with the rows of a call: oneDNN's driver copies the operands past
// 100 rows when a weight's row stride is a multiple of 1024 floats, and past ~1,500 rows of a
// 768-wide weight; a lone row is a matrix-vector product. Every row keeps the bits it has in the
// whole product, whichever rows go with it (onednn_products.hpp cuts and pads the calls).
TEST(RowProducts, RowsKeepTheirBitsWhereTheLibrariesSwitchKernels)
{
    onEveryKernel([&] {
        SplitMix64 stream(33);
        struct Shape {
            Index rows, depth, width;
        };
        // The last: a weight as wide as a readout's block of the vocabulary.
        for (const Shape shape :
             {Shape{300, 1024, 3072}, Shape{1600, 768, 768}, Shape{130, 2048, 1024}, Shape{110, 128, 8200}}) {
            SCOPED_TRACE(std::to_string(shape.rows) + " x " + std::to_string(shape.depth) + " x " +
                         std::to_string(shape.width));
            const MatrixF x = randomMatrix(shape.rows, shape.depth, stream);
            const MatrixF w = randomMatrix(shape.depth, shape.width, stream);
            const MatrixF start = randomMatrix(shape.rows, shape.width, stream);
            for (const bool accumulate : {false, true}) {
                const MatrixF whole = product(x, w, accumulate, start);
                for (const Index first : {Index{0}, Index{5}, Index{97}, shape.rows - 1})
                    for (const Index rows : {1, 2, 3, 95, 96, 97, 101, 104, 200}) {
                        if (first + rows > shape.rows) continue;
                        const MatrixF part =
                            product(x.middleRows(first, rows), w, accumulate, start.middleRows(first, rows));
                        EXPECT_TRUE(sameBits(part, whole.middleRows(first, rows)))
                            << rows << " rows from " << first << (accumulate ? ", accumulated" : "");
                    }
            }
        }
    });
}

// A team's threads multiply at once (the projections' row blocks, the readout's vocabulary
// ranges): each product keeps its bits. Debian's serial OpenBLAS shares its buffers between
// calls and corrupted such products until its calls took turns (blas_products.cpp).
TEST(RowProducts, ProductsOnTwoThreadsAtOnceKeepTheirBits)
{
    onEveryKernel([&] {
        SplitMix64 stream(32);
        // A readout's shape: a few rows against a token table read transposed, one vocabulary range
        // per thread, as tiedLogitsForward cuts it.
        const MatrixF t = randomMatrix(3, 768, stream);
        const MatrixF table = randomMatrix(6000, 768, stream);  // V x d_model
        MatrixF reference(3, 6000);
        multiplyRowsStable(t, table.transpose(), reference);
        for (int round = 0; round < 8; ++round) {
            MatrixF logits(3, 6000);
#pragma omp parallel for num_threads(2) schedule(static)
            for (int part = 0; part < 2; ++part)
                multiplyRowsStable(t, table.middleRows(part * 2976, part == 0 ? 2976 : 3024).transpose(),
                                   logits.middleCols(part * 2976, part == 0 ? 2976 : 3024));
            EXPECT_TRUE(sameBits(logits, reference)) << "round " << round;
        }
        std::printf("products: %s\n", productKernelName().c_str());
    });
}

// Under CTest's runs with QKV_PRODUCT_KERNEL set, the forced kernel is the one that ran (a name
// this CPU lacks prints why on standard error, and CTest reports the run as skipped).
TEST(ProductKernels, TheForcedKernelRuns)
{
    const char* forced = std::getenv("QKV_PRODUCT_KERNEL");
    if (forced == nullptr) GTEST_SKIP() << "QKV_PRODUCT_KERNEL not set";
    const std::optional<ProductKernel> kernel = parseProductKernel(forced);
    ASSERT_TRUE(kernel.has_value()) << forced;
    const auto available = rowKeepingProductKernels();
    if (std::find(available.begin(), available.end(), *kernel) == available.end())
        GTEST_SKIP() << forced << " is not available on this CPU";
    EXPECT_EQ(productKernel(false), *kernel);
    if (*kernel != ProductKernel::OneDnn) EXPECT_EQ(productKernel(true), *kernel);
}

TEST(ProductKernels, SpellingsRoundTripAndUnknownNamesAreRefused)
{
    for (const ProductKernel kernel : {ProductKernel::Eigen, ProductKernel::OpenBlas, ProductKernel::OneDnn,
                                       ProductKernel::PackedAvx2, ProductKernel::PackedAvx512})
        EXPECT_EQ(parseProductKernel(productKernelSpelling(kernel)), kernel);
    EXPECT_FALSE(parseProductKernel("mkl").has_value());
    EXPECT_FALSE(parseProductKernel("").has_value());
    // Eigen keeps rows everywhere; a kernel the CPU lacks is refused and changes nothing.
    const auto available = rowKeepingProductKernels();
    ASSERT_FALSE(available.empty());
    EXPECT_EQ(available.front(), ProductKernel::Eigen);
    const ProductKernel before = productKernel(false);
    for (const ProductKernel kernel : {ProductKernel::OpenBlas, ProductKernel::OneDnn, ProductKernel::PackedAvx2,
                                       ProductKernel::PackedAvx512})
        if (std::find(available.begin(), available.end(), kernel) == available.end()) {
            EXPECT_FALSE(forceProductKernel(kernel));
            EXPECT_EQ(productKernel(false), before);
        }
    EXPECT_FALSE(cpuVectorExtensions().empty());
}

}  // namespace
}  // namespace qkv
