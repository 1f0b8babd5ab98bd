// The tiled transpose gives exactly Eigen's transpose, for shapes around and across its tiles.

#include <gtest/gtest.h>

#include "core/common/random.hpp"
#include "core/common/transpose.hpp"

namespace qkv {
namespace {

TEST(Transposed, EqualsEigensTransposeForEveryShapeAroundItsTiles)
{
    SplitMix64 random(3);
    for (const Index rows : {0, 1, 3, 63, 64, 65, 130})
        for (const Index cols : {0, 1, 5, 64, 127, 200}) {
            MatrixF m(rows, cols);
            for (Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<float>(random.uniform(-1, 1));
            const MatrixF t = transposed(m);
            ASSERT_EQ(t.rows(), cols);
            ASSERT_EQ(t.cols(), rows);
            EXPECT_TRUE(t == MatrixF(m.transpose())) << rows << " x " << cols;
        }
}

}  // namespace
}  // namespace qkv
