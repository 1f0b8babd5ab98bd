// The projections run as one team over row or column blocks (core/attention/projections.hpp).
// Whatever the thread count and the sizes, each output must be the product of its input and weight.

#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <gtest/gtest.h>

#include "core/attention/projections.hpp"
#include "core/common/parallelism.hpp"
#include "core/common/product_kernels.hpp"

namespace qkv {
namespace {

class ThreadLimit {
public:
    explicit ThreadLimit(int threads) : before_(computeThreads()) { setComputeThreads(threads); }
    ~ThreadLimit() { setComputeThreads(before_); }

private:
    int before_;
};

// Products in double as the reference: independent of Eigen's float blocking.
void expectProduct(const MatrixF& input, const MatrixF& weight, const MatrixF& output)
{
    ASSERT_EQ(output.rows(), input.rows());
    ASSERT_EQ(output.cols(), weight.cols());
    const MatrixD expected = input.cast<double>() * weight.cast<double>();
    const double tolerance = 1e-5 * static_cast<double>(input.cols());
    EXPECT_LT((output.cast<double>() - expected).cwiseAbs().maxCoeff(), tolerance);
}

TEST(Projections, EveryOutputIsItsProductForAnyThreadCountAndSize)
{
    // (n_q, n_k, d_model, d_kv): below the team's threshold, above it, rows that do not split
    // evenly, fewer rows than threads, and K/V narrower than Q (grouped-query attention).
    const Index sizes[][4] = {{5, 7, 16, 16}, {129, 77, 256, 64}, {1, 300, 192, 96}, {301, 301, 128, 128}};
    for (const int threads : {1, 2, 3}) {
        const ThreadLimit limit(threads);
        for (const auto& size : sizes) {
            const MatrixF xq = MatrixF::Random(size[0], size[2]), xkv = MatrixF::Random(size[1], size[2]);
            const MatrixF wq = MatrixF::Random(size[2], size[2]), wk = MatrixF::Random(size[2], size[3]),
                          wv = MatrixF::Random(size[2], size[3]);
            MatrixF q(3, 3), k, v;  // q starts with the wrong shape: projectTogether sizes it
            projectTogether({{xq, wq, q}, {xkv, wk, k}, {xkv, wv, v}});
            SCOPED_TRACE(testing::Message() << threads << " threads, n_q " << size[0] << ", n_k " << size[1]);
            expectProduct(xq, wq, q);
            expectProduct(xkv, wk, k);
            expectProduct(xkv, wv, v);
        }
    }
}

TEST(Projections, RowsDoNotDependOnTheThreadCount)
{
    // A row's value depends only on its input row, so 1, 2 and 3 threads give the same bits: the
    // app (one thread) and the export (every core) show the same numbers. On every kernel: the
    // packed kernel's products are cut along the weight's columns, the others' along rows.
    const MatrixF x = MatrixF::Random(257, 192);
    std::vector<std::optional<ProductKernel>> kernels{std::nullopt};
    for (const ProductKernel kernel : rowKeepingProductKernels()) kernels.emplace_back(kernel);
    for (const std::optional<ProductKernel> kernel : kernels) {
        ASSERT_TRUE(forceProductKernel(kernel));
        SCOPED_TRACE(kernel ? std::string(productKernelSpelling(*kernel)) : std::string("chosen kernel"));
        // Narrow and wide weights: a column block must never fall below the packed kernel's width.
        for (const Index width : {64, 100, 192, 530, 700}) {
            const MatrixF w = MatrixF::Random(192, width);
            MatrixF one;
            {
                const ThreadLimit limit(1);
                projectTogether({{x, w, one}});
            }
            for (const int threads : {2, 3}) {
                const ThreadLimit limit(threads);
                MatrixF more;
                projectTogether({{x, w, more}});
                EXPECT_TRUE(one == more) << threads << " threads, width " << width;
            }
        }
    }
    forceProductKernel(std::nullopt);
}

}  // namespace
}  // namespace qkv
