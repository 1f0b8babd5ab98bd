#pragma once
// The Train tab's progress in words: steps, pace, time so far and left, and each variant's
// latest numbers.

#include <QString>

#include "ui/train/training_snapshot.hpp"

namespace qkv::ui {

// "42 s", "3 min 05 s", "1 h 02 min".
QString durationText(double seconds);
// "85 steps/s · 9 s left · 14 s so far", "Paused at step 1,234 · 14 s so far",
// "Done: 2,000 steps in 23 s".
QString progressText(const TrainingSnapshot& snapshot);
// One line per variant: "factored: loss 0.012 · held-out 99.6% of tokens, 98.0% of sequences".
QString variantsText(const TrainingSnapshot& snapshot);

}  // namespace qkv::ui
