#include "core/config/rope_scaling.hpp"

#include <cmath>
#include <sstream>

namespace qkv {

std::string ropeScalingProblem(const RopeScaling& s)
{
    if (s.kind == RopeScalingKind::None) return {};
    const auto text = [](double v) {
        std::ostringstream out;
        out << v;
        return out.str();
    };
    if (!std::isfinite(s.factor) || s.factor < 1.0)
        return "rope_scaling's factor is " + text(s.factor) + "; it must be a number of at least 1";
    if (s.kind != RopeScalingKind::Llama3) return {};
    if (!std::isfinite(s.lowFreqFactor) || !std::isfinite(s.highFreqFactor) || s.lowFreqFactor <= 0 ||
        s.highFreqFactor <= s.lowFreqFactor)
        return "rope_scaling's low_freq_factor (" + text(s.lowFreqFactor) + ") and high_freq_factor (" +
               text(s.highFreqFactor) + ") must satisfy 0 < low_freq_factor < high_freq_factor";
    if (!std::isfinite(s.originalMaxPositions) || s.originalMaxPositions < 1)
        return "rope_scaling's original_max_position_embeddings is " + text(s.originalMaxPositions) +
               "; it must be at least 1";
    return {};
}

}  // namespace qkv
