#include "core/attention/projections.hpp"

#include <algorithm>
#include <vector>

#include <Eigen/Core>

#include "core/common/parallelism.hpp"
#include "core/common/row_products.hpp"

namespace qkv {

namespace {

// Rows [firstRow, firstRow + rows) x columns [firstColumn, firstColumn + columns) of one
// product's output.
struct OutputBlock {
    const Projection* projection;
    Index firstRow;
    Index rows;
    Index firstColumn;
    Index columns;
};

// Columns of a column block: a whole number of the packed kernel's widest tile (32), and at least
// kBlasMinimumWidth, below which a product leaves the packed kernel for Eigen.
constexpr Index kColumnBlockMultiple = kBlasMinimumWidth;

// Whether `p` is cut along the weight's columns: where the packed kernel runs it, whose every
// element is its own chain (packed_products.hpp), so a column block has the whole product's bits,
// and each thread then copies only its own columns of the weight and multiplies every row (two
// threads on BERT-base's 128 rows: 1.09x faster than each packing the whole weight for 64 rows).
// Other kernels are cut into row blocks, the cut their row promise covers. Every thread's block
// then holds at least two units of kColumnBlockMultiple columns, only the last unit partial, so no
// block is narrow enough to take another kernel (which would change its bits).
bool cutAlongColumns(const Projection& p, int threads)
{
    const ProductKernel kernel = productKernel(false);
    const bool packed = kernel == ProductKernel::PackedAvx2 || kernel == ProductKernel::PackedAvx512;
    return packed && p.weight.rows() >= kBlasMinimumWidth && p.weight.cols() >= 2 * threads * kColumnBlockMultiple;
}

}  // namespace

void projectTogether(std::initializer_list<Projection> projections)
{
    double work = 0.0;
    for (const Projection& p : projections) {
        p.output.resize(p.input.rows(), p.weight.cols());
        work += static_cast<double>(p.input.rows()) * static_cast<double>(p.input.cols()) *
                static_cast<double>(p.weight.cols());
    }
    const int threads = threadsFor(work);  // all products together
    if (threads <= 1) {
        for (const Projection& p : projections) multiplyRowsStable(p.input, p.weight, p.output);
        return;
    }

    // Each product in as many row (or column: cutAlongColumns) blocks as there are threads: static
    // scheduling then hands every thread one block of each product, so the threads share the work
    // evenly. (On Eigen, cutting along the weight's columns measured the same at (128, 512) and 3%
    // slower at (512, 768).)
    std::vector<OutputBlock> blocks;
    for (const Projection& p : projections) {
        const Index n = p.input.rows(), width = p.weight.cols();
        const bool columns = cutAlongColumns(p, threads);
        const Index units = columns ? (width + kColumnBlockMultiple - 1) / kColumnBlockMultiple : n;
        for (int part = 0; part < threads; ++part) {
            const Index first = units * part / threads;
            const Index last = units * (part + 1) / threads;
            if (last <= first) continue;
            if (!columns) {
                blocks.push_back({&p, first, last - first, 0, width});
                continue;
            }
            const Index firstColumn = first * kColumnBlockMultiple;
            const Index lastColumn = std::min(width, last * kColumnBlockMultiple);
            blocks.push_back({&p, 0, n, firstColumn, lastColumn - firstColumn});
        }
    }
    const auto count = static_cast<Index>(blocks.size());
    // Inside the team each product is serial (Eigen never starts threads: parallelism.hpp).
#pragma omp parallel for num_threads(threads) schedule(static)
    for (Index b = 0; b < count; ++b) {
        const OutputBlock& block = blocks[static_cast<std::size_t>(b)];
        const Projection& p = *block.projection;
        multiplyRowsStable(p.input.middleRows(block.firstRow, block.rows),
                           p.weight.middleCols(block.firstColumn, block.columns),
                           p.output.block(block.firstRow, block.firstColumn, block.rows, block.columns));
    }
}

}  // namespace qkv
