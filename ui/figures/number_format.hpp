#pragma once
// Numbers as a person reads them on a figure ("2,048 or 22.5k, never 2.25e+04"): the one
// formatter of every tick, bar label, colour bar, tooltip and caption. Two precisions: a tick
// or a short label (readableNumber), and a value someone reads to compare or copy
// (preciseNumber). Neither ever writes an "e" exponent; both write − for minus.

#include <QString>

namespace qkv::ui {

// A tick or a short value: at most 3 significant digits, thousands grouped below 10,000
// ("2,048"), k / M / G above ("22.5k", "1.05M"), plain decimals down to 0.001 ("0.05"), and
// powers of ten for smaller or larger magnitudes ("10⁻¹⁶", "3.2×10⁻⁷"). Never an "e+04".
QString readableNumber(double value);

// A value to read closely (a tooltip, a caption, a formula): 4 significant digits in plain
// decimals from 0.001 to 1,000 ("0.3333", "−12.5"), whole numbers to 100,000 ("2048",
// "23620"), a power of ten outside ("1.234×10⁻⁷"), "−∞" for a masked score, "NaN".
QString preciseNumber(double value);

// Rounds up to 1, 2, 2.5 or 5 x 10^k, so a colour bar or an axis ends on a round number
// (1 for values <= 0).
double niceCeiling(double value);

// An exact whole number with its thousands grouped: 12582912 -> "12,582,912".
QString groupedInteger(long long value);

// 10^exponent with a superscript exponent: "10⁴", "10⁻¹⁶".
QString powerOfTen(int exponent);

}  // namespace qkv::ui
