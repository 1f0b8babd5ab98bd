#include "core/common/parallelism.hpp"

#include <atomic>

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace qkv {

namespace {

std::atomic<int> chosenThreads{0};  // 0: OpenMP's default

int defaultThreads()
{
#if defined(_OPENMP)
    return omp_get_max_threads();
#else
    return 1;
#endif
}

}  // namespace

int computeThreads()
{
    const int chosen = chosenThreads.load(std::memory_order_relaxed);
    return chosen > 0 ? chosen : defaultThreads();
}

void setComputeThreads(int threads) { chosenThreads.store(threads > 0 ? threads : 0, std::memory_order_relaxed); }

int threadsFor(double work) { return work < parallelWorkThreshold ? 1 : computeThreads(); }

int threadNumber()
{
#if defined(_OPENMP)
    return omp_get_thread_num();
#else
    return 0;
#endif
}

}  // namespace qkv
