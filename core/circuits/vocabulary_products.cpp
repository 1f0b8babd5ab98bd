#include "core/circuits/vocabulary_products.hpp"

#include <algorithm>
#include <limits>

#include "core/common/blas_products.hpp"
#include "core/common/parallelism.hpp"

#if defined(QKV_HAVE_OPENBLAS)
// OpenBLAS's C interface, declared as blas_products.cpp declares it (the header's path differs
// between Debian's builds of the library).
extern "C" {
enum CBLAS_ORDER { CblasRowMajor = 101, CblasColMajor = 102 };
enum CBLAS_TRANSPOSE { CblasNoTrans = 111, CblasTrans = 112 };
enum CBLAS_UPLO { CblasUpper = 121, CblasLower = 122 };
void cblas_sgemm(CBLAS_ORDER order, CBLAS_TRANSPOSE transA, CBLAS_TRANSPOSE transB, int m, int n, int k, float alpha,
                 const float* a, int lda, const float* b, int ldb, float beta, float* c, int ldc);
void cblas_ssyrk(CBLAS_ORDER order, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int n, int k, float alpha, const float* a,
                 int lda, float beta, float* c, int ldc);
int openblas_get_parallel(void);  // 0: the serial build, 1: pthread, 2: OpenMP
}
#endif

namespace qkv::circuits {

namespace {

using Stride = Eigen::OuterStride<>;
using ConstMap = Eigen::Map<const MatrixF, 0, Stride>;

// Keeps the k best of a column in a heap whose front is the worst kept (ranksBefore as "less").
void keep(std::vector<ScoredId>& heap, const ScoredId& candidate, std::size_t k)
{
    if (heap.size() < k) {
        heap.push_back(candidate);
        std::push_heap(heap.begin(), heap.end(), ranksBefore);
    } else if (ranksBefore(candidate, heap.front())) {
        std::pop_heap(heap.begin(), heap.end(), ranksBefore);
        heap.back() = candidate;
        std::push_heap(heap.begin(), heap.end(), ranksBefore);
    }
}

// Rows of the table per block: the block's product (rows x m floats) stays near 2 MB, in the
// cache beside the directions (OpenBLAS on this machine: 8,192-row blocks of 576 columns ran at
// 65 GFLOP/s, 96 to 2,048 rows at 89-93).
Index blockRows(Index m) { return std::clamp<Index>((Index{1} << 19) / std::max<Index>(m, 1), 96, 2048); }

}  // namespace

bool openBlasDirectly()
{
#if defined(QKV_HAVE_OPENBLAS)
    // blasKeepsRows() first: it sets OpenBLAS to one thread per call, whichever its kernel.
    static const bool direct = (blasKeepsRows(), openblas_get_parallel() != 0);
    return direct;
#else
    return false;
#endif
}

void plainProduct(const float* x, Index rows, Index k, Index ldx, const float* w, Index n, Index ldw, float* out,
                  Index ldo, bool accumulate)
{
    if (rows == 0 || n == 0) return;
#if defined(QKV_HAVE_OPENBLAS)
    if (openBlasDirectly() && k > 0) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(rows), static_cast<int>(n),
                    static_cast<int>(k), 1.0f, x, static_cast<int>(ldx), w, static_cast<int>(ldw),
                    accumulate ? 1.0f : 0.0f, out, static_cast<int>(ldo));
        return;
    }
#endif
    if (blasKeepsRows() && k > 0) {
        blasProduct(x, rows, k, ldx, w, n, ldw, false, out, ldo, accumulate);
        return;
    }
    Eigen::Map<MatrixF, 0, Stride> product(out, rows, n, Stride(ldo));
    const ConstMap left(x, rows, k, Stride(ldx));
    const ConstMap right(w, k, n, Stride(ldw));
    if (accumulate)
        product.noalias() += left * right;
    else
        product.noalias() = left * right;
}

std::vector<std::vector<ScoredId>> topRowsPerColumn(const MatrixF& table, const MatrixF& directions, Index k)
{
    const Index V = table.rows(), d = table.cols(), m = directions.cols();
    const auto kept = static_cast<std::size_t>(std::clamp<Index>(k, 0, V));
    if (kept == 0) return std::vector<std::vector<ScoredId>>(static_cast<std::size_t>(m));
    const Index block = blockRows(m);
    const Index blocks = (V + block - 1) / block;
    const int threads =
        std::max(1, std::min<int>(threadsFor(static_cast<double>(V) * d * m), static_cast<int>(blocks)));
    // Each thread's heaps per column, merged at the end: the k best overall are among them.
    std::vector<std::vector<std::vector<ScoredId>>> heaps(
        static_cast<std::size_t>(threads), std::vector<std::vector<ScoredId>>(static_cast<std::size_t>(m)));
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        auto& mine = heaps[static_cast<std::size_t>(threadNumber())];
        MatrixF product(block, m);  // block x m
        // Per column the worst value kept once k are: most of the vocabulary falls below it in one
        // comparison (a tie goes on to keep(), which compares the ids).
        std::vector<float> floor(static_cast<std::size_t>(m), -std::numeric_limits<float>::infinity());
#pragma omp for schedule(dynamic, 1)
        for (Index b = 0; b < blocks; ++b) {
            const Index first = b * block, rows = std::min(block, V - first);
            plainProduct(table.data() + first * table.outerStride(), rows, d, table.outerStride(), directions.data(), m,
                         directions.outerStride(), product.data(), m, false);
            for (Index r = 0; r < rows; ++r) {
                const float* values = product.data() + r * m;
                for (std::size_t c = 0; c < floor.size(); ++c) {
                    if (values[c] < floor[c]) continue;
                    std::vector<ScoredId>& heap = mine[c];
                    keep(heap, {static_cast<std::int32_t>(first + r), values[c]}, kept);
                    if (heap.size() == kept) floor[c] = heap.front().value;
                }
            }
        }
    }
    std::vector<std::vector<ScoredId>> top(static_cast<std::size_t>(m));
    for (std::size_t c = 0; c < top.size(); ++c) {
        for (const auto& perThread : heaps) top[c].insert(top[c].end(), perThread[c].begin(), perThread[c].end());
        std::sort(top[c].begin(), top[c].end(), ranksBefore);
        top[c].resize(std::min(top[c].size(), kept));
    }
    return top;
}

namespace {

// sum += left^T right over `rows` vocabulary rows from `first` (both V x d, row-major); with
// `symmetric` (left == right) only the upper triangle, row-major (LAPACK's lower, column-major).
// One OpenBLAS call: ssyrk tied (half the multiply-adds), sgemm with the left transposed untied.
void addGramRowsDirectly(const MatrixF& left, const MatrixF& right, bool symmetric, Index first, Index rows,
                         MatrixF& sum)
{
#if defined(QKV_HAVE_OPENBLAS)
    const int d = static_cast<int>(left.cols()), k = static_cast<int>(rows);
    const int ld = static_cast<int>(left.outerStride());
    if (symmetric)
        cblas_ssyrk(CblasColMajor, CblasLower, CblasNoTrans, d, k, 1.0f, left.data() + first * ld, ld, 1.0f, sum.data(),
                    d);
    else
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, d, d, k, 1.0f, left.data() + first * ld, ld,
                    right.data() + first * right.outerStride(), static_cast<int>(right.outerStride()), 1.0f, sum.data(),
                    d);
#else
    (void)left, (void)right, (void)symmetric, (void)first, (void)rows, (void)sum;
#endif
}

// The same through plainProduct (the project's route or Eigen's): the block of left transposed
// (block rows at most), then panels of the output's rows; symmetric, each panel's columns from
// its diagonal on (the upper triangle and the diagonal panels, ~(P + 1) / 2P of the work).
void addGramRowsInPanels(const MatrixF& left, const MatrixF& right, bool symmetric, Index first, Index rows,
                         MatrixF& transposed, MatrixF& sum)
{
    const Index d = left.cols(), block = transposed.cols();
    constexpr Index panels = 8;
    const Index panel = std::max<Index>(1, (d + panels - 1) / panels);
    transposed.leftCols(rows) = left.middleRows(first, rows).transpose();
    const float* rightRows = right.data() + first * right.outerStride();
    for (Index p = 0; p < d; p += panel) {
        const Index height = std::min(panel, d - p);
        const Index from = symmetric ? p : 0;
        plainProduct(transposed.data() + p * block, height, rows, block, rightRows + from, d - from,
                     right.outerStride(), sum.data() + p * d + from, d, true);
    }
}

}  // namespace

Expected<MatrixF> vocabularyGram(const MatrixF& left, const MatrixF& right, bool symmetric,
                                 const std::atomic<bool>* stop, bool panels)
{
    const Index V = left.rows(), d = left.cols();
    const bool direct = openBlasDirectly() && !panels;
    // Vocabulary rows per step: a stop is seen between steps. One OpenBLAS call takes many (ssyrk
    // on 151,936 x 1,024 ran at 82-90 GFLOP/s here, eight panels of 2,048-row blocks at 42-48).
    const Index block = direct ? 16384 : 2048;
    const Index blocks = (V + block - 1) / block;
    const double work = static_cast<double>(V) * d * d * (symmetric ? 0.5 : 1.0);
    const int threads = std::max(1, std::min<int>(threadsFor(work), static_cast<int>(blocks)));
    std::vector<MatrixF> sums(static_cast<std::size_t>(threads), MatrixF::Zero(d, d));
    std::atomic<bool> stopped{false};
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        MatrixF& sum = sums[static_cast<std::size_t>(threadNumber())];
        MatrixF transposed(direct ? 0 : d, direct ? 0 : block);  // left's block transposed, d x block
#pragma omp for schedule(dynamic, 1)
        for (Index b = 0; b < blocks; ++b) {
            if (stopped.load(std::memory_order_relaxed) || (stop && stop->load(std::memory_order_relaxed))) {
                stopped = true;
                continue;
            }
            const Index first = b * block, rows = std::min(block, V - first);
            if (direct)
                addGramRowsDirectly(left, right, symmetric, first, rows, sum);
            else
                addGramRowsInPanels(left, right, symmetric, first, rows, transposed, sum);
        }
    }
    if (stopped) return Error{"stopped"};
    MatrixF gram = std::move(sums.front());  // d x d
    for (std::size_t t = 1; t < sums.size(); ++t) gram += sums[t];
    if (symmetric)
        for (Index i = 0; i < d; ++i)
            for (Index j = 0; j < i; ++j) gram(i, j) = gram(j, i);  // below the diagonal: the mirror
    return gram;
}

}  // namespace qkv::circuits
