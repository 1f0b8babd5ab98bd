#pragma once
// The dense decompositions of double matrices that core and its tests use (the SVD of the factored
// W_i's middle and of fitted positional bases, thin QRs, the eigenvectors of the Q/K projection),
// compiled once, in decompositions.cpp. Eigen's BDCSVD alone costs each translation unit that
// instantiates it about 30 s of compile time (two minutes under the sanitizers); a file that
// includes this header instead of <Eigen/SVD> links the one copy.

#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <Eigen/SVD>

#include "core/common/matrix.hpp"

extern template class Eigen::BDCSVD<Eigen::MatrixXd>;
extern template class Eigen::JacobiSVD<Eigen::MatrixXd>;
extern template class Eigen::JacobiSVD<qkv::MatrixD>;
extern template class Eigen::HouseholderQR<Eigen::MatrixXd>;
extern template class Eigen::HouseholderQR<qkv::MatrixD>;
extern template class Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>;
