#pragma once
// Numbers as a person reads them on a figure (issue 9: "2,048 or 22.5k, never 2.25e+04"):
// one formatter for every tick, bar label and colour bar of every figure.

#include <QString>

namespace qkv::ui {

// A tick or a short value: at most 3 significant digits, thousands grouped below 10,000
// ("2,048"), k / M / G above ("22.5k", "1.05M"), plain decimals down to 0.001 ("0.05"), and
// powers of ten for smaller or larger magnitudes ("10⁻¹⁶", "3.2×10⁻⁷"). Never an "e+04".
QString readableNumber(double value);

// An exact whole number with its thousands grouped: 12582912 -> "12,582,912".
QString groupedInteger(long long value);

// 10^exponent with a superscript exponent: "10⁴", "10⁻¹⁶".
QString powerOfTen(int exponent);

}  // namespace qkv::ui
