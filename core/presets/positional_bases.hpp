#pragma once
// Subspaces of R^d_model defined by the sinusoidal positional encoding (paper section 3.5), the
// building blocks of the head presets (docs/presets.md). In double.
//
// X = s E + PE: a head that should read words must not read positions, and one that should
// read positions must see as little of the words as it can. The encodings of positions
// 0..T-1 fill only part of R^d_model: their low-frequency coordinates are numerically
// polynomials of low degree in the position, so many directions carry (almost) no position.

#include "core/common/matrix.hpp"

namespace qkv {

// Positions whose encodings the word-reading presets are blind to (sentences up to this long).
inline constexpr Index presetPositionSpan = 512;

// `columns` orthonormal directions (d_model x columns) along which PE(0..presetPositionSpan-1)
// varies least: the right singular vectors of the T x d_model encoding matrix with the
// smallest singular values, or its exact null space when d_model > T. Deterministic.
MatrixD positionFreeBasis(Index d_model, Index columns);

// The `columns` leading right singular vectors of PE(0..positions-1) (d_model x columns): the
// directions that carry the most position.
MatrixD positionBasis(Index d_model, Index positions, Index columns);

}  // namespace qkv
