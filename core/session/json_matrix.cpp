#include "core/session/json_matrix.hpp"

#include <bit>
#include <cmath>
#include <cstring>

#include "core/common/finite_range.hpp"
#include "core/session/base64.hpp"

namespace qkv {

namespace {

static_assert(std::endian::native == std::endian::little, "sessions store little-endian float32; add a byte swap");

// The one dtype of a session's matrices (float32, little-endian, row-major).
constexpr char kMatrixDtype[] = "float32";

std::size_t byteCount(Index rows, Index cols)
{
    return static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols) * sizeof(float);
}


}  // namespace

nlohmann::json matrixToJson(const float* data, Index rows, Index cols)
{
    // Row-major float32, little-endian: the bytes of the matrix as it sits in memory.
    return {{"shape", {rows, cols}}, {"dtype", kMatrixDtype}, {"data", base64Encode(data, byteCount(rows, cols))}};
}

Status checkMatrixJson(const nlohmann::json& json, const std::string& name, Index rows, Index cols)
{
    const std::string where = name + ": ";
    if (!json.is_object()) return Error{where + "must be an object {shape, dtype, data}"};
    const auto shape = json.find("shape");
    const auto dtype = json.find("dtype");
    const auto data = json.find("data");
    if (shape == json.end() || !shape->is_array() || shape->size() != 2 || !(*shape)[0].is_number_integer() ||
        !(*shape)[1].is_number_integer())
        return Error{where + "needs a shape [rows, columns]"};
    if (dtype == json.end() || *dtype != kMatrixDtype)
        return Error{where + "dtype must be \"" + std::string(kMatrixDtype) + "\""};
    if (data == json.end() || !data->is_string()) return Error{where + "needs its data as a base64 string"};
    const long long r = (*shape)[0].get<long long>(), c = (*shape)[1].get<long long>();
    if (r != rows || c != cols)
        return Error{where + "is " + std::to_string(r) + " x " + std::to_string(c) + ", expected " +
                     std::to_string(rows) + " x " + std::to_string(cols)};
    const std::string& text = data->get_ref<const std::string&>();
    if (base64DecodedSize(text) != byteCount(rows, cols))
        return Error{where + "holds " + std::to_string(base64DecodedSize(text)) + " bytes of data, expected " +
                     std::to_string(byteCount(rows, cols))};
    return {};
}

Status matrixFromJson(const nlohmann::json& json, const std::string& name, Index rows, Index cols, float* out)
{
    if (Status checked = checkMatrixJson(json, name, rows, cols); !checked) return checked;
    const auto decoded = base64Decode(json.find("data")->get_ref<const std::string&>());
    if (!decoded) return Error{name + ": data is not valid base64"};
    const std::size_t bytes = byteCount(rows, cols);
    if (bytes > 0) std::memcpy(out, decoded->data(), bytes);
    if (!allFinite({out, bytes / sizeof(float)})) return Error{name + ": holds NaN or infinite values"};
    return {};
}

Expected<MatrixF> matrixFromJson(const nlohmann::json& json, const std::string& name, Index rows, Index cols)
{
    // The size is checked against the data before anything is allocated for it.
    if (Status checked = checkMatrixJson(json, name, rows, cols); !checked) return Error{checked.error()};
    MatrixF m(rows, cols);
    if (Status read = matrixFromJson(json, name, rows, cols, m.data()); !read) return Error{read.error()};
    return m;
}

}  // namespace qkv
