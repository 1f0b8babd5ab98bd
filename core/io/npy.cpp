#include "core/io/npy.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <optional>

#include "core/io/atomic_file.hpp"
#include "core/io/file_bytes.hpp"

namespace qkv {

static_assert(std::endian::native == std::endian::little, "the .npy reader and writer copy little-endian data as is");

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicSize = 6;
// Dimensions above this are refused even when another dimension is 0 (then the product
// check alone would let them through, and Eigen would be asked for absurd sizes).
constexpr std::size_t kMaxDimension = std::numeric_limits<std::int32_t>::max();

std::string prefixed(std::string_view sourceName, const std::string& what)
{
    return std::string(sourceName) + ": " + what;
}

std::string shapeText(const std::vector<std::size_t>& shape)
{
    std::string text = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i > 0) text += ", ";
        text += std::to_string(shape[i]);
    }
    if (shape.size() == 1) text += ",";
    return text + ")";
}

std::string dtypeWords(NpyDtype dtype) { return std::string(entryOf(kNpyDtypeNames, dtype)->numpyName); }

// "float32 '<f4' and float64 '<f8'": the dtypes a message says are supported.
std::string supportedDtypes()
{
    std::string text;
    for (const NpyDtypeName& dtype : kNpyDtypeNames)
        text += (text.empty() ? "" : " and ") + std::string(dtype.numpyName) + " '" + std::string(dtype.name) + "'";
    return text;
}

// A strict reader of the Python literal dict NumPy writes. It accepts what
// ast.literal_eval would accept for this dict's three keys (any whitespace, either quote,
// optional trailing commas) and nothing else.
class HeaderDictParser {
public:
    explicit HeaderDictParser(std::string_view text) : text_(text) {}

    // On failure returns a description of what is wrong (no file name).
    std::optional<std::string> parse()
    {
        skipSpace();
        if (!consume('{')) return fail("it does not start with '{'");
        skipSpace();
        while (!peekIs('}')) {
            std::string key;
            if (auto error = parseString(key, "a key in quotes")) return error;
            skipSpace();
            if (!consume(':')) return fail("expected ':' after '" + key + "'");
            skipSpace();
            if (key == "descr") {
                if (haveDescr) return fail("'descr' appears twice");
                haveDescr = true;
                if (auto error = parseString(descr, "a dtype string such as '<f4'")) return error;
            } else if (key == "fortran_order") {
                if (haveFortran) return fail("'fortran_order' appears twice");
                haveFortran = true;
                if (consumeWord("True"))
                    fortranOrder = true;
                else if (consumeWord("False"))
                    fortranOrder = false;
                else
                    return fail("'fortran_order' must be True or False");
            } else if (key == "shape") {
                if (haveShape) return fail("'shape' appears twice");
                haveShape = true;
                if (auto error = parseShape()) return error;
            } else {
                return fail("unexpected key '" + key + "'");
            }
            skipSpace();
            if (consume(',')) {
                skipSpace();
                continue;
            }
            if (!peekIs('}')) return fail("expected ',' or '}'");
        }
        ++pos_;  // '}'
        skipSpace();
        if (pos_ != text_.size()) return fail("unexpected text after '}'");
        if (!haveDescr) return std::string("the header has no 'descr' (dtype)");
        if (!haveFortran) return std::string("the header has no 'fortran_order'");
        if (!haveShape) return std::string("the header has no 'shape'");
        return std::nullopt;
    }

    std::string descr;
    bool fortranOrder = false;
    std::vector<std::size_t> shape;

private:
    std::string fail(const std::string& what) const
    {
        return "the header is malformed: " + what + " (at character " + std::to_string(pos_) + " of the header)";
    }

    void skipSpace()
    {
        while (pos_ < text_.size() &&
               (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
            ++pos_;
    }
    bool peekIs(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
    bool consume(char c)
    {
        if (!peekIs(c)) return false;
        ++pos_;
        return true;
    }
    bool consumeWord(std::string_view word)
    {
        if (text_.substr(pos_, word.size()) != word) return false;
        const std::size_t after = pos_ + word.size();
        if (after < text_.size()) {
            const char c = text_[after];
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_') return false;
        }
        pos_ = after;
        return true;
    }

    std::optional<std::string> parseString(std::string& out, const char* expected)
    {
        if (!peekIs('\'') && !peekIs('"')) return fail(std::string("expected ") + expected);
        const char quote = text_[pos_++];
        const std::size_t start = pos_;
        while (pos_ < text_.size() && text_[pos_] != quote) {
            const auto c = static_cast<unsigned char>(text_[pos_]);
            if (c == '\\' || c == '\n' || c < 0x20 || c >= 0x7f) return fail("unsupported character in a string");
            ++pos_;
        }
        if (pos_ >= text_.size()) return fail("a string is not closed");
        out.assign(text_.substr(start, pos_ - start));
        ++pos_;
        return std::nullopt;
    }

    std::optional<std::string> parseShape()
    {
        if (!consume('(')) return fail("'shape' must be a tuple such as (3, 4)");
        skipSpace();
        bool sawComma = false;
        while (!peekIs(')')) {
            if (pos_ >= text_.size() || text_[pos_] < '0' || text_[pos_] > '9')
                return fail("'shape' must hold non-negative integers");
            if (text_[pos_] == '0' && pos_ + 1 < text_.size() && text_[pos_ + 1] >= '0' && text_[pos_ + 1] <= '9')
                return fail("an integer in 'shape' has a leading zero");
            std::size_t value = 0;
            while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
                const std::size_t digit = static_cast<std::size_t>(text_[pos_] - '0');
                if (value > (std::numeric_limits<std::size_t>::max() - digit) / 10)
                    return fail("a dimension in 'shape' is too large");
                value = value * 10 + digit;
                ++pos_;
            }
            shape.push_back(value);
            skipSpace();
            sawComma = consume(',');
            skipSpace();
            if (!sawComma && !peekIs(')')) return fail("expected ',' or ')' in 'shape'");
        }
        ++pos_;  // ')'
        // Python: (3) is the integer 3, not a tuple; a one-element tuple is written (3,).
        if (shape.size() == 1 && !sawComma) return fail("'shape' (n) must be written (n,)");
        return std::nullopt;
    }

    std::string_view text_;
    std::size_t pos_ = 0;
    bool haveDescr = false;
    bool haveFortran = false;
    bool haveShape = false;
};

std::uint32_t readLittleEndian(const std::byte* p, std::size_t bytes)
{
    std::uint32_t value = 0;
    for (std::size_t i = 0; i < bytes; ++i)
        value |= static_cast<std::uint32_t>(std::to_integer<unsigned>(p[i])) << (8 * i);
    return value;
}

std::string positionText(const std::vector<std::size_t>& shape, std::size_t index)
{
    if (shape.size() == 1) return "index " + std::to_string(index);
    const std::size_t cols = shape[1];
    return "row " + std::to_string(index / cols) + ", column " + std::to_string(index % cols);
}

std::string badValueText(double value)
{
    if (std::isnan(value)) return "NaN";
    return value > 0 ? "+Inf" : "-Inf";
}

// Decodes the validated data section into Matrix, refusing values that are not finite in the
// target type.
template <class Matrix>
Expected<NpyArray<Matrix>> decodeNpy(std::span<const std::byte> bytes, std::string_view sourceName)
{
    using Scalar = typename Matrix::Scalar;
    auto header = parseNpyHeader(bytes, sourceName);
    if (!header) return Error{header.error()};

    NpyArray<Matrix> array;
    array.shape = header->shape;
    array.dtype = header->dtype;
    const Index rows = header->shape.size() == 1 ? 1 : static_cast<Index>(header->shape[0]);
    const Index cols = static_cast<Index>(header->shape.back());
    try {
        array.values.resize(rows, cols);
    } catch (const std::bad_alloc&) {
        return Error{prefixed(
            sourceName, "not enough memory for a " + std::to_string(rows) + "x" + std::to_string(cols) + " matrix")};
    }
    const std::byte* data = bytes.data() + header->dataOffset;
    const auto count = static_cast<std::size_t>(array.values.size());
    Scalar* out = array.values.data();

    auto refuse = [&](std::size_t index, double value) -> Error {
        if (std::isfinite(value))
            return Error{prefixed(sourceName, "the value " + std::to_string(value) + " at " +
                                                  positionText(header->shape, index) + " is too large for float32")};
        return Error{prefixed(sourceName, "the value at " + positionText(header->shape, index) + " is " +
                                              badValueText(value) + "; the file must hold finite numbers")};
    };

    if (header->dtype == NpyDtype::Float32) {
        for (std::size_t i = 0; i < count; ++i) {
            float value;
            std::memcpy(&value, data + 4 * i, 4);
            if (!std::isfinite(value)) return refuse(i, value);
            out[i] = static_cast<Scalar>(value);
        }
    } else {
        for (std::size_t i = 0; i < count; ++i) {
            double value;
            std::memcpy(&value, data + 8 * i, 8);
            if (!std::isfinite(value)) return refuse(i, value);
            if (!std::isfinite(static_cast<Scalar>(value))) return refuse(i, value);
            out[i] = static_cast<Scalar>(value);
        }
    }
    return array;
}

template <class Matrix>
Status writeMatrix(const std::string& path, const Matrix& matrix, NpyDtype dtype)
{
    AtomicFile file;
    if (Status opened = file.open(path); !opened) return opened;
    file.write(npyHeader(dtype, {static_cast<std::size_t>(matrix.rows()), static_cast<std::size_t>(matrix.cols())}));
    // Row-major storage is C order.
    file.write(matrix.data(), static_cast<std::size_t>(matrix.size()) * sizeof(typename Matrix::Scalar));
    return file.commit();
}

}  // namespace

std::size_t npyItemSize(NpyDtype dtype) { return entryOf(kNpyDtypeNames, dtype)->bytes; }

Expected<NpyHeader> parseNpyHeader(std::span<const std::byte> bytes, std::string_view sourceName)
{
    const std::size_t size = bytes.size();
    // 1. Magic and version.
    if (size == 0) return Error{prefixed(sourceName, "is empty")};
    const std::size_t magicBytes = std::min(size, kMagicSize);
    if (std::memcmp(bytes.data(), kMagic, magicBytes) != 0)
        return Error{prefixed(sourceName,
                              "is not a NumPy .npy file (it does not start with the "
                              "\\x93NUMPY signature)")};
    if (size < 10)
        return Error{
            prefixed(sourceName, "is truncated: " + std::to_string(size) + " bytes is too short for an .npy file")};
    const auto major = std::to_integer<unsigned>(bytes[6]);
    const auto minor = std::to_integer<unsigned>(bytes[7]);
    if (major < 1 || major > 3 || minor != 0)
        return Error{prefixed(sourceName, "uses .npy format version " + std::to_string(major) + "." +
                                              std::to_string(minor) +
                                              ", which is not supported (1.0, 2.0 and 3.0 are)")};

    // 2. Header length: uint16 in version 1.0, uint32 after.
    const std::size_t lengthBytes = major == 1 ? 2 : 4;
    const std::size_t preamble = 8 + lengthBytes;
    if (size < preamble) return Error{prefixed(sourceName, "is truncated inside its header length")};
    const std::size_t headerLength = readLittleEndian(bytes.data() + 8, lengthBytes);
    if (headerLength > size - preamble)
        return Error{prefixed(sourceName, "is truncated: the header should be " + std::to_string(headerLength) +
                                              " bytes but only " + std::to_string(size - preamble) + " follow")};
    const std::string_view text(reinterpret_cast<const char*>(bytes.data() + preamble), headerLength);
    if (text.empty() || text.back() != '\n')
        return Error{prefixed(sourceName, "the header is malformed: it does not end with a newline")};

    // 3. The dict.
    HeaderDictParser parser(text.substr(0, text.size() - 1));
    if (auto problem = parser.parse()) return Error{prefixed(sourceName, *problem)};

    NpyHeader header;
    const std::string& descr = parser.descr;
    if (!parseName(kNpyDtypeNames, descr, header.dtype)) {
        if (descr == ">f4" || descr == ">f8")
            return Error{prefixed(sourceName, "holds big-endian numbers ('" + descr +
                                                  "'); save it little-endian (array.astype('<" + descr.substr(1) +
                                                  "')) and try again")};
        return Error{
            prefixed(sourceName, "has dtype '" + descr + "', which is not supported (" + supportedDtypes() + " are)")};
    }
    if (parser.fortranOrder)
        return Error{prefixed(sourceName,
                              "is stored in Fortran (column-major) order; save it in C "
                              "order (numpy.ascontiguousarray) and try again")};
    header.shape = parser.shape;
    if (header.shape.empty())
        return Error{prefixed(sourceName,
                              "holds a single number (a 0-D array); a 1-D or 2-D array "
                              "is expected")};
    if (header.shape.size() > 2)
        return Error{prefixed(sourceName, "is a " + std::to_string(header.shape.size()) + "-D array of shape " +
                                              shapeText(header.shape) + "; a 1-D or 2-D array is expected")};

    // 4. Data size: the product, checked for overflow, must match the rest of the file.
    std::size_t count = 1;
    for (std::size_t dim : header.shape) {
        if (dim > kMaxDimension)
            return Error{prefixed(sourceName, "has an impossibly large shape " + shapeText(header.shape))};
        if (dim != 0 && count > std::numeric_limits<std::size_t>::max() / dim)
            return Error{prefixed(sourceName, "has an impossibly large shape " + shapeText(header.shape))};
        count *= dim;
    }
    const std::size_t item = npyItemSize(header.dtype);
    if (count > std::numeric_limits<std::size_t>::max() / item)
        return Error{prefixed(sourceName, "has an impossibly large shape " + shapeText(header.shape))};
    header.dataOffset = preamble + headerLength;
    header.dataBytes = count * item;
    const std::size_t available = size - header.dataOffset;
    if (available < header.dataBytes)
        return Error{prefixed(sourceName, "is truncated: shape " + shapeText(header.shape) + " of " +
                                              dtypeWords(header.dtype) + " needs " + std::to_string(header.dataBytes) +
                                              " bytes of data but the file has " + std::to_string(available))};
    if (available > header.dataBytes)
        return Error{prefixed(sourceName, "has " + std::to_string(available - header.dataBytes) +
                                              " unexpected bytes after the data of shape " + shapeText(header.shape))};
    return header;
}

Expected<NpyArray<MatrixF>> parseNpy(std::span<const std::byte> bytes, std::string_view sourceName)
{
    return decodeNpy<MatrixF>(bytes, sourceName);
}

Expected<NpyArray<MatrixD>> parseNpyDouble(std::span<const std::byte> bytes, std::string_view sourceName)
{
    return decodeNpy<MatrixD>(bytes, sourceName);
}

Expected<NpyArray<MatrixF>> readNpy(const std::string& path)
{
    auto bytes = readFileBytes(path);
    if (!bytes) return Error{bytes.error()};
    return parseNpy(std::as_bytes(std::span(*bytes)), path);
}

Expected<NpyArray<MatrixD>> readNpyDouble(const std::string& path)
{
    auto bytes = readFileBytes(path);
    if (!bytes) return Error{bytes.error()};
    return parseNpyDouble(std::as_bytes(std::span(*bytes)), path);
}

Expected<MatrixF> parseNpyMatrix(std::span<const std::byte> bytes, std::string_view sourceName)
{
    auto array = parseNpy(bytes, sourceName);
    if (!array) return Error{array.error()};
    return std::move(array->values);
}

Expected<MatrixF> readNpyMatrix(const std::string& path)
{
    auto array = readNpy(path);
    if (!array) return Error{array.error()};
    return std::move(array->values);
}

Expected<MatrixD> readNpyMatrixD(const std::string& path)
{
    auto array = readNpyDouble(path);
    if (!array) return Error{array.error()};
    return std::move(array->values);
}

std::string npyHeader(NpyDtype dtype, const std::vector<std::size_t>& shape)
{
    // The same bytes as numpy.lib.format._wrap_header: dict repr, then spaces so that
    // magic + version + length + dict + '\n' is a multiple of 64 (a full 64 when already
    // aligned, as NumPy does).
    std::string dict = "{'descr': '";
    dict += nameOf(kNpyDtypeNames, dtype);
    dict += "', 'fortran_order': False, 'shape': " + shapeText(shape) + ", }";
    constexpr std::size_t align = 64;
    auto wrap = [&](unsigned major, std::size_t lengthBytes) {
        const std::size_t unpadded = kMagicSize + 2 + lengthBytes + dict.size() + 1;
        const std::size_t pad = align - unpadded % align;
        const std::size_t headerLength = dict.size() + pad + 1;
        std::string out(kMagic, kMagicSize);
        out += static_cast<char>(major);
        out += '\0';
        for (std::size_t i = 0; i < lengthBytes; ++i) out += static_cast<char>((headerLength >> (8 * i)) & 0xff);
        out += dict;
        out.append(pad, ' ');
        out += '\n';
        return out;
    };
    std::string v1 = wrap(1, 2);
    if (v1.size() - 10 <= 0xffff) return v1;
    return wrap(2, 4);
}

Status writeNpy(const std::string& path, const MatrixF& matrix) { return writeMatrix(path, matrix, NpyDtype::Float32); }

Status writeNpy(const std::string& path, const MatrixD& matrix) { return writeMatrix(path, matrix, NpyDtype::Float64); }

}  // namespace qkv
