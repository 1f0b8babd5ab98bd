#pragma once
// An exact region of one head of a long (streamed) layer, as numbers: the weights a_qj (paper
// equation (1)) of queries [A, B) x keys [C, D), recomputed from Q_i and K_j (headAttentionRegion:
// ~20-40 ms for 1,024 x 1,024, ~0.3 s for 4,096 x 4,096), which positions a region covers as the
// wheel zooms it, and its blocks when it has more positions than the screen has pixels
// (ui/heads/exact_region.hpp paints them).
//
// The region is computed whole and kept at full resolution, so a hover reads the exact weight of
// the position under the mouse. Where the region has more positions than pixels, it is reduced
// by BLOCK MAXIMUM, one block per pixel (core/ops/block_pooling.hpp): a sharp cell stays visible,
// where an area filter would average it away. Blocks every cell of which the mask hides are NaN.
// Legend: n_q queries, n_k keys; positions from 0.

#include <vector>

#include "core/common/expected.hpp"
#include "core/common/matrix.hpp"
#include "core/ops/block_pooling.hpp"
#include "core/result/result.hpp"

namespace qkv {

// The sides the wheel halves and doubles between (positions), before n_q and n_k clamp them.
inline constexpr Index kMinRegionSide = 32;
inline constexpr Index kMaxRegionSide = 4096;

// Queries [firstRow, endRow) x keys [firstColumn, endColumn).
struct RegionBounds {
    Index firstRow = 0, endRow = 0, firstColumn = 0, endColumn = 0;

    Index rows() const { return endRow - firstRow; }
    Index columns() const { return endColumn - firstColumn; }
    bool empty() const { return rows() <= 0 || columns() <= 0; }
    bool contains(Index query, Index key) const
    {
        return query >= firstRow && query < endRow && key >= firstColumn && key < endColumn;
    }
    bool operator==(const RegionBounds&) const = default;
};

// `side` x `side` positions (each side at most n_q, n_k) centred on (query, key) as far as the
// map's edges allow.
RegionBounds regionAround(Index query, Index key, Index side, Index queryCount, Index keyCount);
// `side` halved (zoomIn) or doubled, within [kMinRegionSide, kMaxRegionSide] (a side already
// outside them only moves towards them).
Index zoomedSide(Index side, bool zoomIn);

struct ExactRegion {
    int head = 0;  // from 0
    RegionBounds bounds;
    MatrixF values;  // rows x columns: a_qj exact, 0 where masked (headAttentionRegion's)
    // What is drawn: blocks of the region's positions (edges local to the region), each the
    // largest weight of its cells (masked ones are 0), NaN where all are masked (drawn hatched).
    std::vector<Index> rowEdges, columnEdges;
    MatrixF drawn;
    float largest = 0;  // over the region: the colours span 0 .. largest

    bool reduced() const { return drawn.rows() < values.rows() || drawn.cols() < values.cols(); }
};

// The region of head `head` (runs on a worker thread), drawn on at most pixelRows x pixelColumns
// pixels. Errors: headAttentionRegion's (a head or region outside the layer, a non-finite score).
Expected<ExactRegion> computeExactRegion(const Result& result, int head, const RegionBounds& bounds, Index pixelRows,
                                         Index pixelColumns);

}  // namespace qkv
