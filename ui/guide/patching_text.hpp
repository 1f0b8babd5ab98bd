#pragma once
// What the guide's patching step measured, in words: one sentence per grid of the Patching page
// (the heads that carry the answer, where it enters the residual stream and reaches the last
// position), from core's numbers as the page shows them (ui/patching/patching_data.hpp).

#include <QString>

namespace qkv::ui {

class MainWindow;

// Empty while the page has no grids; the page's refusal when it has one.
QString patchingText(const MainWindow& window);

}  // namespace qkv::ui
