// libFuzzer harness: the safetensors reader and the weights loader on arbitrary bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "core/io/safetensors.hpp"
#include "core/io/weights_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
    auto file = qkv::parseSafetensors(bytes, "fuzz");
    if (!file.ok()) {
        if (file.error().empty()) std::abort();
        return 0;
    }
    for (const qkv::Tensor& tensor : file->tensors) {
        if (!tensor.consistent()) std::abort();
        (void)tensor.toDoubles();
    }
    auto weights = qkv::attentionWeightsFromSafetensors(*file, "fuzz");
    if (weights.ok()) {
        const auto d = weights->d_model();
        if (d < 1 || weights->outputProjection.rows() != d || !weights->keyProjection.allFinite())
            std::abort();
    } else if (weights.error().empty()) {
        std::abort();
    }
    return 0;
}
