// Eigen's float GEMM beside OpenBLAS's, and whether OpenBLAS gives a row (or a column block) of a
// product the same bits whether it is computed alone or inside the whole product: what routing
// the model's large products through OpenBLAS would gain, and which of the project's promises
// (same numbers whatever the thread count; one position's readout equal to the whole run's row)
// each of OpenBLAS's kernels keeps. Not built by CMake (it needs libopenblas-serial-dev, which the
// project does not depend on yet); docs/benchmarks.md, "Float products: Eigen and OpenBLAS".
//
//   g++ -O3 -march=native -DEIGEN_DONT_PARALLELIZE -I/usr/include/eigen3 \
//       -I/usr/include/x86_64-linux-gnu/openblas-serial bench/blas/float_product_kernels.cpp \
//       -o /tmp/float_product_kernels /usr/lib/x86_64-linux-gnu/openblas-serial/libopenblas.so.0
//   env -u OPENBLAS_CORETYPE /tmp/float_product_kernels        (the kernel OpenBLAS detects)
//   OPENBLAS_CORETYPE=Haswell /tmp/float_product_kernels       (an AVX2 laptop's kernel)

#include <Eigen/Core>
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

namespace {

// C (m x n) = A (m x k) B (k x n), row-major, leading dimensions as given.
void sgemm(const float* a, long m, long k, const float* b, long ldb, long n, float* c, long ldc)
{
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m), static_cast<int>(n),
                static_cast<int>(k), 1.0f, a, static_cast<int>(k), b, static_cast<int>(ldb), 0.0f, c,
                static_cast<int>(ldc));
}

// The same, padded with zero rows to more than 100^3 multiply-adds: OpenBLAS sends smaller
// products to a "small matrix" kernel that sums in another order.
void sgemmPadded(const float* a, long m, long k, const float* b, long n, float* c)
{
    const double perRow = static_cast<double>(k) * static_cast<double>(n);
    if (static_cast<double>(m) * perRow > 1e6) return sgemm(a, m, k, b, n, n, c, n);
    const long padded = static_cast<long>(1e6 / perRow) + 1;
    Matrix left = Matrix::Zero(padded, k), out(padded, n);
    left.topRows(m) = Eigen::Map<const Matrix>(a, m, k);
    sgemm(left.data(), padded, k, b, n, n, out.data(), n);
    Eigen::Map<Matrix>(c, m, n) = out.topRows(m);
}

template <class Work>
double bestSeconds(Work work)
{
    double best = 1e9;
    for (int round = 0; round < 9; ++round) {
        const auto start = std::chrono::steady_clock::now();
        work();
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return best;
}

}  // namespace

int main()
{
    openblas_set_num_threads(1);
    std::printf("OpenBLAS: %s; kernel %s; one thread each\n\n", openblas_get_config(), openblas_get_corename());

    std::printf("GFLOP/s, best of 9 (m x k x n: rows x inner x columns)\n");
    const long speed[][3] = {{128, 768, 2304}, {128, 768, 768}, {256, 768, 3072}, {256, 3072, 768}, {16, 768, 768},
                             {4, 768, 3072}};
    for (const auto& s : speed) {
        const Matrix a = Matrix::Random(s[0], s[1]), b = Matrix::Random(s[1], s[2]);
        Matrix c(s[0], s[2]), d(s[0], s[2]);
        const double eigen = bestSeconds([&] { c.noalias() = a * b; });
        const double blas = bestSeconds([&] { sgemm(a.data(), s[0], s[1], b.data(), s[2], s[2], d.data(), s[2]); });
        const double flop = 2.0 * static_cast<double>(s[0] * s[1] * s[2]);
        std::printf("  %4ld x %4ld x %4ld   Eigen %6.1f   OpenBLAS %6.1f\n", s[0], s[1], s[2], flop / eigen / 1e9,
                    flop / blas / 1e9);
    }

    std::printf("\nRow blocks computed alone (padded) against the whole product's rows (257 rows)\n");
    const long shapes[][2] = {{768, 768}, {768, 2304}, {768, 3072}, {3072, 768}, {512, 512}, {1024, 1024}};
    for (const auto& s : shapes) {
        const long k = s[0], n = s[1];
        const Matrix a = Matrix::Random(257, k), b = Matrix::Random(k, n);
        Matrix whole(257, n);
        sgemmPadded(a.data(), 257, k, b.data(), n, whole.data());
        int differ = 0, tried = 0;
        for (long m = 1; m <= 40; ++m)
            for (const long first : {0L, 1L, 100L, 257 - m}) {
                Matrix block(m, n);
                sgemmPadded(a.data() + first * k, m, k, b.data(), n, block.data());
                ++tried;
                differ += block == whole.middleRows(first, m) ? 0 : 1;
            }
        std::printf("  %4ld x %4ld: %3d of %d differ\n", k, n, differ, tried);
    }

    std::printf("\nColumn blocks (2, 3, 4, 7 parts) against the whole product (128 rows)\n");
    for (const auto& s : shapes) {
        const long k = s[0], n = s[1];
        const Matrix a = Matrix::Random(128, k), b = Matrix::Random(k, n);
        Matrix whole(128, n), split(128, n);
        sgemm(a.data(), 128, k, b.data(), n, n, whole.data(), n);
        int differ = 0;
        for (const long parts : {2L, 3L, 4L, 7L}) {
            for (long part = 0; part < parts; ++part) {
                const long first = n * part / parts, last = n * (part + 1) / parts;
                sgemm(a.data(), 128, k, b.data() + first, n, last - first, split.data() + first, n);
            }
            differ += split == whole ? 0 : 1;
        }
        std::printf("  %4ld x %4ld: %d of 4 differ\n", k, n, differ);
    }
}
