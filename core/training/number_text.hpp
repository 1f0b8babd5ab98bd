#pragma once
// Numbers in the sentences people read: "2,000 steps", "held-out accuracy 99.6%".

#include <string>

namespace qkv {

// Digits in groups of three: 2000 -> "2,000", -1234567 -> "-1,234,567".
std::string withThousandsSeparators(long long value);
// A fraction as a percentage with one decimal: 0.9961 -> "99.6%"; 0.9996 -> "99.9%" (only a
// perfect score reads "100.0%").
std::string percentText(double fraction);

}  // namespace qkv
