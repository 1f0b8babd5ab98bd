#include "core/ops/swiglu.hpp"

#include <cassert>

namespace qkv {

template <typename Scalar>
void siluForward(MatrixView<Scalar> hidden, ConstMatrixView<Scalar> a)
{
    assert(hidden.rows() == a.rows() && hidden.cols() == a.cols());
    hidden = (a.array() / (Scalar(1) + (-a.array()).exp())).matrix();
}

template <typename Scalar>
void swigluForward(MatrixView<Scalar> hidden, ConstMatrixView<Scalar> gate, ConstMatrixView<Scalar> up)
{
    assert(hidden.rows() == gate.rows() && hidden.cols() == gate.cols());
    assert(up.rows() == gate.rows() && up.cols() == gate.cols());
    hidden = (gate.array() / (Scalar(1) + (-gate.array()).exp()) * up.array()).matrix();
}

template void siluForward<float>(MatrixView<float>, ConstMatrixView<float>);
template void siluForward<double>(MatrixView<double>, ConstMatrixView<double>);
template void swigluForward<float>(MatrixView<float>, ConstMatrixView<float>, ConstMatrixView<float>);
template void swigluForward<double>(MatrixView<double>, ConstMatrixView<double>, ConstMatrixView<double>);

}  // namespace qkv
