#pragma once
// How a long-context model stretches its rotary frequencies theta_j (core/attention/rotary.hpp
// applies them): config.json's rope_scaling, as Hugging Face's modeling_rope_utils computes it,
// with the wavelength lambda_j = 2 pi / theta_j:
//   linear  theta_j / factor for every pair (position interpolation, Chen et al. 2023);
//   llama3  (LLaMA 3.1+) with L = original_max_position_embeddings:
//           lambda_j < L / high_freq_factor:  theta_j unchanged (fast pairs keep local order);
//           lambda_j > L / low_freq_factor:   theta_j / factor;
//           between: (1 - s) theta_j / factor + s theta_j,
//                    s = (L / lambda_j - low_freq_factor) / (high_freq_factor - low_freq_factor).

#include <array>
#include <string>

#include "core/common/enum_names.hpp"

namespace qkv {

enum class RopeScalingKind { None, Linear, Llama3 };

struct RopeScaling {
    RopeScalingKind kind = RopeScalingKind::None;
    double factor = 1.0;                 // linear, llama3
    double lowFreqFactor = 1.0;          // llama3
    double highFreqFactor = 4.0;         // llama3
    double originalMaxPositions = 8192;  // llama3: L, the context the model was first trained on

    bool operator==(const RopeScaling&) const = default;
};

// config.json's rope_type spellings (a session writes the same names).
inline constexpr std::array<EnumName<RopeScalingKind>, 3> kRopeScalingNames{{
    {RopeScalingKind::None, "default"},
    {RopeScalingKind::Linear, "linear"},
    {RopeScalingKind::Llama3, "llama3"},
}};
// Empty when the numbers can scale frequencies: factor finite and >= 1; for llama3 also
// 0 < low_freq_factor < high_freq_factor and L >= 1, each finite. Else what is wrong, by
// config.json's names.
std::string ropeScalingProblem(const RopeScaling& scaling);

}  // namespace qkv
