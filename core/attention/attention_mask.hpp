#pragma once
// Which (query, key) pairs may attend. Masked pairs get score -inf before the softmax.

#include <vector>

#include "core/common/matrix.hpp"

namespace qkv {

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
    Index visibleBegin(Index query) const { return causal && window > 0 && query >= window ? query - window + 1 : 0; }
    Index visibleEnd(Index query, Index keyCount) const
    {
        return causal && query + 1 < keyCount ? query + 1 : keyCount;
    }

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
