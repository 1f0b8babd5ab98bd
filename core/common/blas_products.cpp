#include "core/common/blas_products.hpp"

#include <cstring>
#include <mutex>

#if defined(QKV_HAVE_OPENBLAS)
// OpenBLAS's C interface (cblas.h), declared here: the header's path differs between Debian's
// three builds of the library (serial, pthread, openmp), the functions do not.
extern "C" {
enum CBLAS_ORDER { CblasRowMajor = 101, CblasColMajor = 102 };
enum CBLAS_TRANSPOSE { CblasNoTrans = 111, CblasTrans = 112 };
void cblas_sgemm(CBLAS_ORDER order, CBLAS_TRANSPOSE transA, CBLAS_TRANSPOSE transB, int m, int n, int k, float alpha,
                 const float* a, int lda, const float* b, int ldb, float beta, float* c, int ldc);
char* openblas_get_corename(void);
void openblas_set_num_threads(int threads);
int openblas_get_parallel(void);  // 0: the serial build, 1: pthread, 2: OpenMP
}
#endif

namespace qkv {

namespace {

#if defined(QKV_HAVE_OPENBLAS)
// The kernels measured to keep a row's bits alone and in any block of rows (bench/blas/
// float_product_kernels.cpp): 0 of 960 row blocks and 0 of 24 column splits differ.
bool rowKeepingKernel(const char* name)
{
    for (const char* kernel : {"SkylakeX", "Cooperlake"})
        if (name && std::strcmp(name, kernel) == 0) return true;
    return false;
}

// Debian's serial build shares its work buffers between calls: two threads of a team calling it
// at once corrupt each other's products (seen: a chosen logit row differing from the whole
// readout's). The pthread and OpenMP builds lock around them; with the serial one, calls take turns.
std::mutex serialCalls;

bool openBlasReady()
{
    // Debian's pthread and openmp builds would open a team of their own inside each call:
    // every call runs on the caller's thread (core/common/parallelism.hpp decides the teams).
    static const bool ready = [] {
        openblas_set_num_threads(1);
        return rowKeepingKernel(openblas_get_corename());
    }();
    return ready;
}
#endif

}  // namespace

bool blasKeepsRows()
{
#if defined(QKV_HAVE_OPENBLAS)
    return openBlasReady();
#else
    return false;
#endif
}

std::string openBlasDescription()
{
#if defined(QKV_HAVE_OPENBLAS)
    const std::string kernel = openblas_get_corename() ? openblas_get_corename() : "unknown";
    const int parallel = openblas_get_parallel();
    const std::string build = parallel == 0 ? "serial" : parallel == 1 ? "pthread" : "OpenMP";
    if (blasKeepsRows()) return "OpenBLAS (" + build + " build, one thread per call), " + kernel + " kernel";
    return "OpenBLAS's " + kernel + " kernel would change rows' bits";
#else
    return "built without OpenBLAS";
#endif
}

void blasProduct(const float* x, Index rows, Index k, Index ldx, const float* w, Index n, Index ldw, bool transposed,
                 float* out, Index ldo, bool accumulate)
{
#if defined(QKV_HAVE_OPENBLAS)
    static const bool serialBuild = openblas_get_parallel() == 0;
    std::unique_lock<std::mutex> turn(serialCalls, std::defer_lock);
    if (serialBuild) turn.lock();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, transposed ? CblasTrans : CblasNoTrans, static_cast<int>(rows),
                static_cast<int>(n), static_cast<int>(k), 1.0f, x, static_cast<int>(ldx), w, static_cast<int>(ldw),
                accumulate ? 1.0f : 0.0f, out, static_cast<int>(ldo));
#else
    (void)x, (void)rows, (void)k, (void)ldx, (void)w, (void)n, (void)ldw, (void)transposed, (void)out, (void)ldo,
        (void)accumulate;
#endif
}

}  // namespace qkv
