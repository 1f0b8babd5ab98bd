#pragma once
// Which kernel runs the model's large float products (row_products.hpp), and why.
//
// Every kernel here keeps a row's bits whatever rows are multiplied with it and on any thread
// (typing on, generation and a position's readout are the whole run's rows, bit for bit); a
// kernel that would not keep them on this CPU is not offered. Among those, the choice is the one
// measured fastest on the model's shapes for the CPU's kind (docs/benchmarks.md, "Which kernel runs
// where"):
//   AVX-512    x W: oneDNN's sgemm (its AVX-512 kernels); x W^T: the packed kernel, 6 x 16 AVX2
//              tile (level with or ahead of OpenBLAS's Cooperlake kernel from 128 rows on)
//   AVX2+FMA   both: the project's own packed kernel, 6 x 16 AVX2 tile (packed_products.hpp);
//              OpenBLAS's Haswell kernel and oneDNN's AVX2 path change rows' bits
//   otherwise  Eigen (rows padded to its four-row path: row_products.hpp), or OpenBLAS where its
//              kernel keeps rows
// The choice depends on the CPU, the binary and the weight's layout, never on a product's row
// count, so a weight's products take one kernel for the whole process. QKV_PRODUCT_KERNEL (eigen, openblas, onednn, packed-avx2, packed-avx512) forces one
// of the kernels this binary carries that keep rows on this CPU, for tests and benchmarks; a name
// not available here is refused on standard error once and the choice above runs.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace qkv {

enum class ProductKernel { Eigen, OpenBlas, OneDnn, PackedAvx2, PackedAvx512 };


// "eigen", "openblas", "onednn", "packed-avx2", "packed-avx512": QKV_PRODUCT_KERNEL's spelling.
std::string_view productKernelSpelling(ProductKernel kernel);
std::optional<ProductKernel> parseProductKernel(std::string_view spelling);

// The kernels this binary carries that keep rows' bits on this CPU (Eigen always).
std::vector<ProductKernel> rowKeepingProductKernels();

// The kernel that runs x W (stored k x n, `transposed` false) or x W^T (w stored n x k) now. A
// forced kernel that has no x W^T form (oneDNN here) leaves x W^T to the choice above.
ProductKernel productKernel(bool transposed);

// Forces `kernel` (one of rowKeepingProductKernels(); false, and nothing changes, for another) or,
// with nullopt, restores QKV_PRODUCT_KERNEL's or the measured choice. For tests and benchmarks that
// compare kernels in one process; not while products run on other threads.
bool forceProductKernel(std::optional<ProductKernel> kernel);

// What runs the large products, for benchmarks and reports: "x W: oneDNN 2.6.3, AVX-512 kernels;
// x W^T: OpenBLAS (pthread build, one thread per call), Cooperlake kernel", "x W and x W^T: the
// project's packed kernel, AVX2 6 x 16 tile", or why Eigen runs them.
std::string productKernelName();

// The CPU's vector extensions the kernels care about: "AVX2 FMA AVX-512F AVX-512 BF16", "AVX2 FMA".
std::string cpuVectorExtensions();

}  // namespace qkv
