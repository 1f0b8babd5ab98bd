#pragma once
// The two ways a head forms its scores, named and coloured the same in every part of the Train
// tab (the colours are the Costs tab's: blue for the thin factors, red for a full W_i).

#include <QColor>
#include <QString>

#include "core/trainable/model_spec.hpp"

namespace qkv::ui {

// "factored" or "full W_i".
QString variantName(qkv::ScoreForm variant);
// "Factored W_i^Q, W_i^K" or "Full W_i": a title over the variant's pictures.
QString variantTitle(qkv::ScoreForm variant);
QColor variantColor(qkv::ScoreForm variant);

}  // namespace qkv::ui
