#pragma once
// The Predict tab's patching and logit lens figures: the heads grid and the residual grid of
// the last patching the page showed (a corrupted prompt is typed only there, so `qkv-studio
// figure` says so), and the logit lens grid of the sentence, which any whole-model run can draw.

#include <vector>

#include "ui/figures/figure.hpp"

namespace qkv::ui {

std::vector<Figure> patchingFigures();

}  // namespace qkv::ui
