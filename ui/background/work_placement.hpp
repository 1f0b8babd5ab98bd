#pragma once
// Where a piece of work runs: inline on the GUI thread while it is small enough not to be felt,
// else on the pool (through a LatestTask). One limit for the whole app, in one unit:
// multiply-adds. Work that is not arithmetic counts as the multiply-adds it costs (colouring a
// matrix entry for a picture, a logarithm for an entropy: see kMultiplyAddsPerEntry).

#include "ui/background/latest_task.hpp"

namespace qkv::ui {

// About 10 ms on one core of a laptop: a slider drag stays smooth below it, and above it the
// result arrives a moment later while the GUI thread keeps painting.
inline constexpr double kGuiThreadWorkLimit = 2.5e7;  // multiply-adds

// What turning one stored number into a pixel, or one probability into an entropy term, costs:
// a normalisation, a table lookup or a logarithm, and a store.
inline constexpr double kMultiplyAddsPerEntry = 12.5;

// InlineWhenIdle up to kGuiThreadWorkLimit, InBackground above.
LatestTaskBase::Run placementFor(double multiplyAdds);

}  // namespace qkv::ui
