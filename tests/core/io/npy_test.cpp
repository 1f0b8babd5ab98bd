// .npy reader and writer: NumPy's own bytes (tests/data/io, made by make_fixtures.py), round
// trips, and every way a header or data section can be wrong.

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "core/io/atomic_file.hpp"
#include "core/io/npy.hpp"
#include "core/io/io_test_support.hpp"
#include "support/matrix_assertions.hpp"

namespace qkv {
namespace {

using testing::fileBytes;
using testing::fixturePath;
using testing::ScratchDir;
using testing::toBytes;

// A version 1.0 file with the given dict text (padded like NumPy) and raw data.
std::vector<std::byte> makeNpy(const std::string& dict, const std::string& data,
                               int major = 1)
{
    const std::size_t lengthBytes = major == 1 ? 2 : 4;
    std::string header = dict;
    const std::size_t unpadded = 8 + lengthBytes + header.size() + 1;
    header.append((64 - unpadded % 64) % 64, ' ');
    header += '\n';
    std::string file = std::string("\x93NUMPY", 6);
    file += static_cast<char>(major);
    file += '\0';
    for (std::size_t i = 0; i < lengthBytes; ++i)
        file += static_cast<char>((header.size() >> (8 * i)) & 0xff);
    return toBytes(file + header + data);
}

std::string floats(std::initializer_list<float> values)
{
    std::string out(values.size() * 4, '\0');
    std::memcpy(out.data(), std::data(values), out.size());
    return out;
}

std::string parseError(const std::vector<std::byte>& bytes)
{
    return testing::refusal([](const auto& b, const std::string& name) { return parseNpyMatrix(b, name); }, bytes,
                            "test.npy");
}

TEST(npy_io, ReadsNumPyFloat32Exactly)
{
    auto array = readNpy(fixturePath("f32_2x3.npy"));
    ASSERT_TRUE(array.ok()) << array.error();
    EXPECT_EQ(array->shape, (std::vector<std::size_t>{2, 3}));
    EXPECT_EQ(array->dtype, NpyDtype::Float32);
    MatrixF expected(2, 3);
    expected << -1.0f, -0.5f, 0.0f, 0.5f, 1.0f, 1.5f;
    EXPECT_MATRIX_NEAR(array->values, expected, 0.0);
}

TEST(npy_io, ReadsVersions2And3LikeVersion1)
{
    auto v1 = readNpyMatrix(fixturePath("f32_2x3.npy"));
    ASSERT_TRUE(v1.ok()) << v1.error();
    for (const char* name : {"f32_v2.npy", "f32_v3.npy"}) {
        auto other = readNpyMatrix(fixturePath(name));
        ASSERT_TRUE(other.ok()) << other.error();
        EXPECT_MATRIX_NEAR(*other, *v1, 0.0);
    }
}

TEST(npy_io, ReadsFloat64AsDoubleExactlyAndAsFloatRounded)
{
    auto d = readNpyMatrixD(fixturePath("f64_2x2.npy"));
    ASSERT_TRUE(d.ok()) << d.error();
    MatrixD expected(2, 2);
    expected << 0.1, -2.5, 1e10, 7.0;
    EXPECT_MATRIX_NEAR(*d, expected, 0.0);

    auto f = readNpyMatrix(fixturePath("f64_2x2.npy"));
    ASSERT_TRUE(f.ok()) << f.error();
    EXPECT_EQ((*f)(0, 0), 0.1f);
    EXPECT_EQ((*f)(1, 0), 1e10f);
}

TEST(npy_io, OneDimensionalArrayIsOneRowWithItsShapeKept)
{
    auto array = readNpyDouble(fixturePath("f64_vec5.npy"));
    ASSERT_TRUE(array.ok()) << array.error();
    EXPECT_EQ(array->shape, (std::vector<std::size_t>{5}));
    EXPECT_EQ(array->dtype, NpyDtype::Float64);
    ASSERT_EQ(array->values.rows(), 1);
    ASSERT_EQ(array->values.cols(), 5);
    EXPECT_EQ(array->values(0, 0), 0.1);
    EXPECT_EQ(array->values(0, 4), 7.0);
}

TEST(npy_io, WriterProducesNumPysBytes)
{
    ScratchDir dir;
    MatrixF f(2, 3);
    f << -1.0f, -0.5f, 0.0f, 0.5f, 1.0f, 1.5f;
    ASSERT_TRUE(writeNpy(dir.file("f.npy"), f).ok());
    EXPECT_EQ(fileBytes(dir.file("f.npy")), fileBytes(fixturePath("f32_2x3.npy")));

    MatrixD d(2, 2);
    d << 0.1, -2.5, 1e10, 7.0;
    ASSERT_TRUE(writeNpy(dir.file("d.npy"), d).ok());
    EXPECT_EQ(fileBytes(dir.file("d.npy")), fileBytes(fixturePath("f64_2x2.npy")));
}

TEST(npy_io, RoundTripsRandomMatricesBitForBit)
{
    ScratchDir dir;
    std::mt19937 rng(7);
    std::normal_distribution<double> normal(0.0, 100.0);
    for (int trial = 0; trial < 20; ++trial) {
        const Index rows = 1 + trial % 5, cols = 1 + (trial * 7) % 11;
        MatrixD d(rows, cols);
        for (Index i = 0; i < d.size(); ++i) d.data()[i] = normal(rng);
        const MatrixF f = d.cast<float>();
        ASSERT_TRUE(writeNpy(dir.file("f.npy"), f).ok());
        ASSERT_TRUE(writeNpy(dir.file("d.npy"), d).ok());
        auto f2 = readNpyMatrix(dir.file("f.npy"));
        auto d2 = readNpyMatrixD(dir.file("d.npy"));
        ASSERT_TRUE(f2.ok()) << f2.error();
        ASSERT_TRUE(d2.ok()) << d2.error();
        EXPECT_MATRIX_NEAR(*f2, f, 0.0);
        EXPECT_MATRIX_NEAR(*d2, d, 0.0);
    }
    EXPECT_EQ(dir.entries().size(), 2u);  // no temporary files left behind
}

TEST(npy_io, EmptyMatrixRoundTrips)
{
    ScratchDir dir;
    MatrixF empty(0, 3);
    ASSERT_TRUE(writeNpy(dir.file("e.npy"), empty).ok());
    auto back = readNpy(dir.file("e.npy"));
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_EQ(back->shape, (std::vector<std::size_t>{0, 3}));
    EXPECT_EQ(back->values.rows(), 0);
    EXPECT_EQ(back->values.cols(), 3);
}

TEST(npy_io, StreamingHeaderThenDataIsAValidFile)
{
    // How a (h x n_q x n_k) array is written head by head; here (2 x 3) row by row.
    for (const std::vector<std::size_t>& shape :
         {std::vector<std::size_t>{2, 3}, {6}, {}, {16, 2048, 2048}}) {
        const std::string header = npyHeader(NpyDtype::Float32, shape);
        EXPECT_EQ(header.size() % 64, 0u);
        EXPECT_EQ(header.back(), '\n');
        EXPECT_EQ(header.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
    }
    ScratchDir dir;
    AtomicFile file;
    ASSERT_TRUE(file.open(dir.file("s.npy")).ok());
    file.write(npyHeader(NpyDtype::Float64, {2, 3}));
    for (int row = 0; row < 2; ++row) {
        const double values[3] = {row + 0.25, row + 0.5, row + 0.75};
        file.write(values, sizeof(values));
    }
    ASSERT_TRUE(file.commit().ok());
    auto m = readNpyMatrixD(dir.file("s.npy"));
    ASSERT_TRUE(m.ok()) << m.error();
    MatrixD expected(2, 3);
    expected << 0.25, 0.5, 0.75, 1.25, 1.5, 1.75;
    EXPECT_MATRIX_NEAR(*m, expected, 0.0);
}

TEST(npy_io, HeaderOfNumPyShapeSyntax)
{
    EXPECT_NE(npyHeader(NpyDtype::Float32, {6}).find("'shape': (6,), }"), std::string::npos);
    EXPECT_NE(npyHeader(NpyDtype::Float64, {2, 3}).find("{'descr': '<f8', 'fortran_order': False, "
                                                        "'shape': (2, 3), }"),
              std::string::npos);
    EXPECT_NE(npyHeader(NpyDtype::Float32, {}).find("'shape': (), }"), std::string::npos);
}

TEST(npy_io, AcceptsAnyLegalPythonSpellingOfTheDict)
{
    const std::string data = floats({1.0f, 2.0f});
    for (const std::string& dict :
         {std::string("{\"descr\":\"<f4\",\"shape\":(1,2),\"fortran_order\":False}"),
          std::string("{ 'shape' : ( 1 , 2 , ) , 'fortran_order' : False , 'descr' : '<f4' , }"),
          std::string("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}")}) {
        auto m = parseNpyMatrix(makeNpy(dict, data), "ok.npy");
        ASSERT_TRUE(m.ok()) << dict << ": " << m.error();
        EXPECT_EQ(m->size(), 2);
        EXPECT_EQ((*m)(0, 1), 2.0f);
    }
}

TEST(npy_io, RefusesFortranOrderBigEndianAndOtherDtypesByName)
{
    auto fortran = readNpyMatrix(fixturePath("f32_fortran.npy"));
    ASSERT_FALSE(fortran.ok());
    EXPECT_NE(fortran.error().find("f32_fortran.npy: "), std::string::npos);
    EXPECT_NE(fortran.error().find("Fortran"), std::string::npos) << fortran.error();

    auto big = readNpyMatrix(fixturePath("f32_bigendian.npy"));
    ASSERT_FALSE(big.ok());
    EXPECT_NE(big.error().find("big-endian"), std::string::npos) << big.error();
    EXPECT_NE(big.error().find("'>f4'"), std::string::npos) << big.error();

    auto ints = readNpyMatrix(fixturePath("i64_2x2.npy"));
    ASSERT_FALSE(ints.ok());
    EXPECT_NE(ints.error().find("'<i8'"), std::string::npos) << ints.error();
}

TEST(npy_io, RefusesNaNAndInfWithTheirPosition)
{
    auto nan = readNpyMatrix(fixturePath("f32_nan.npy"));
    ASSERT_FALSE(nan.ok());
    EXPECT_NE(nan.error().find("row 1, column 2"), std::string::npos) << nan.error();
    EXPECT_NE(nan.error().find("NaN"), std::string::npos) << nan.error();

    const float inf = std::numeric_limits<float>::infinity();
    std::string data = floats({1.0f, 2.0f, -inf});
    const std::string e = parseError(makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", data));
    EXPECT_NE(e.find("index 2"), std::string::npos) << e;
    EXPECT_NE(e.find("-Inf"), std::string::npos) << e;
}

TEST(npy_io, Float64TooLargeForFloatIsRefusedOnlyWhenNarrowing)
{
    const double big = 1e300;
    std::string data(8, '\0');
    std::memcpy(data.data(), &big, 8);
    const auto bytes = makeNpy("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1), }", data);
    EXPECT_NE(parseError(bytes).find("too large for float32"), std::string::npos);
    auto d = parseNpyDouble(bytes, "test.npy");
    ASSERT_TRUE(d.ok()) << d.error();
    EXPECT_EQ(d->values(0, 0), 1e300);
}

struct BadHeader {
    std::string dict;
    std::string expectedWords;
};

TEST(npy_io, RefusesMalformedHeadersWithAReason)
{
    const std::string data = floats({1.0f, 2.0f});
    const std::vector<BadHeader> cases = {
        {"{'descr': '<f4', 'fortran_order': False}", "no 'shape'"},
        {"{'descr': '<f4', 'shape': (2,)}", "no 'fortran_order'"},
        {"{'fortran_order': False, 'shape': (2,)}", "no 'descr'"},
        {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", "twice"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}", "unexpected key 'extra'"},
        {"{'descr': '<f4', 'fortran_order': false, 'shape': (2,)}", "True or False"},
        {"{'descr': '<f4', 'fortran_order': Falsey, 'shape': (2,)}", "True or False"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2)}", "(n,)"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}", "non-negative"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (02,)}", "leading zero"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': [2]}", "tuple"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x", "after '}'"},
        {"{'descr': '<f4' 'fortran_order': False, 'shape': (2,)}", "expected ',' or '}'"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,)", "expected"},
        {"{'descr: '<f4', 'fortran_order': False, 'shape': (2,)}", "expected ':'"},
        {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,)}", "dtype string"},
        {"['descr', '<f4']", "does not start with '{'"},
        {"", "does not start with '{'"},
        {"{'descr': '<f2', 'fortran_order': False, 'shape': (2,)}", "'<f2'"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': ()}", "0-D"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 2)}", "3-D"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,)}", "truncated"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", "unexpected bytes"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}", "too large"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296)}", "impossibly large"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (0, 3000000000)}", "impossibly large"},
    };
    for (const BadHeader& c : cases) {
        const std::string e = parseError(makeNpy(c.dict, data));
        EXPECT_NE(e.find(c.expectedWords), std::string::npos)
            << "header " << c.dict << "\n gave: " << e;
    }
}

TEST(npy_io, RefusesBadPreambles)
{
    const auto good = makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                              floats({1.0f, 2.0f}));
    ASSERT_TRUE(parseNpyMatrix(good, "good.npy").ok());

    EXPECT_NE(parseError({}).find("empty"), std::string::npos);
    EXPECT_NE(parseError(toBytes("PK\x03\x04 not an npy at all")).find("not a NumPy .npy file"),
              std::string::npos);
    auto version = good;
    version[6] = std::byte{4};
    EXPECT_NE(parseError(version).find("version 4.0"), std::string::npos);
    auto minor = good;
    minor[7] = std::byte{1};
    EXPECT_NE(parseError(minor).find("version 1.1"), std::string::npos);
    auto longHeader = good;
    longHeader[9] = std::byte{0x7f};  // header length far beyond the file
    EXPECT_NE(parseError(longHeader).find("truncated"), std::string::npos);
    auto noNewline = good;
    const std::size_t headerEnd = 10 + (std::to_integer<std::size_t>(good[8]) |
                                        std::to_integer<std::size_t>(good[9]) << 8);
    noNewline[headerEnd - 1] = std::byte{' '};
    EXPECT_NE(parseError(noNewline).find("newline"), std::string::npos);

    // Version 2.0 (4-byte header length) is read too.
    auto v2 = makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                      floats({1.0f, 2.0f}), 2);
    EXPECT_TRUE(parseNpyMatrix(v2, "v2.npy").ok());
}

TEST(npy_io, FileErrorsNameTheFile)
{
    ScratchDir dir;
    auto missing = readNpyMatrix(dir.file("missing.npy"));
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().find("missing.npy"), std::string::npos);
    auto folder = readNpyMatrix(dir.file(""));
    ASSERT_FALSE(folder.ok());
    EXPECT_NE(folder.error().find("folder"), std::string::npos) << folder.error();

    const Status noFolder = writeNpy(dir.file("no/such/folder/x.npy"), MatrixF::Zero(2, 2));
    ASSERT_FALSE(noFolder.ok());
    EXPECT_NE(noFolder.error().find("x.npy"), std::string::npos);
    EXPECT_TRUE(dir.entries().empty());
}

}  // namespace
}  // namespace qkv
