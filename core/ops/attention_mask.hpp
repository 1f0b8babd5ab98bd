#pragma once
// Which (query, key) pairs may attend: the visible-key range of a query (causal, sliding window)
// and key padding. Masked pairs get score -inf before the softmax (paper section 3.2.3: "masking
// out (setting to -inf) all values in the input of the softmax which correspond to illegal
// connections"). Every reader of the range (the softmaxes, the streamed maps, the statistics of
// a row) asks these two functions.

#include <vector>

#include "core/common/matrix.hpp"

namespace qkv {

// The first key `query` sees: 0, or with a causal sliding window of `window` keys (Mistral;
// Hugging Face's kv > q - window) query - window + 1. window 0: no window.
constexpr Index visibleKeysBegin(bool causal, Index window, Index query)
{
    return causal && window > 0 && query >= window ? query - window + 1 : 0;
}

// One past the last key `query` sees among keyCount: query + 1 when causal (decoder masked
// self-attention, query t sees keys <= t), else every key.
constexpr Index visibleKeysEnd(bool causal, Index query, Index keyCount)
{
    return causal && query + 1 < keyCount ? query + 1 : keyCount;
}

struct AttentionMask {
    // Decoder masked self-attention: query t sees keys 0..t only.
    bool causal = false;
    // Sliding-window attention (Mistral), with causal: query t sees only the `window` latest
    // keys, t - window + 1 .. t (Hugging Face's kv > q - window). 0: every earlier key.
    Index window = 0;
    // Key padding: keyPadding[j] == true hides key j from every query. Empty = none hidden.
    std::vector<bool> keyPadding;

    // Keys [visibleBegin, visibleEnd) may be seen by `query` before key padding: all n_k keys,
    // or 0..query when causal, or its window's.
    Index visibleBegin(Index query) const { return visibleKeysBegin(causal, window, query); }
    Index visibleEnd(Index query, Index keyCount) const { return visibleKeysEnd(causal, query, keyCount); }

    bool masked(Index query, Index key) const
    {
        if (causal && (key > query || key < visibleBegin(query))) return true;
        return !keyPadding.empty() && keyPadding[static_cast<std::size_t>(key)];
    }

    // Sets every masked entry of a query-by-key matrix (n_q x n_k) to `fill`: -inf gives the
    // scores after the mask, NaN marks "not computed" for drawing.
    void fillMasked(MatrixF& matrix, float fill) const
    {
        for (Index q = 0; q < matrix.rows(); ++q)
            for (Index k = 0; k < matrix.cols(); ++k)
                if (masked(q, k)) matrix(q, k) = fill;
    }
};

}  // namespace qkv
