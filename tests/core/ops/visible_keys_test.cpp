// The visible-key range on its own: [visibleKeysBegin, visibleKeysEnd) is exactly the keys that
// AttentionMask::masked lets through (without padding), for causal, windowed and plain masks.

#include <gtest/gtest.h>

#include "core/ops/attention_mask.hpp"

namespace qkv {
namespace {

TEST(VisibleKeys, RangeIsTheUnmaskedKeys)
{
    for (const bool causal : {false, true})
        for (const Index window : {0, 1, 3, 20}) {
            AttentionMask mask;
            mask.causal = causal;
            mask.window = window;
            const Index n_k = 9;
            for (Index q = 0; q < 12; ++q) {  // queries past the keys too (cross lengths)
                const Index begin = mask.visibleBegin(q), end = mask.visibleEnd(q, n_k);
                for (Index k = 0; k < n_k; ++k)
                    EXPECT_EQ(!mask.masked(q, k), k >= begin && k < end)
                        << "causal " << causal << " window " << window << " q " << q << " k " << k;
            }
        }
}

TEST(VisibleKeys, CausalWindowSeesItsLatestKeys)
{
    EXPECT_EQ(visibleKeysBegin(true, 4, 10), 7);
    EXPECT_EQ(visibleKeysEnd(true, 10, 100), 11);
    EXPECT_EQ(visibleKeysBegin(true, 4, 3), 0);
    EXPECT_EQ(visibleKeysBegin(false, 4, 10), 0) << "a window without causal masks nothing";
    EXPECT_EQ(visibleKeysEnd(false, 10, 100), 100);
    EXPECT_EQ(visibleKeysEnd(true, 200, 100), 100);
}

}  // namespace
}  // namespace qkv
