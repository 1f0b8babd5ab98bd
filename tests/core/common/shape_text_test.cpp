// shapeText (core/common/shape_text.hpp): a matrix's shape as every message prints it.

#include <gtest/gtest.h>

#include "core/common/shape_text.hpp"

namespace qkv {
namespace {

TEST(ShapeText, RowsByColumns)
{
    EXPECT_EQ(shapeText(3, 4), "3 x 4");
    EXPECT_EQ(shapeText(0, 768), "0 x 768");
    EXPECT_EQ(shapeText(MatrixF(2, 5)), "2 x 5");
    EXPECT_EQ(shapeText(RowVectorF(7)), "1 x 7");
}

}  // namespace
}  // namespace qkv
