#include "core/io/safetensors.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace qkv {

static_assert(std::endian::native == std::endian::little, "tensors keep little-endian data and decode it as is");

std::string_view tensorDtypeName(TensorDtype dtype) { return nameOf(kTensorDtypeNames, dtype); }

std::size_t tensorDtypeSize(TensorDtype dtype)
{
    const TensorDtypeName* entry = entryOf(kTensorDtypeNames, dtype);
    return entry ? entry->bytes : 1;
}

float decodeFloat16(std::uint16_t bits)
{
    // binary16: 1 sign bit, 5 exponent bits (bias 15), 10 mantissa bits.
    const bool negative = (bits & 0x8000u) != 0;
    const int exponent = (bits >> 10) & 0x1f;
    const int mantissa = bits & 0x3ff;
    float magnitude;
    if (exponent == 0)
        magnitude = std::ldexp(static_cast<float>(mantissa), -24);  // subnormal
    else if (exponent == 31)
        magnitude = mantissa == 0 ? std::numeric_limits<float>::infinity() : std::numeric_limits<float>::quiet_NaN();
    else
        magnitude = std::ldexp(static_cast<float>(mantissa + 1024), exponent - 25);
    return negative ? -magnitude : magnitude;
}

float decodeBFloat16(std::uint16_t bits)
{
    // bfloat16 is the top half of a binary32.
    return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

std::size_t Tensor::elementCount() const
{
    std::size_t count = 1;
    for (std::size_t dim : shape) count *= dim;
    return count;
}

bool Tensor::consistent() const
{
    std::size_t count = 1;
    for (std::size_t dim : shape) {
        if (dim != 0 && count > std::numeric_limits<std::size_t>::max() / dim) return false;
        count *= dim;
    }
    const std::size_t item = tensorDtypeSize(dtype);
    return count <= std::numeric_limits<std::size_t>::max() / item && data.size() == count * item;
}

double Tensor::valueAt(std::size_t index) const
{
    const std::byte* p = data.data() + index * tensorDtypeSize(dtype);
    switch (dtype) {
    case TensorDtype::F16:
    case TensorDtype::BF16: {
        std::uint16_t bits;
        std::memcpy(&bits, p, 2);
        return dtype == TensorDtype::F16 ? decodeFloat16(bits) : decodeBFloat16(bits);
    }
    case TensorDtype::F32: {
        float value;
        std::memcpy(&value, p, 4);
        return value;
    }
    case TensorDtype::F64: {
        double value;
        std::memcpy(&value, p, 8);
        return value;
    }
    }
    return 0.0;
}

void Tensor::toFloats(float* out) const
{
    const std::size_t count = std::min(elementCount(), data.size() / tensorDtypeSize(dtype));
    const std::byte* p = data.data();
    switch (dtype) {
    case TensorDtype::F32:
        if (count > 0) std::memcpy(out, p, count * sizeof(float));  // little-endian host (static_assert above)
        return;
    case TensorDtype::F16:
    case TensorDtype::BF16:
        for (std::size_t i = 0; i < count; ++i) {
            std::uint16_t bits;
            std::memcpy(&bits, p + 2 * i, 2);
            out[i] = dtype == TensorDtype::F16 ? decodeFloat16(bits) : decodeBFloat16(bits);
        }
        return;
    case TensorDtype::F64:
        for (std::size_t i = 0; i < count; ++i) {
            double value;
            std::memcpy(&value, p + 8 * i, 8);
            out[i] = static_cast<float>(value);
        }
        return;
    }
}

std::vector<double> Tensor::toDoubles() const
{
    const std::size_t count = std::min(elementCount(), data.size() / tensorDtypeSize(dtype));
    std::vector<double> values(count);
    for (std::size_t i = 0; i < count; ++i) values[i] = valueAt(i);
    return values;
}

namespace {

template <class Scalar>
Tensor makeTensor(std::string name, std::vector<std::size_t> shape, const Scalar* values, std::size_t count)
{
    Tensor tensor;
    tensor.name = std::move(name);
    tensor.dtype = sizeof(Scalar) == 4 ? TensorDtype::F32 : TensorDtype::F64;
    tensor.shape = std::move(shape);
    tensor.data.resize(count * sizeof(Scalar));
    if (count > 0) std::memcpy(tensor.data.data(), values, count * sizeof(Scalar));
    return tensor;
}

}  // namespace

Tensor Tensor::fromMatrix(std::string name, const MatrixF& matrix)
{
    return makeTensor(std::move(name),
                      {static_cast<std::size_t>(matrix.rows()), static_cast<std::size_t>(matrix.cols())}, matrix.data(),
                      static_cast<std::size_t>(matrix.size()));
}

Tensor Tensor::fromMatrix(std::string name, const MatrixD& matrix)
{
    return makeTensor(std::move(name),
                      {static_cast<std::size_t>(matrix.rows()), static_cast<std::size_t>(matrix.cols())}, matrix.data(),
                      static_cast<std::size_t>(matrix.size()));
}

Tensor Tensor::fromVector(std::string name, std::span<const float> values)
{
    return makeTensor(std::move(name), {values.size()}, values.data(), values.size());
}

Tensor Tensor::fromVector(std::string name, std::span<const double> values)
{
    return makeTensor(std::move(name), {values.size()}, values.data(), values.size());
}

}  // namespace qkv
