#include "ui/document/compute_threads.hpp"

#include <Eigen/Core>

namespace qkv::ui {

void useOneEigenThreadPerComputation() { Eigen::setNbThreads(1); }

}  // namespace qkv::ui
