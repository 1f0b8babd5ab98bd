// oneDNN's sgemm beside OpenBLAS's on the model's x W and x W^T shapes, with the weights read from
// memory as in a forward pass (twelve copies of each, a layer stack's worth), and the row counts at
// which oneDNN's gemm driver changes kernel: what core/common/onednn_products.hpp relies on (calls
// of 2 to 96 rows for x W) and why x W^T stays on OpenBLAS. docs/benchmarks.md, "Float products".
//
//   g++ -O2 -std=c++20 bench/blas/onednn_product_kernels.cpp -o /tmp/onednn_product_kernels \
//       -ldnnl -lopenblas
//   env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=1 /tmp/onednn_product_kernels

#include <oneapi/dnnl/dnnl.h>
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

namespace {

using Floats = std::vector<float>;

Floats randomFloats(std::size_t count, std::mt19937& generator)
{
    std::normal_distribution<float> normal(0.0f, 1.0f);
    Floats values(count);
    for (float& v : values) v = normal(generator);
    return values;
}

// Row-major y (m x n) = x (m x k) w, w stored k x n ('N') or n x k ('T').
void onednn(char t, long m, long n, long k, const float* x, const float* w, float* y)
{
    dnnl_sgemm('N', t, m, n, k, 1.0f, x, k, w, t == 'N' ? n : k, 0.0f, y, n);
}

void openblas(char t, long m, long n, long k, const float* x, const float* w, float* y)
{
    cblas_sgemm(CblasRowMajor, CblasNoTrans, t == 'N' ? CblasNoTrans : CblasTrans, int(m), int(n), int(k), 1.0f, x,
                int(k), w, t == 'N' ? int(n) : int(k), 0.0f, y, int(n));
}

// The same product in calls of at most `most` rows, of nearly equal sizes.
void onednnInCalls(char t, long m, long n, long k, const float* x, const float* w, float* y, long most)
{
    const long calls = (m + most - 1) / most;
    for (long call = 0, first = 0; call < calls; ++call) {
        const long rows = m / calls + (call < m % calls ? 1 : 0);
        onednn(t, rows, n, k, x + first * k, w, y + first * n);
        first += rows;
    }
}

template <class Work>
double bestSeconds(Work work)
{
    double best = 1e9;
    for (int round = 0; round < 4; ++round) {
        const auto start = std::chrono::steady_clock::now();
        work();
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return best;
}

void speeds(std::mt19937& generator)
{
    std::printf("GFLOP/s, one thread, best of 4 (rows x depth x width; 12 weights in turn, from memory)\n");
    struct Shape {
        char t;
        long m, k, n;
    };
    for (const Shape s : {Shape{'N', 128, 768, 2304}, Shape{'N', 128, 768, 3072}, Shape{'N', 128, 3072, 768},
                          Shape{'N', 256, 768, 768}, Shape{'N', 1024, 768, 3072}, Shape{'N', 256, 2048, 8192},
                          Shape{'T', 128, 768, 30522}, Shape{'T', 256, 768, 50257}}) {
        const int copies = s.n > 10000 ? 1 : 12;
        std::vector<Floats> weights;
        for (int c = 0; c < copies; ++c) weights.push_back(randomFloats(std::size_t(s.k * s.n), generator));
        const Floats x = randomFloats(std::size_t(s.m * s.k), generator);
        Floats y(std::size_t(s.m * s.n));
        const auto each = [&](auto product) {
            return bestSeconds([&] {
                for (const Floats& w : weights) product(w.data());
            });
        };
        const double flop = 2.0 * double(s.m) * double(s.k) * double(s.n) * copies;
        const double whole = each([&](const float* w) { onednn(s.t, s.m, s.n, s.k, x.data(), w, y.data()); });
        const double calls = each([&](const float* w) { onednnInCalls(s.t, s.m, s.n, s.k, x.data(), w, y.data(), 96); });
        const double blas = each([&](const float* w) { openblas(s.t, s.m, s.n, s.k, x.data(), w, y.data()); });
        std::printf("  %c %5ld x %4ld x %5ld   oneDNN %5.0f (in calls of <= 96 rows %5.0f)   OpenBLAS %5.0f\n", s.t,
                    s.m, s.k, s.n, flop / whole / 1e9, flop / calls / 1e9, flop / blas / 1e9);
    }
}

// The row counts m at which the first two rows of an m-row call differ from a two-row call's.
void kernelSwitches(std::mt19937& generator)
{
    std::printf("\nRow counts (2..1700) where oneDNN's first two rows change bits against a 2-row call\n");
    struct Shape {
        char t;
        long k, n;
    };
    for (const Shape s : {Shape{'N', 768, 768}, Shape{'N', 768, 3072}, Shape{'N', 3072, 768}, Shape{'N', 1024, 3072},
                          Shape{'N', 2048, 8192}, Shape{'T', 768, 30522}}) {
        const long most = 1700;
        const Floats w = randomFloats(std::size_t(s.k * s.n), generator), x = randomFloats(std::size_t(most * s.k), generator);
        Floats pair(std::size_t(2 * s.n)), y(std::size_t(most * s.n));
        onednn(s.t, 2, s.n, s.k, x.data(), w.data(), pair.data());
        std::printf("  %c %4ld x %5ld:", s.t, s.k, s.n);
        bool same = true;
        for (long m = 1; m <= most; m += m < 128 ? 1 : 16) {
            onednn(s.t, m, s.n, s.k, x.data(), w.data(), y.data());
            const bool now = std::memcmp(y.data(), pair.data(), std::size_t(std::min(m, 2L) * s.n) * sizeof(float)) == 0;
            if (now != same || m == 1) std::printf(" %s from %ld;", now ? "same" : "differ", m);
            same = now;
        }
        std::printf("\n");
    }
}

}  // namespace

int main()
{
    const dnnl_version_t* v = dnnl_version();
    std::printf("oneDNN %d.%d.%d (ISA mask 0x%x); OpenBLAS %s, kernel %s\n\n", v->major, v->minor, v->patch,
                unsigned(dnnl_get_effective_cpu_isa()), openblas_get_config(), openblas_get_corename());
    openblas_set_num_threads(1);
    std::mt19937 generator(1);
    speeds(generator);
    kernelSwitches(generator);
}
