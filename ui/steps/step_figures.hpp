#pragma once
// The step view's figure in the registry (ui/figures/figure.hpp):
//   steps  one (head, query, key) cell from q and k to the weight and the head output: q, k,
//          q ⊙ k and the raw score q·k, the scaled score, the mask, the softmax row and each
//          value row's contribution (what the step view shows).

#include <vector>

#include "ui/figures/figure.hpp"

namespace qkv::ui {

std::vector<Figure> stepFigures();

}  // namespace qkv::ui
