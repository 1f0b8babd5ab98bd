#pragma once
// The quantization a GGUF file is known by ("Q4_K_M", "Q8_0"), read from its header alone: what
// llama.cpp's quantizer wrote in `general.file_type` (its llama_ftype numbering, include/llama.h),
// else the tensor type that holds most of the file's tensor bytes ("mostly Q4_K").

#include <cstdint>
#include <string>

#include "core/gguf/gguf_file.hpp"

namespace qkv {

// "Q4_K_M" for llama_ftype 15, ...; empty for a number llama.cpp does not give.
std::string llamaFileTypeName(std::int64_t fileType);

// The file's quantization as above; empty for a file without tensors.
std::string ggufQuantizationName(const GgufFile& file);

}  // namespace qkv
