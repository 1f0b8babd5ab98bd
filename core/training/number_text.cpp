#include "core/training/number_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace qkv {

std::string withThousandsSeparators(long long value)
{
    // The magnitude as unsigned, so that the most negative value has one too.
    unsigned long long magnitude = value < 0 ? 0ull - static_cast<unsigned long long>(value)
                                             : static_cast<unsigned long long>(value);
    const std::string digits = std::to_string(magnitude);
    std::string text = value < 0 ? "-" : "";
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) text += ',';
        text += digits[i];
    }
    return text;
}

std::string percentText(double fraction)
{
    if (!std::isfinite(fraction)) return "n/a";
    // Rounded to one decimal, except that only a perfect score reads 100.0%.
    double percent = 100.0 * fraction;
    if (fraction < 1.0) percent = std::min(percent, 99.94);
    char text[32];
    std::snprintf(text, sizeof text, "%.1f%%", percent);
    return text;
}

}  // namespace qkv
