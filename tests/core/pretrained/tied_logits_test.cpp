// tiedLogitsRowsForward against the rows of tiedLogitsForward, bit for bit, at sizes where
// Eigen's product kernel blocks and splits the work (vocabulary tails, groups of 4 positions,
// positions taken alone) and on every thread count the machine allows.

#include <vector>

#include <gtest/gtest.h>

#include "core/common/parallelism.hpp"
#include "core/common/random.hpp"
#include "core/pretrained/block_steps.hpp"

namespace qkv {
namespace {

MatrixF randomMatrix(Index rows, Index cols, std::uint64_t seed)
{
    SplitMix64 random(seed);
    MatrixF m(rows, cols);
    for (Index i = 0; i < m.size(); ++i)
        m.data()[i] = static_cast<float>(static_cast<double>(random.next() % 20001) / 10000.0 - 1.0);
    return m;
}

TEST(TiedLogitsRows, ChosenRowsHaveTheBitsOfTheWholeProduct)
{
    for (const int threads : {1, 2}) {
        setComputeThreads(threads);
        for (const Index n : {2, 5, 13, 37}) {
            const MatrixF t = randomMatrix(n, 96, 1 + static_cast<std::uint64_t>(n));
            const MatrixF E = randomMatrix(3001, 96, 99);  // V mod 48 = 25: every tail kernel
            const MatrixF b = randomMatrix(1, 3001, 7);
            const MatrixF whole = tiedLogitsForward(t, E, b);
            std::vector<std::vector<Index>> sets = {{0}, {n - 1}, {n - 1, 0}};
            std::vector<Index> backwards;
            for (Index p = n - 1; p >= 0; --p) backwards.push_back(p);
            sets.push_back(backwards);
            for (Index p = 0; p < n; p += 3) sets.push_back({p, n - 1 - p == p ? (p + 1) % n : n - 1 - p});
            for (const std::vector<Index>& rows : sets) {
                const MatrixF chosen = tiedLogitsRowsForward(t, rows, E, b);
                ASSERT_EQ(chosen.rows(), static_cast<Index>(rows.size()));
                for (std::size_t r = 0; r < rows.size(); ++r)
                    EXPECT_TRUE(chosen.row(static_cast<Index>(r)) == whole.row(rows[r]))
                        << "n " << n << ", row " << rows[r] << ", threads " << threads;
            }
        }
    }
    setComputeThreads(0);
}

}  // namespace
}  // namespace qkv
