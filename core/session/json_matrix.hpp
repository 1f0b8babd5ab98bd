#pragma once
// A float32 matrix in a session: {"shape": [rows, cols], "dtype": "float32", "data": base64 of
// the row-major little-endian bytes}. Internal to core/session (the single-layer weights, the
// user's embeddings and a trained model's tensors are all stored this way).

#include <string>

#include <nlohmann/json.hpp>

#include "core/common/expected.hpp"
#include "core/common/matrix.hpp"

namespace qkv {

nlohmann::json matrixToJson(const float* data, Index rows, Index cols);
inline nlohmann::json matrixToJson(const MatrixF& m) { return matrixToJson(m.data(), m.rows(), m.cols()); }

// Checks the object, the shape against rows x cols and the size of the data, without decoding
// anything (so that a reader can check every tensor of a file before it allocates for them).
// Messages start with `name`.
Status checkMatrixJson(const nlohmann::json& json, const std::string& name, Index rows, Index cols);
// checkMatrixJson, then decodes into `out` (rows * cols floats) and checks that every value is
// finite.
Status matrixFromJson(const nlohmann::json& json, const std::string& name, Index rows, Index cols, float* out);
Expected<MatrixF> matrixFromJson(const nlohmann::json& json, const std::string& name, Index rows, Index cols);

}  // namespace qkv
