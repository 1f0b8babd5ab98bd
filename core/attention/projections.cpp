#include "core/attention/projections.hpp"

#include <algorithm>
#include <vector>

#include <Eigen/Core>

#include "core/common/parallelism.hpp"
#include "core/common/row_products.hpp"

namespace qkv {

namespace {

// Rows [firstRow, firstRow + rows) of one product's output.
struct RowBlock {
    const Projection* projection;
    Index firstRow;
    Index rows;
};

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

    // Each product in as many row blocks as there are threads: static scheduling then hands
    // every thread one block of each product, so the threads share the work evenly. (Cutting
    // along the weight's columns instead measured the same at (128, 512) and 3% slower at
    // (512, 768).)
    std::vector<RowBlock> blocks;
    for (const Projection& p : projections) {
        const Index n = p.input.rows();
        for (int part = 0; part < threads; ++part) {
            const Index first = n * part / threads;
            const Index last = n * (part + 1) / threads;
            if (last > first) blocks.push_back({&p, first, last - first});
        }
    }
    const auto count = static_cast<Index>(blocks.size());
    // Inside the team each product is serial (Eigen never starts threads: parallelism.hpp).
#pragma omp parallel for num_threads(threads) schedule(static)
    for (Index b = 0; b < count; ++b) {
        const RowBlock& block = blocks[static_cast<std::size_t>(b)];
        const Projection& p = *block.projection;
        multiplyRowsStable(p.input.middleRows(block.firstRow, block.rows), p.weight,
                           p.output.middleRows(block.firstRow, block.rows));
    }
}

}  // namespace qkv
