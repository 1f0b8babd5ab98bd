#pragma once
// A matrix's shape as messages print it.

#include <string>

#include "core/common/matrix.hpp"

namespace qkv {

// "3 x 4": rows x columns.
std::string shapeText(Index rows, Index cols);

// The same for a matrix.
template <class Derived>
std::string shapeText(const Eigen::EigenBase<Derived>& matrix)
{
    return shapeText(matrix.rows(), matrix.cols());
}

}  // namespace qkv
