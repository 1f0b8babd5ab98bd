// libFuzzer harness: the .npy reader on arbitrary bytes. See CMakeLists.txt in this folder.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "core/io/npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
    auto array = qkv::parseNpy(bytes, "fuzz");
    if (array.ok()) {
        if (!array->values.allFinite()) std::abort();  // the reader refuses NaN / Inf
    } else if (array.error().empty()) {
        std::abort();  // every refusal says why
    }
    auto asDouble = qkv::parseNpyDouble(bytes, "fuzz");
    if (!asDouble.ok() && asDouble.error().empty()) std::abort();
    return 0;
}
