#include "ui/document/compute_threads.hpp"

#include "core/common/parallelism.hpp"

namespace qkv::ui {

void useOneThreadPerComputation() { qkv::setComputeThreads(1); }

}  // namespace qkv::ui
