#pragma once
// One tensor of a GGUF file as float32 values: its bytes read with positioned reads (never
// mapped: a file truncated under a mapping kills the process), a bounded number of blocks at a
// time, dequantized (gguf_dequantize.hpp) and checked finite.

#include <string>

#include "core/common/expected.hpp"
#include "core/common/matrix.hpp"
#include "core/gguf/gguf_file.hpp"

namespace qkv {

// The tensor as a matrix of its rows: rowCount() x rowLength() (ggml's ne[0] values a row), so a
// weight stored as ggml's [in, out] (PyTorch's out x in) arrives out x in, as safetensors holds it.
// Refuses values that are not finite, naming the tensor and the position.
Expected<MatrixF> readGgufTensor(const std::string& path, const GgufTensorInfo& tensor);
// The same into `values`, which must be rowCount() x rowLength() already (a caller's reused memory).
Status readGgufTensorInto(const std::string& path, const GgufTensorInfo& tensor, MatrixF& values);

}  // namespace qkv
