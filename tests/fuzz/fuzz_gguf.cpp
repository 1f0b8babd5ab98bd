// libFuzzer harness: the GGUF reader (header, metadata, tensor infos) and the dequantization of
// every tensor it accepts, on arbitrary bytes. The reader takes a path, so each input is a
// memory file (memfd) read through /proc/self/fd.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/gguf/gguf_file.hpp"
#include "core/gguf/gguf_tensor.hpp"

namespace {

// Values dequantized per input at most: a small file may describe a large tensor whose bytes it
// does not hold (the reader refuses it), but one it accepts is as large as the input allows.
constexpr std::uint64_t kMaxValues = std::uint64_t{1} << 22;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const int fd = memfd_create("gguf", 0);
    if (fd < 0) return 0;
    std::size_t written = 0;
    while (written < size) {
        const ssize_t n = write(fd, data + written, size - written);
        if (n <= 0) break;
        written += static_cast<std::size_t>(n);
    }
    const std::string path = "/proc/self/fd/" + std::to_string(fd);
    auto file = qkv::readGgufFile(path);
    if (!file.ok()) {
        if (file.error().empty()) std::abort();
    } else {
        for (const qkv::GgufTensorInfo& tensor : file->tensors) {
            if (tensor.offset + tensor.byteCount > file->fileSize) std::abort();  // the reader's promise
            if (tensor.valueCount > kMaxValues) continue;
            auto values = qkv::readGgufTensor(path, tensor);
            if (values.ok() && static_cast<std::uint64_t>(values->size()) != tensor.valueCount) std::abort();
            if (!values.ok() && values.error().empty()) std::abort();
        }
    }
    close(fd);
    return 0;
}
