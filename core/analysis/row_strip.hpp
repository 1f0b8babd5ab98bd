#pragma once
// One query's whole row of weights a_qj over all n_k keys (paper equation (1)), or a span's mean
// row, seen on a strip narrower than n_k keys (32,768 keys on ~900 pixels): which keys each pixel
// shows and the LARGEST weight among them (core/ops/block_pooling.hpp's block maxima, one block
// per pixel), so one sharp key stays as tall as it is, where a mean would flatten it by the ~36
// keys it shares a pixel with; the top keys; the runs of keys the mask hides.
// ui/heads/long_row_strip.hpp paints the strip. Legend: n_k keys; positions from 0.

#include <algorithm>
#include <span>
#include <utility>
#include <vector>

#include "core/common/matrix.hpp"

namespace qkv {

inline constexpr int kTopKeys = 5;

struct KeyWeight {
    Index key = 0;
    float weight = 0;
};

// The `count` largest weights of `row`, largest first; of equal weights the lower position first.
std::vector<KeyWeight> topKeys(std::span<const float> row, int count);

// `row` seen through `pixels` pixels: blocks as equal as the sizes allow (blockEdges), each the
// largest weight of its keys; one bin per key when there are at least as many pixels as keys.
struct PixelMaxima {
    std::vector<Index> edges;    // bins + 1: bin b covers keys [edges[b], edges[b + 1])
    std::vector<float> maxima;   // bins
};
PixelMaxima maxPerPixel(std::span<const float> row, Index pixels);

// Keys [first, end): those drawn in pixel `bin` when `keyCount` keys are reduced to `pixels`
// pixels (maxPerPixel's bins).
std::pair<Index, Index> keysOfPixel(Index keyCount, Index pixels, Index bin);
// How many bins maxPerPixel makes of `keyCount` keys on `pixels` pixels (blockCount).
Index pixelBins(Index keyCount, Index pixels);

// The key of the largest weight among keys [first, end) of `row` (the lowest of equals).
Index largestKey(std::span<const float> row, Index first, Index end);

// The runs [first, end) of keys whose `visible` flag is false, in order.
std::vector<std::pair<Index, Index>> hiddenKeyRuns(const std::vector<bool>& visible);

}  // namespace qkv
