#include "core/circuits/vocabulary_products.hpp"

#include <algorithm>

#include "core/common/blas_products.hpp"
#include "core/common/parallelism.hpp"

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

// Rows of the table per block: the block's product (rows x m floats) stays near 8 MB.
Index blockRows(Index m) { return std::clamp<Index>((Index{2} << 20) / std::max<Index>(m, 1), 256, 8192); }

}  // namespace

void plainProduct(const float* x, Index rows, Index k, Index ldx, const float* w, Index n, Index ldw, float* out,
                  Index ldo, bool accumulate)
{
    if (rows == 0 || n == 0) return;
    if (blasKeepsRows() && k > 0) {
        blasProduct(x, rows, k, ldx, w, n, ldw, false, out, ldo, accumulate);
        return;
    }
    Eigen::Map<MatrixF, 0, Stride> product(out, rows, n, Stride(ldo));
    const ConstMap left(x, rows, k, Stride(ldx));
    const ConstMap right(w, k, n, Stride(ldw));
    if (accumulate) product.noalias() += left * right;
    else product.noalias() = left * right;
}

std::vector<std::vector<ScoredId>> topRowsPerColumn(const MatrixF& table, const MatrixF& directions, Index k)
{
    const Index V = table.rows(), d = table.cols(), m = directions.cols();
    const auto kept = static_cast<std::size_t>(std::clamp<Index>(k, 0, V));
    const Index block = blockRows(m);
    const Index blocks = (V + block - 1) / block;
    const int threads = std::max(1, std::min<int>(threadsFor(static_cast<double>(V) * d * m), static_cast<int>(blocks)));
    // Each thread's heaps per column, merged at the end: the k best overall are among them.
    std::vector<std::vector<std::vector<ScoredId>>> heaps(static_cast<std::size_t>(threads),
                                                          std::vector<std::vector<ScoredId>>(static_cast<std::size_t>(m)));
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        auto& mine = heaps[static_cast<std::size_t>(threadNumber())];
        MatrixF product(block, m);  // block x m
#pragma omp for schedule(dynamic, 1)
        for (Index b = 0; b < blocks; ++b) {
            const Index first = b * block, rows = std::min(block, V - first);
            plainProduct(table.data() + first * table.outerStride(), rows, d, table.outerStride(), directions.data(),
                         m, directions.outerStride(), product.data(), m, false);
            for (Index r = 0; r < rows; ++r)
                for (Index c = 0; c < m; ++c)
                    keep(mine[static_cast<std::size_t>(c)], {static_cast<std::int32_t>(first + r), product(r, c)}, kept);
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

Expected<MatrixF> vocabularyGram(const MatrixF& left, const MatrixF& right, bool symmetric, const std::atomic<bool>* stop)
{
    const Index V = left.rows(), d = left.cols();
    // Panels of the output's rows: the symmetric case computes panel p's columns from p's first
    // column on (the upper triangle and the diagonal panels, ~(P + 1) / 2P of the work).
    constexpr Index panels = 8;
    const Index panel = std::max<Index>(1, (d + panels - 1) / panels);
    constexpr Index block = 2048;  // vocabulary rows per step
    const Index blocks = (V + block - 1) / block;
    const double work = static_cast<double>(V) * d * d * (symmetric ? 0.5 : 1.0);
    const int threads = std::max(1, std::min<int>(threadsFor(work), static_cast<int>(blocks)));
    std::vector<MatrixF> sums(static_cast<std::size_t>(threads), MatrixF::Zero(d, d));
    std::atomic<bool> stopped{false};
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        MatrixF& sum = sums[static_cast<std::size_t>(threadNumber())];
        MatrixF transposed(d, block);  // left's block transposed, d x block
#pragma omp for schedule(dynamic, 1)
        for (Index b = 0; b < blocks; ++b) {
            if (stopped.load(std::memory_order_relaxed) || (stop && stop->load(std::memory_order_relaxed))) {
                stopped = true;
                continue;
            }
            const Index first = b * block, rows = std::min(block, V - first);
            transposed.leftCols(rows) = left.middleRows(first, rows).transpose();
            const float* rightRows = right.data() + first * right.outerStride();
            for (Index p = 0; p < d; p += panel) {
                const Index height = std::min(panel, d - p);
                const Index from = symmetric ? p : 0;  // the symmetric case: columns from the panel's diagonal on
                plainProduct(transposed.data() + p * block, height, rows, block, rightRows + from, d - from,
                             right.outerStride(), sum.data() + p * d + from, d, true);
            }
        }
    }
    if (stopped) return Error{"stopped"};
    MatrixF gram = std::move(sums.front());  // d x d
    for (std::size_t t = 1; t < sums.size(); ++t) gram += sums[t];
    if (symmetric)
        for (Index i = 0; i < d; ++i)
            for (Index j = 0; j < i; ++j) gram(i, j) = gram(j, i);  // below the diagonal panels: the mirror
    return gram;
}

}  // namespace qkv::circuits
