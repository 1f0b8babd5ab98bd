#include "core/common/onednn_products.hpp"

#include <cstdlib>
#include <new>

#if defined(QKV_HAVE_ONEDNN)
#include <oneapi/dnnl/dnnl.h>
#endif
#if defined(_OPENMP)
#include <omp.h>
#endif

namespace qkv {

namespace {

#if defined(QKV_HAVE_ONEDNN)
bool avx512Kernels()
{
    // Bit masks: every AVX-512 level contains avx512_core's bits; avx2_vnni does not.
    const auto isa = static_cast<unsigned>(dnnl_get_effective_cpu_isa());
    const auto avx512 = static_cast<unsigned>(dnnl_cpu_isa_avx512_core);
    return (isa & avx512) == avx512;
}

// oneDNN's gemm divides a call among omp_get_max_threads() threads outside an active OpenMP team
// (one inside): the caller's setting is lowered to one around the call, so every call runs the
// one-thread kernel on the caller's thread (core/common/parallelism.hpp decides the teams) and
// sums in the same order whether it is made inside a team or not.
class OneThreadAroundCall {
public:
    OneThreadAroundCall()
    {
#if defined(_OPENMP)
        if (before_ != 1) omp_set_num_threads(1);
#endif
    }
    ~OneThreadAroundCall()
    {
#if defined(_OPENMP)
        if (before_ != 1) omp_set_num_threads(before_);
#endif
    }
    OneThreadAroundCall(const OneThreadAroundCall&) = delete;
    OneThreadAroundCall& operator=(const OneThreadAroundCall&) = delete;

private:
#if defined(_OPENMP)
    int before_ = omp_get_max_threads();
#endif
};

void sgemm(const float* x, Index rows, Index k, Index ldx, const float* w, Index n, Index ldw, float* out, Index ldo,
           bool accumulate)
{
    const dnnl_status_t status = dnnl_sgemm('N', 'N', rows, n, k, 1.0f, x, ldx, w, ldw, accumulate ? 1.0f : 0.0f, out, ldo);
    // Its scratch memory may be refused, as any matrix's: the computation reports it as such.
    if (status == dnnl_out_of_memory) throw std::bad_alloc();
    // Otherwise only invalid arguments fail (the shapes come from checked matrices): a bug.
    if (status != dnnl_success) std::abort();
}
#endif

}  // namespace

bool oneDnnKeepsRows()
{
#if defined(QKV_HAVE_ONEDNN)
    static const bool keeps = avx512Kernels();
    return keeps;
#else
    return false;
#endif
}

std::string oneDnnName()
{
#if defined(QKV_HAVE_ONEDNN)
    const dnnl_version_t* version = dnnl_version();
    const std::string number = std::to_string(version->major) + "." + std::to_string(version->minor) + "." +
                               std::to_string(version->patch);
    return "oneDNN " + number + (avx512Kernels() ? ", AVX-512 kernels" : ", without AVX-512");
#else
    return "oneDNN (not built in)";
#endif
}

void oneDnnProduct(const float* x, Index rows, Index k, Index ldx, const float* w, Index n, Index ldw, float* out,
                   Index ldo, bool accumulate)
{
#if defined(QKV_HAVE_ONEDNN)
    if (rows <= 0) return;
    const OneThreadAroundCall oneThread;
    // Calls of nearly equal rows, each at most kOneDnnRows and at least two.
    const Index calls = (rows + kOneDnnRows - 1) / kOneDnnRows;
    Index first = 0;
    for (Index call = 0; call < calls; ++call) {
        const Index count = rows / calls + (call < rows % calls ? 1 : 0);
        sgemm(x + first * ldx, count, k, ldx, w, n, ldw, out + first * ldo, ldo, accumulate);
        first += count;
    }
#else
    (void)x, (void)rows, (void)k, (void)ldx, (void)w, (void)n, (void)ldw, (void)out, (void)ldo, (void)accumulate;
#endif
}

}  // namespace qkv
