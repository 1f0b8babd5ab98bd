// BLIS (Debian's libblis, its serial build) on the model's x W shapes: whether a row keeps its bits
// whatever rows are multiplied with it (the promise core/common/product_kernels.hpp requires of a
// kernel), and its rate on one thread (thread CPU clock, weights in cache). docs/benchmarks.md,
// "Which kernel runs where". Not built by CMake (BLIS is not a dependency):
//
//   apt-get install libblis-dev
//   g++ -O2 -std=c++17 bench/blas/blis_row_bits.cpp -o /tmp/blis_row_bits \
//       /usr/lib/x86_64-linux-gnu/blis-serial/libblis.so.4
//   /tmp/blis_row_bits; BLIS_ARCH_TYPE=haswell /tmp/blis_row_bits
#include <cstring>
#include <cstdio>
#include <ctime>
#include <random>
#include <vector>
extern "C" void sgemm_(const char*, const char*, const int*, const int*, const int*, const float*, const float*,
                       const int*, const float*, const int*, const float*, float*, const int*);
extern "C" void bli_thread_set_num_threads(long);
// row-major out (rows x n) = x (rows x k) w (k x n)
void product(const float* x, int rows, int k, const float* w, int n, float* out)
{
    const float one = 1.0f, zero = 0.0f;
    sgemm_("N", "N", &n, &rows, &k, &one, w, &n, x, &k, &zero, out, &n);
}
double cpu() { timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
int main()
{
    std::mt19937 g(3);
    std::normal_distribution<float> d;
    const int shapes[][3] = {{300, 1024, 3072}, {128, 768, 768}, {256, 768, 2304}, {1600, 768, 768}};
    for (auto& s : shapes) {
        const int R = s[0], K = s[1], N = s[2];
        std::vector<float> x(size_t(R) * K), w(size_t(K) * N), whole(size_t(R) * N), part(size_t(R) * N);
        for (auto& v : x) v = d(g);
        for (auto& v : w) v = d(g);
        product(x.data(), R, K, w.data(), N, whole.data());
        int differ = 0, tried = 0;
        for (int first : {0, 5, 97}) for (int rows : {1, 2, 3, 5, 7, 16, 95, 101}) {
            if (first + rows > R) continue;
            ++tried;
            product(x.data() + size_t(first) * K, rows, K, w.data(), N, part.data());
            if (std::memcmp(part.data(), whole.data() + size_t(first) * N, size_t(rows) * N * 4) != 0) { ++differ; std::printf("  %d rows from %d\n", rows, first); }
        }
        double best = 1e9;
        for (int r = 0; r < 5; ++r) { double t0 = cpu(); product(x.data(), R, K, w.data(), N, whole.data()); best = std::min(best, cpu() - t0); }
        std::printf("%d x %d x %d: %d of %d row splits differ; %.1f GFLOP/s\n", R, K, N, differ, tried, 2.0 * R * K * N / best / 1e9);
    }
}
