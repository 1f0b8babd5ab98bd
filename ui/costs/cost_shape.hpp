#pragma once
// What the Costs tab's charts and table are drawn for: the current d_model, h, key/value
// heads g, sentence lengths and biases. Every number is then core's cost model's.

#include "core/cost/cost_model.hpp"

namespace qkv::ui {

struct CostShape {
    Count d_model = 0, heads = 0;  // h
    Count keyValueHeads = 0;       // g, a divisor of h
    Count headWidth = 0;           // d_k when set (a model's head_dim); 0: d_model / h
    Count n_q = 0, n_k = 0;
    bool withBias = false;

    bool valid() const { return d_model >= 1 && heads >= 1; }
    Count d_k() const { return headWidth > 0 ? headWidth : d_model / heads; }
    // The layer of this d_model and h laid out as `layout`, with g key/value heads.
    LayerShape layer(HeadLayout layout, Count g, bool bias) const
    {
        LayerShape s;
        s.d_model = d_model;
        s.heads = heads;
        s.keyValueHeads = g;
        s.withBias = bias;
        s.layout = layout;
        s.headWidth = headWidth;
        return s;
    }
};

}  // namespace qkv::ui
