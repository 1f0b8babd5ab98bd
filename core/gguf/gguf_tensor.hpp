#pragma once
// One tensor of a GGUF file as float32 values: its bytes read with positioned reads (never
// mapped: a file truncated under a mapping kills the process), a bounded number of blocks at a
// time, dequantized (gguf_dequantize.hpp) and checked finite.

#include <string>
#include <vector>

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

// A permutation of a tensor's rows that keeps each group of `group` consecutive rows within
// itself: row g group + i of the result is stored row g group + withinGroup[i] (llama.cpp's
// interleaved heads: a group is a head's rows). Empty withinGroup: the stored order.
struct RowOrder {
    Index group = 1;
    std::vector<Index> withinGroup;
};

// The tensor's transpose, its rows put in `order`: out(c, r) = stored(order(r), c), out already
// rowLength() x rowCount(). Each chunk of rows is dequantized into a buffer in cache and written
// transposed from there (widening_transpose.hpp): the tensor is never held whole in the file's
// order beside out.
Status readGgufTensorTransposedInto(const std::string& path, const GgufTensorInfo& tensor, const RowOrder& order,
                                    MatrixF& out);

}  // namespace qkv
