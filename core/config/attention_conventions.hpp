#pragma once
// How one attention layer of a model departs from the paper's equation (1) in its positions and
// scores: the six values a family's config.json sets per layer (core/families/attention_rules.hpp
// says which) and that travel whole, as one value, from a loaded layer to Config, to the options a
// forward pass reads (core/attention/multi_head_attention.hpp) and back to a layer's Config.
//
//   window   causal layers only: query t sees keys t - W + 1 .. t (Mistral, Gemma's local layers)
//   rotary   theta_j = base^(-2j / d_r) (RoFormer, Su et al. 2021, equation (15)), stretched by a
//            long-context model's rope_scaling; only the first d_r = rotaryDims of a head turn
//   scores   scaled by 1/sqrt(scoreDim) instead of 1/sqrt(d_k), then soft-capped to
//            c tanh(s / c) before the softmax (Gemma 2)

#include "core/common/matrix.hpp"
#include "core/config/rope_scaling.hpp"

namespace qkv {

struct AttentionConventions {
    Index slidingWindow = 0;    // causal layers only: the W latest keys are seen; 0: every earlier key
    double ropeBase = 10000.0;  // rotary only: theta_j = base^(-2j / d_k)
    RopeScaling ropeScaling;    // rotary only: a long-context model's stretched theta_j (rope_scaling.hpp)
    Index rotaryDims = 0;       // rotary only: the first rotaryDims of each head turn (GPT-NeoX, Phi); 0: all d_k
    Index scoreDim = 0;         // scores scaled by 1/sqrt(scoreDim), Gemma's query_pre_attn_scalar; 0: d_k
    double scoreSoftCap = 0.0;  // the softmax reads c tanh(s / c) of each scaled score s (Gemma 2); 0: none

    // What of these a layer uses: the window only when it is causal, the rotary values only when
    // it rotates (the others keep their defaults, so a layer's Config says nothing it does not use).
    AttentionConventions forLayer(bool causal, bool rotary) const
    {
        AttentionConventions used = *this;
        const AttentionConventions none;
        if (!causal) used.slidingWindow = none.slidingWindow;
        if (!rotary) {
            used.ropeBase = none.ropeBase;
            used.ropeScaling = none.ropeScaling;
            used.rotaryDims = none.rotaryDims;
        }
        return used;
    }

    bool operator==(const AttentionConventions&) const = default;
};

}  // namespace qkv
