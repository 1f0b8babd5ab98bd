// The one instantiation of each decomposition declared in decompositions.hpp.
#include "core/common/decompositions.hpp"

template class Eigen::BDCSVD<Eigen::MatrixXd>;
template class Eigen::JacobiSVD<Eigen::MatrixXd>;
template class Eigen::JacobiSVD<qkv::MatrixD>;
template class Eigen::HouseholderQR<Eigen::MatrixXd>;
template class Eigen::HouseholderQR<qkv::MatrixD>;
template class Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>;
