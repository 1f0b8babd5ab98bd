#pragma once
// NumPy .npy files: reader and writer for float32 / float64 arrays of one or two dimensions.
//
// Format (numpy/lib/format.py, versions 1.0, 2.0 and 3.0):
//   bytes 0..5  magic "\x93NUMPY"
//   bytes 6..7  major, minor version (1.0, 2.0 or 3.0)
//   then        header length: uint16 LE (1.0) or uint32 LE (2.0, 3.0)
//   then        header: a Python literal dict {'descr': '<f4', 'fortran_order': False,
//               'shape': (rows, cols), } padded with spaces, ending in '\n'
//   then        raw data, C order (row-major), exactly prod(shape) * itemsize bytes.
//
// Shapes: (n, m) gives an n x m matrix; (n,) gives a 1 x n row. MatrixF / MatrixD are row-major,
// so a matrix's memory is the file's data section byte for byte.
//
// The reader validates everything before use (magic, version, header length against the file
// size, the header dict's syntax, the dtype, the shape's product, the exact data size) and
// refuses NaN / Inf with the position of the first bad value. Every message starts with the
// file's name. Nothing throws; allocations never exceed the file's size.

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/common/enum_names.hpp"
#include "core/common/expected.hpp"
#include "core/common/matrix.hpp"

namespace qkv {

enum class NpyDtype { Float32, Float64 };

// The dtypes read and written: NumPy's descr (little-endian), NumPy's name, bytes per value.
struct NpyDtypeName {
    NpyDtype value;
    std::string_view name;
    std::string_view numpyName;
    std::size_t bytes;
};
inline constexpr std::array<NpyDtypeName, 2> kNpyDtypeNames{{
    {NpyDtype::Float32, "<f4", "float32", 4},
    {NpyDtype::Float64, "<f8", "float64", 8},
}};

// The parsed header of an .npy file.
struct NpyHeader {
    NpyDtype dtype = NpyDtype::Float32;
    std::vector<std::size_t> shape;  // as in the file: 1 or 2 entries
    std::size_t dataOffset = 0;      // byte offset of the data section
    std::size_t dataBytes = 0;       // prod(shape) * itemsize
};

// A decoded array: values as a matrix (1-D arrays become one row) plus the file's own shape
// and dtype, so callers can tell a (n,) array from a (1, n) one.
template <class Matrix>
struct NpyArray {
    Matrix values;
    std::vector<std::size_t> shape;
    NpyDtype dtype = NpyDtype::Float32;
};

// Header only: validates magic, version, header dict and that the data section has exactly the
// size the shape asks for (`bytes` is the whole file).
Expected<NpyHeader> parseNpyHeader(std::span<const std::byte> bytes, std::string_view sourceName);

// Whole file from memory (what the fuzzer calls) or from disk. Float64 files are narrowed to
// float for the MatrixF variants; a float64 value outside float's range is refused.
Expected<NpyArray<MatrixF>> parseNpy(std::span<const std::byte> bytes, std::string_view sourceName);
Expected<NpyArray<MatrixD>> parseNpyDouble(std::span<const std::byte> bytes, std::string_view sourceName);
Expected<NpyArray<MatrixF>> readNpy(const std::string& path);
Expected<NpyArray<MatrixD>> readNpyDouble(const std::string& path);

Expected<MatrixF> parseNpyMatrix(std::span<const std::byte> bytes, std::string_view sourceName);
Expected<MatrixF> readNpyMatrix(const std::string& path);
Expected<MatrixD> readNpyMatrixD(const std::string& path);

// Writes a 2-D array (rows, cols), C order, through AtomicFile: '<f4' for MatrixF, '<f8' for
// MatrixD. Byte for byte what numpy.save writes for the same array.
Status writeNpy(const std::string& path, const MatrixF& matrix);
Status writeNpy(const std::string& path, const MatrixD& matrix);
// Any Eigen expression (a transpose, a block, MatrixF::Zero(...)): evaluated into a row-major
// matrix of its own scalar type, so float stays '<f4' and double '<f8'.
template <class Derived>
requires std::is_same_v<typename Derived::Scalar, float> || std::is_same_v<typename Derived::Scalar, double> Status
writeNpy(const std::string& path, const Eigen::MatrixBase<Derived>& matrix)
{
    if constexpr (std::is_same_v<typename Derived::Scalar, float>)
        return writeNpy(path, MatrixF(matrix));
    else
        return writeNpy(path, MatrixD(matrix));
}

// The complete preamble of an .npy file (magic, version, length, dict, padding, '\n'); its size
// is a multiple of 64. Version 1.0 unless the dict needs more than 65535 bytes. For streaming
// big arrays: write npyHeader(...) and then prod(shape) little-endian values, C order.
std::string npyHeader(NpyDtype dtype, const std::vector<std::size_t>& shape);

// Size in bytes of one value of `dtype`.
std::size_t npyItemSize(NpyDtype dtype);

}  // namespace qkv
