#pragma once
// How well one colour reads on another: the WCAG 2 contrast ratio (relative luminance of the
// sRGB colours, (L1 + 0.05) / (L2 + 0.05), 1 to 21). Text wants 4.5 or more (7 for WCAG AAA).

#include <QColor>

namespace qkv::ui {

double contrastRatio(const QColor& first, const QColor& second);

// Black or white, whichever reads better on `background` (a mid blue such as #4393c3 takes
// black: 6:1 against white's 3:1).
QColor readableOn(const QColor& background);

}  // namespace qkv::ui
