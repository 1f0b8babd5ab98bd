#include "core/analysis/row_strip.hpp"

#include <numeric>

#include "core/ops/block_pooling.hpp"

namespace qkv {

std::vector<KeyWeight> topKeys(std::span<const float> row, int count)
{
    std::vector<Index> order(row.size());
    std::iota(order.begin(), order.end(), Index{0});
    const auto shown = std::min<std::size_t>(static_cast<std::size_t>(std::max(count, 0)), order.size());
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(shown), order.end(),
                      [&](Index a, Index b) {
                          const float wa = row[static_cast<std::size_t>(a)], wb = row[static_cast<std::size_t>(b)];
                          return wa != wb ? wa > wb : a < b;
                      });
    std::vector<KeyWeight> top;
    for (std::size_t i = 0; i < shown; ++i) top.push_back({order[i], row[static_cast<std::size_t>(order[i])]});
    return top;
}

PixelMaxima maxPerPixel(std::span<const float> row, Index pixels)
{
    const auto n = static_cast<Index>(row.size());
    PixelMaxima out;
    if (n == 0) return out;
    out.edges = blockEdges(n, pixelBins(n, pixels));
    const MatrixF maxima = blockMaxima(Eigen::Map<const MatrixF>(row.data(), 1, n), {0, 1}, out.edges);  // 1 x bins
    out.maxima.assign(maxima.data(), maxima.data() + maxima.size());
    return out;
}

std::pair<Index, Index> keysOfPixel(Index keyCount, Index pixels, Index bin)
{
    const Index bins = pixelBins(keyCount, pixels);
    bin = std::clamp<Index>(bin, 0, bins - 1);
    return {blockStart(bin, bins, keyCount), blockStart(bin + 1, bins, keyCount)};
}

Index pixelBins(Index keyCount, Index pixels) { return blockCount(keyCount, pixels); }

Index largestKey(std::span<const float> row, Index first, Index end)
{
    const auto begin = row.begin() + first;
    return first + (std::max_element(begin, row.begin() + end) - begin);
}

std::vector<std::pair<Index, Index>> hiddenKeyRuns(const std::vector<bool>& visible)
{
    std::vector<std::pair<Index, Index>> runs;
    const auto n = static_cast<Index>(visible.size());
    for (Index k = 0; k < n;) {
        if (visible[static_cast<std::size_t>(k)]) {
            ++k;
            continue;
        }
        Index end = k;
        while (end < n && !visible[static_cast<std::size_t>(end)]) ++end;
        runs.emplace_back(k, end);
        k = end;
    }
    return runs;
}

}  // namespace qkv
