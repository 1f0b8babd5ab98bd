#include "core/common/product_kernels.hpp"

#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "core/common/blas_products.hpp"
#include "core/common/enum_names.hpp"
#include "core/common/onednn_products.hpp"
#include "core/common/packed_kernels.hpp"

namespace qkv {

namespace {

// QKV_PRODUCT_KERNEL's spellings, every kernel once (core/common/enum_names.hpp).
inline constexpr std::array<EnumName<ProductKernel>, 5> kProductKernelNames{{{ProductKernel::Eigen, "eigen"},
                                                                             {ProductKernel::OpenBlas, "openblas"},
                                                                             {ProductKernel::OneDnn, "onednn"},
                                                                             {ProductKernel::PackedAvx2, "packed-avx2"},
                                                                             {ProductKernel::PackedAvx512, "packed-avx512"}}};

struct VectorExtensions {
    bool avx2Fma = false;
    bool avx512 = false;
    bool avx512Bf16 = false;
};

VectorExtensions vectorExtensions()
{
    VectorExtensions found;
#if defined(__x86_64__) && defined(__GNUC__)
    // GCC's checks include the operating system's support for the registers' state (XCR0).
    __builtin_cpu_init();
    found.avx2Fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    found.avx512 = __builtin_cpu_supports("avx512f");
    found.avx512Bf16 = __builtin_cpu_supports("avx512bf16");
#endif
    return found;
}

const VectorExtensions& cpu()
{
    static const VectorExtensions extensions = vectorExtensions();
    return extensions;
}

bool keepsRows(ProductKernel kernel)
{
    switch (kernel) {
    case ProductKernel::Eigen: return true;
    case ProductKernel::OpenBlas: return blasKeepsRows();
    case ProductKernel::OneDnn: return oneDnnKeepsRows();
    case ProductKernel::PackedAvx2: return cpu().avx2Fma && packed::avx2TileBuilt();
    case ProductKernel::PackedAvx512: return cpu().avx512 && packed::avx512TileBuilt();
    }
    return false;
}

// The measured choice (product_kernels.hpp's table).
ProductKernel chosenKernel(bool transposed)
{
    if (!transposed && oneDnnKeepsRows()) return ProductKernel::OneDnn;
    if (keepsRows(ProductKernel::PackedAvx2)) return ProductKernel::PackedAvx2;
    if (blasKeepsRows()) return ProductKernel::OpenBlas;
    return ProductKernel::Eigen;
}

constexpr int kNotForced = -1;

int kernelFromEnvironment()
{
    const char* value = std::getenv("QKV_PRODUCT_KERNEL");
    if (value == nullptr || *value == '\0' || std::string_view(value) == "auto") return kNotForced;
    const std::optional<ProductKernel> kernel = parseProductKernel(value);
    static std::atomic<bool> told{false};  // the refusal is said once a process
    if (!kernel) {
        if (told.exchange(true)) return kNotForced;
        std::fprintf(stderr, "qkv-studio: QKV_PRODUCT_KERNEL=%s is not a kernel (%s); the measured choice runs\n",
                     value, allowedNames(kProductKernelNames).c_str());
        return kNotForced;
    }
    if (!keepsRows(*kernel)) {
        if (told.exchange(true)) return kNotForced;
        std::fprintf(stderr,
                     "qkv-studio: QKV_PRODUCT_KERNEL=%s is not available on this CPU or in this build (or would "
                     "change rows' bits here); the measured choice runs\n",
                     value);
        return kNotForced;
    }
    return static_cast<int>(*kernel);
}

std::atomic<int>& forced()
{
    static std::atomic<int> kernel{kernelFromEnvironment()};
    return kernel;
}

std::string packedName(ProductKernel kernel)
{
    return kernel == ProductKernel::PackedAvx512 ? "the project's packed kernel, AVX-512 12 x 32 tile"
                                                 : "the project's packed kernel, AVX2 6 x 16 tile";
}

std::string kernelName(ProductKernel kernel)
{
    switch (kernel) {
    case ProductKernel::Eigen: return "Eigen";
    case ProductKernel::OpenBlas: return openBlasDescription();
    case ProductKernel::OneDnn: return oneDnnName();
    case ProductKernel::PackedAvx2:
    case ProductKernel::PackedAvx512: return packedName(kernel);
    }
    return "Eigen";
}

}  // namespace

std::string_view productKernelSpelling(ProductKernel kernel) { return nameOf(kProductKernelNames, kernel); }

std::optional<ProductKernel> parseProductKernel(std::string_view spelling)
{
    return parseName(kProductKernelNames, spelling);
}

std::vector<ProductKernel> rowKeepingProductKernels()
{
    std::vector<ProductKernel> kernels;
    for (const EnumName<ProductKernel>& entry : kProductKernelNames)
        if (keepsRows(entry.value)) kernels.push_back(entry.value);
    return kernels;
}

ProductKernel productKernel(bool transposed)
{
    const int kernel = forced().load(std::memory_order_relaxed);
    if (kernel == kNotForced) return chosenKernel(transposed);
    const auto forcedKernel = static_cast<ProductKernel>(kernel);
    // oneDNN runs x W only here (onednn_products.hpp).
    if (transposed && forcedKernel == ProductKernel::OneDnn) return chosenKernel(transposed);
    return forcedKernel;
}

bool forceProductKernel(std::optional<ProductKernel> kernel)
{
    if (!kernel) {
        forced().store(kernelFromEnvironment());
        return true;
    }
    if (!keepsRows(*kernel)) return false;
    forced().store(static_cast<int>(*kernel));
    return true;
}

std::string productKernelName()
{
    const ProductKernel rowMajor = productKernel(false), transposed = productKernel(true);
    if (rowMajor == transposed) {
        if (rowMajor == ProductKernel::Eigen)
            return "Eigen (" + std::string(cpu().avx2Fma ? "forced" : "no AVX2 and FMA") + "; " + openBlasDescription() +
                   ")";
        return "x W and x W^T: " + kernelName(rowMajor);
    }
    return "x W: " + kernelName(rowMajor) + "; x W^T: " + kernelName(transposed);
}

std::string cpuVectorExtensions()
{
    std::string text;
    if (cpu().avx2Fma) text += "AVX2 FMA";
    if (cpu().avx512) text += " AVX-512F";
    if (cpu().avx512Bf16) text += " AVX-512 BF16";
    if (text.empty()) return "no AVX2";
    if (text.front() == ' ') text.erase(0, 1);
    return text;
}

}  // namespace qkv
