#pragma once
// Gemma 2's soft cap (Gemma Team 2024, "Gemma 2", section 2: "logit soft-capping"):
//   s <- c tanh(s / c)
// keeps every score (attention, before the softmax) or logit (the readout) within (-c, c) and
// is close to the identity for |s| << c. c = 0 means no cap.
// Header only, one expression: each caller applies it over whole rows or blocks, so every entry
// takes the same (vectorised) path of Eigen's tanh wherever it lies.

#include <cmath>

#include <Eigen/Core>

namespace qkv {

// In place over an Eigen array expression (a block's or a row's .array()): s = c tanh(s / c).
template <class Scores>
void softCapInPlace(Scores&& scores, float c)
{
    scores = c * (scores / c).tanh();
}

// One score in double, as a view shows what the softmax reads: c tanh(s / c), or s when c <= 0.
inline double softCapped(double s, double c)
{
    return c > 0 ? c * std::tanh(s / c) : s;
}

}  // namespace qkv
