// Attention weights from safetensors in our layout and in PyTorch's nn.MultiheadAttention
// layout (docs/architecture.md, "Numerical conventions" and "Files users exchange"), and embeddings from .npy.

#include <cmath>
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "core/io/npy.hpp"
#include "core/io/safetensors.hpp"
#include "core/io/weights_file.hpp"
#include "core/io/io_test_support.hpp"
#include "support/matrix_assertions.hpp"

namespace qkv {
namespace {

using testing::fixturePath;
using testing::ScratchDir;

// Random weights, d x d, independent of the weights module (which other people write).
AttentionWeights randomWeights(Index d, unsigned seed, bool withBias)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    auto matrix = [&] {
        MatrixF m(d, d);
        for (Index i = 0; i < m.size(); ++i) m.data()[i] = uniform(rng);
        return m;
    };
    auto vector = [&] {
        RowVectorF v(d);
        for (Index i = 0; i < d; ++i) v[i] = uniform(rng);
        return v;
    };
    AttentionWeights w;
    w.queryProjection = matrix();
    w.keyProjection = matrix();
    w.valueProjection = matrix();
    w.outputProjection = matrix();
    if (withBias) {
        w.queryBias = vector();
        w.keyBias = vector();
        w.valueBias = vector();
        w.outputBias = vector();
    }
    return w;
}

void expectSameWeights(const AttentionWeights& a, const AttentionWeights& b)
{
    EXPECT_MATRIX_NEAR(a.queryProjection, b.queryProjection, 0.0);
    EXPECT_MATRIX_NEAR(a.keyProjection, b.keyProjection, 0.0);
    EXPECT_MATRIX_NEAR(a.valueProjection, b.valueProjection, 0.0);
    EXPECT_MATRIX_NEAR(a.outputProjection, b.outputProjection, 0.0);
    ASSERT_EQ(a.hasBias(), b.hasBias());
    ASSERT_EQ(a.keyBias.has_value(), b.keyBias.has_value());
    if (a.hasBias()) {
        EXPECT_MATRIX_NEAR(*a.queryBias, *b.queryBias, 0.0);
        EXPECT_MATRIX_NEAR(*a.keyBias, *b.keyBias, 0.0);
        EXPECT_MATRIX_NEAR(*a.valueBias, *b.valueBias, 0.0);
        EXPECT_MATRIX_NEAR(*a.outputBias, *b.outputBias, 0.0);
    }
}

// A file of the given tensors, then the loader's error for it.
std::string loadError(const SafetensorsFile& file, std::optional<std::string_view> prefix = std::nullopt)
{
    auto result = attentionWeightsFromSafetensors(file, "w.safetensors", prefix);
    EXPECT_FALSE(result.ok());
    if (result.ok()) return "";
    EXPECT_EQ(result.error().rfind("w.safetensors: ", 0), 0u) << result.error();
    return result.error();
}

SafetensorsFile ourLayout(const AttentionWeights& w)
{
    SafetensorsFile file;
    file.tensors.push_back(Tensor::fromMatrix("W_Q", w.queryProjection));
    file.tensors.push_back(Tensor::fromMatrix("W_K", w.keyProjection));
    file.tensors.push_back(Tensor::fromMatrix("W_V", w.valueProjection));
    file.tensors.push_back(Tensor::fromMatrix("W_O", w.outputProjection));
    if (w.hasBias()) {
        auto span = [](const RowVectorF& v) { return std::span<const float>(v.data(), v.size()); };
        file.tensors.push_back(Tensor::fromVector("b_Q", span(*w.queryBias)));
        file.tensors.push_back(Tensor::fromVector("b_K", span(*w.keyBias)));
        file.tensors.push_back(Tensor::fromVector("b_V", span(*w.valueBias)));
        file.tensors.push_back(Tensor::fromVector("b_O", span(*w.outputBias)));
    }
    return file;
}

void removeTensor(SafetensorsFile& file, std::string_view name)
{
    std::erase_if(file.tensors, [&](const Tensor& t) { return t.name == name; });
}

Tensor* findMutable(SafetensorsFile& file, std::string_view name)
{
    for (Tensor& t : file.tensors)
        if (t.name == name) return &t;
    return nullptr;
}

TEST(weights_file_io, LoadsOurLayoutWrittenByPython)
{
    auto w = loadAttentionWeights(fixturePath("weights_ours.safetensors"));
    ASSERT_TRUE(w.ok()) << w.error();
    auto golden = readNpyMatrix(fixturePath("weights_ours_golden.npy"));
    ASSERT_TRUE(golden.ok()) << golden.error();
    ASSERT_EQ(w->d_model(), 4);
    ASSERT_TRUE(w->hasBias());
    EXPECT_MATRIX_NEAR(w->queryProjection, golden->middleRows(0, 4), 0.0);
    EXPECT_MATRIX_NEAR(w->keyProjection, golden->middleRows(4, 4), 0.0);
    EXPECT_MATRIX_NEAR(w->valueProjection, golden->middleRows(8, 4), 0.0);
    EXPECT_MATRIX_NEAR(w->outputProjection, golden->middleRows(12, 4), 0.0);
    EXPECT_MATRIX_NEAR(*w->queryBias, golden->row(16), 0.0);
    EXPECT_MATRIX_NEAR(*w->outputBias, golden->row(19), 0.0);
}

TEST(weights_file_io, PyTorchLayoutGivesTheProjectionsNumPyComputes)
{
    // Golden: NumPy's x @ in_proj_weight[0:d].T + in_proj_bias[0:d] (what F.linear does) etc.
    auto x = readNpyMatrix(fixturePath("mha_input.npy"));
    auto golden = readNpyMatrixD(fixturePath("mha_golden.npy"));
    ASSERT_TRUE(x.ok() && golden.ok());
    for (const std::optional<std::string_view> prefix :
         {std::optional<std::string_view>{}, std::optional<std::string_view>{"encoder.layers.0.self_attn"},
          std::optional<std::string_view>{"encoder.layers.0.self_attn."}}) {
        auto w = prefix ? loadAttentionWeights(fixturePath("mha_pytorch.safetensors"), *prefix)
                        : loadAttentionWeights(fixturePath("mha_pytorch.safetensors"));
        ASSERT_TRUE(w.ok()) << w.error();
        ASSERT_EQ(w->d_model(), 4);
        const Index n = x->rows();
        const MatrixF q = (*x * w->queryProjection).rowwise() + *w->queryBias;
        const MatrixF k = (*x * w->keyProjection).rowwise() + *w->keyBias;
        const MatrixF v = (*x * w->valueProjection).rowwise() + *w->valueBias;
        const MatrixF o = (*x * w->outputProjection).rowwise() + *w->outputBias;
        EXPECT_MATRIX_NEAR(q, golden->middleRows(0, n), 1e-5);
        EXPECT_MATRIX_NEAR(k, golden->middleRows(n, n), 1e-5);
        EXPECT_MATRIX_NEAR(v, golden->middleRows(2 * n, n), 1e-5);
        EXPECT_MATRIX_NEAR(o, golden->middleRows(3 * n, n), 1e-5);
    }
}

TEST(weights_file_io, PyTorchImportEqualsOurLayoutExactly)
{
    ScratchDir dir;
    for (bool withBias : {true, false}) {
        for (const char* prefix : {"", "layers.3.self_attn", "module."}) {
            const AttentionWeights original = randomWeights(8, withBias ? 1 : 2, withBias);
            ASSERT_TRUE(saveAttentionWeights(dir.file("ours.safetensors"), original).ok());
            ASSERT_TRUE(
                savePyTorchMultiheadAttention(dir.file("torch.safetensors"), original, prefix).ok());
            auto ours = loadAttentionWeights(dir.file("ours.safetensors"));
            auto torch = loadAttentionWeights(dir.file("torch.safetensors"));
            ASSERT_TRUE(ours.ok()) << ours.error();
            ASSERT_TRUE(torch.ok()) << torch.error();
            expectSameWeights(*ours, original);
            expectSameWeights(*torch, *ours);
        }
    }
}

TEST(weights_file_io, PyTorchFileHasTheTransposedLayout)
{
    // Independent of the loader: the file's in_proj_weight rows [d, 2d) are W_K transposed.
    ScratchDir dir;
    const AttentionWeights w = randomWeights(3, 5, true);
    ASSERT_TRUE(savePyTorchMultiheadAttention(dir.file("t.safetensors"), w, "attn").ok());
    auto file = readSafetensors(dir.file("t.safetensors"));
    ASSERT_TRUE(file.ok()) << file.error();
    const Tensor* in = file->find("attn.in_proj_weight");
    const Tensor* out = file->find("attn.out_proj.weight");
    const Tensor* inBias = file->find("attn.in_proj_bias");
    ASSERT_TRUE(in && out && inBias && file->find("attn.out_proj.bias"));
    EXPECT_EQ(in->shape, (std::vector<std::size_t>{9, 3}));
    // in_proj_weight[d + i][j] = W_K[j][i]
    for (Index i = 0; i < 3; ++i)
        for (Index j = 0; j < 3; ++j) {
            EXPECT_EQ(in->valueAt(static_cast<std::size_t>((3 + i) * 3 + j)), w.keyProjection(j, i));
            EXPECT_EQ(out->valueAt(static_cast<std::size_t>(i * 3 + j)), w.outputProjection(j, i));
        }
    EXPECT_EQ(inBias->valueAt(7), (*w.valueBias)[1]);
}

TEST(weights_file_io, SeveralLayersNeedAPrefix)
{
    ScratchDir dir;
    const AttentionWeights a = randomWeights(4, 10, true);
    const AttentionWeights b = randomWeights(4, 11, false);
    ASSERT_TRUE(savePyTorchMultiheadAttention(dir.file("a.safetensors"), a, "layers.0.attn").ok());
    ASSERT_TRUE(savePyTorchMultiheadAttention(dir.file("b.safetensors"), b, "layers.1.attn").ok());
    auto fa = readSafetensors(dir.file("a.safetensors"));
    auto fb = readSafetensors(dir.file("b.safetensors"));
    ASSERT_TRUE(fa.ok() && fb.ok());
    SafetensorsFile both = *fa;
    for (const Tensor& t : fb->tensors) both.tensors.push_back(t);
    ASSERT_TRUE(writeSafetensors(dir.file("both.safetensors"), both).ok());

    auto ambiguous = loadAttentionWeights(dir.file("both.safetensors"));
    ASSERT_FALSE(ambiguous.ok());
    EXPECT_NE(ambiguous.error().find("2 attention layers ('layers.0.attn', 'layers.1.attn')"),
              std::string::npos)
        << ambiguous.error();
    EXPECT_EQ(multiheadAttentionPrefixes(both),
              (std::vector<std::string>{"layers.0.attn", "layers.1.attn"}));

    auto second = loadAttentionWeights(dir.file("both.safetensors"), "layers.1.attn");
    ASSERT_TRUE(second.ok()) << second.error();
    expectSameWeights(*second, b);
    auto first = loadAttentionWeights(dir.file("both.safetensors"), "layers.0.attn.");
    ASSERT_TRUE(first.ok()) << first.error();
    expectSameWeights(*first, a);

    auto wrong = loadAttentionWeights(dir.file("both.safetensors"), "layers.2.attn");
    ASSERT_FALSE(wrong.ok());
    EXPECT_NE(wrong.error().find("no nn.MultiheadAttention layer under 'layers.2.attn'"),
              std::string::npos)
        << wrong.error();
    // A prefix that only matches the start of a name is not a layer.
    EXPECT_FALSE(loadAttentionWeights(dir.file("both.safetensors"), "layers.0").ok());
}

TEST(weights_file_io, RefusesBothLayoutsInOneFile)
{
    SafetensorsFile file = ourLayout(randomWeights(2, 3, false));
    file.tensors.push_back(Tensor::fromMatrix("in_proj_weight", MatrixF::Zero(6, 2)));
    file.tensors.push_back(Tensor::fromMatrix("out_proj.weight", MatrixF::Zero(2, 2)));
    EXPECT_NE(loadError(file).find("both"), std::string::npos);
    // An explicit prefix chooses the PyTorch layer.
    EXPECT_TRUE(attentionWeightsFromSafetensors(file, "w", "").ok());
}

TEST(weights_file_io, RefusesPartialSetsNamingWhatIsMissing)
{
    SafetensorsFile noKey = ourLayout(randomWeights(4, 1, true));
    removeTensor(noKey, "W_K");
    removeTensor(noKey, "W_O");
    EXPECT_NE(loadError(noKey).find("not 'W_K', 'W_O'"), std::string::npos) << loadError(noKey);

    SafetensorsFile partialBias = ourLayout(randomWeights(4, 1, true));
    removeTensor(partialBias, "b_V");
    const std::string e = loadError(partialBias);
    EXPECT_NE(e.find("'b_V'"), std::string::npos) << e;
    EXPECT_NE(e.find("all four"), std::string::npos) << e;

    SafetensorsFile onlyBias;
    onlyBias.tensors.push_back(Tensor::fromMatrix("b_Q", MatrixF::Zero(1, 4)));
    EXPECT_NE(loadError(onlyBias).find("'W_Q', 'W_K', 'W_V', 'W_O'"), std::string::npos);

    ScratchDir dir;
    ASSERT_TRUE(savePyTorchMultiheadAttention(dir.file("t.safetensors"), randomWeights(4, 2, true), "p").ok());
    auto torch = readSafetensors(dir.file("t.safetensors"));
    ASSERT_TRUE(torch.ok());
    SafetensorsFile noOutBias = *torch;
    removeTensor(noOutBias, "p.out_proj.bias");
    EXPECT_NE(loadError(noOutBias).find("no 'p.out_proj.bias'"), std::string::npos) << loadError(noOutBias);
    SafetensorsFile noOut = *torch;
    removeTensor(noOut, "p.out_proj.weight");
    EXPECT_NE(loadError(noOut).find("no 'p.out_proj.weight'"), std::string::npos);
}

TEST(weights_file_io, RefusesWrongShapesWithBothShapes)
{
    SafetensorsFile wrongKey = ourLayout(randomWeights(4, 1, true));
    *findMutable(wrongKey, "W_K") = Tensor::fromMatrix("W_K", MatrixF::Zero(4, 2));
    EXPECT_NE(loadError(wrongKey).find("tensor 'W_K' is 4x2, expected 4x4 (d_model = 4)"),
              std::string::npos)
        << loadError(wrongKey);

    SafetensorsFile notSquare = ourLayout(randomWeights(4, 1, false));
    *findMutable(notSquare, "W_Q") = Tensor::fromMatrix("W_Q", MatrixF::Zero(4, 3));
    EXPECT_NE(loadError(notSquare).find("'W_Q' is 4x3; it must be square"), std::string::npos);

    SafetensorsFile empty = ourLayout(randomWeights(4, 1, false));
    for (Tensor& t : empty.tensors) t = Tensor::fromMatrix(t.name, MatrixF(0, 0));
    EXPECT_NE(loadError(empty).find("at least 1"), std::string::npos);

    SafetensorsFile badBias = ourLayout(randomWeights(4, 1, true));
    *findMutable(badBias, "b_O") = Tensor::fromMatrix("b_O", MatrixF::Zero(1, 4));
    EXPECT_NE(loadError(badBias).find("'b_O' is 1x4, expected a vector of 4 values"),
              std::string::npos)
        << loadError(badBias);

    SafetensorsFile torch;
    torch.tensors.push_back(Tensor::fromMatrix("in_proj_weight", MatrixF::Zero(10, 4)));
    torch.tensors.push_back(Tensor::fromMatrix("out_proj.weight", MatrixF::Zero(4, 4)));
    EXPECT_NE(loadError(torch).find("'in_proj_weight' is 10x4, expected (3 d_model) x d_model, e.g. 12x4"),
              std::string::npos)
        << loadError(torch);
    torch.tensors[0] = Tensor::fromMatrix("in_proj_weight", MatrixF::Zero(12, 4));
    torch.tensors[1] = Tensor::fromMatrix("out_proj.weight", MatrixF::Zero(4, 5));
    EXPECT_NE(loadError(torch).find("'out_proj.weight' is 4x5, expected 4x4"), std::string::npos);
}

TEST(weights_file_io, RefusesNonFiniteValuesNamingTensorAndPosition)
{
    SafetensorsFile nan = ourLayout(randomWeights(4, 1, true));
    MatrixF v = MatrixF::Ones(4, 4);
    v(2, 3) = std::numeric_limits<float>::quiet_NaN();
    *findMutable(nan, "W_V") = Tensor::fromMatrix("W_V", v);
    EXPECT_NE(loadError(nan).find("tensor 'W_V' has a NaN at row 2, column 3"), std::string::npos)
        << loadError(nan);

    SafetensorsFile inf = ourLayout(randomWeights(4, 1, true));
    Tensor bias;  // F16 [0, +Inf, 0, 0]
    bias.name = "b_K";
    bias.dtype = TensorDtype::F16;
    bias.shape = {4};
    bias.data.assign(8, std::byte{0});
    bias.data[2] = std::byte{0x00};
    bias.data[3] = std::byte{0x7C};
    *findMutable(inf, "b_K") = bias;
    EXPECT_NE(loadError(inf).find("tensor 'b_K' has +Inf at index 1"), std::string::npos)
        << loadError(inf);

    SafetensorsFile big = ourLayout(randomWeights(2, 1, false));
    MatrixD o = MatrixD::Zero(2, 2);
    o(1, 0) = -1e300;
    *findMutable(big, "W_O") = Tensor::fromMatrix("W_O", o);
    EXPECT_NE(loadError(big).find("too large for float32"), std::string::npos) << loadError(big);
}

TEST(weights_file_io, LoadsHalfPrecisionWeights)
{
    // F16 and BF16 hold small multiples of 1/4 exactly.
    SafetensorsFile file;
    const char* names[] = {"W_Q", "W_K", "W_V", "W_O"};
    for (int k = 0; k < 4; ++k) {
        Tensor t;
        t.name = names[k];
        t.dtype = k % 2 == 0 ? TensorDtype::F16 : TensorDtype::BF16;
        t.shape = {2, 2};
        // F16 0x3400 = 0.25, BF16 0x3E80 = 0.25; 0xC000 = -2 in both.
        const std::uint16_t quarter = t.dtype == TensorDtype::F16 ? 0x3400 : 0x3E80;
        const std::uint16_t bits[4] = {quarter, 0xC000, 0x0000, quarter};
        for (std::uint16_t b : bits) {
            t.data.push_back(static_cast<std::byte>(b & 0xff));
            t.data.push_back(static_cast<std::byte>(b >> 8));
        }
        file.tensors.push_back(t);
    }
    auto w = attentionWeightsFromSafetensors(file, "half");
    ASSERT_TRUE(w.ok()) << w.error();
    MatrixF expected(2, 2);
    expected << 0.25f, -2.0f, 0.0f, 0.25f;
    EXPECT_MATRIX_NEAR(w->queryProjection, expected, 0.0);
    EXPECT_MATRIX_NEAR(w->keyProjection, expected, 0.0);
    EXPECT_FALSE(w->hasBias());
}

TEST(weights_file_io, RefusesPyTorchVariantsItCannotShow)
{
    SafetensorsFile kv;
    kv.tensors.push_back(Tensor::fromMatrix("a.in_proj_weight", MatrixF::Zero(6, 2)));
    kv.tensors.push_back(Tensor::fromMatrix("a.out_proj.weight", MatrixF::Zero(2, 2)));
    kv.tensors.push_back(Tensor::fromMatrix("a.bias_k", MatrixF::Zero(1, 2)));
    EXPECT_NE(loadError(kv).find("add_bias_kv"), std::string::npos);

    SafetensorsFile separate;
    separate.tensors.push_back(Tensor::fromMatrix("q_proj_weight", MatrixF::Zero(2, 2)));
    separate.tensors.push_back(Tensor::fromMatrix("k_proj_weight", MatrixF::Zero(2, 3)));
    separate.tensors.push_back(Tensor::fromMatrix("out_proj.weight", MatrixF::Zero(2, 2)));
    EXPECT_NE(loadError(separate).find("separate query/key/value"), std::string::npos)
        << loadError(separate);

    SafetensorsFile nothing;
    nothing.tensors.push_back(Tensor::fromMatrix("linear.weight", MatrixF::Zero(2, 2)));
    const std::string e = loadError(nothing);
    EXPECT_NE(e.find("no attention weights"), std::string::npos) << e;
    EXPECT_NE(e.find("'linear.weight'"), std::string::npos) << e;
}

TEST(weights_file_io, RefusesHandBuiltTensorsThatDisagreeWithTheirShape)
{
    SafetensorsFile file = ourLayout(randomWeights(4, 1, false));
    findMutable(file, "W_V")->data.resize(8);  // 2 floats for a 4x4 shape
    EXPECT_NE(loadError(file).find("tensor 'W_V' holds 8 bytes"), std::string::npos) << loadError(file);
    findMutable(file, "W_V")->shape = {std::size_t{1} << 40, std::size_t{1} << 40};
    EXPECT_NE(loadError(file).find("does not match its shape"), std::string::npos);
}

TEST(weights_file_io, FileLevelErrorsNameTheFile)
{
    ScratchDir dir;
    auto missing = loadAttentionWeights(dir.file("nope.safetensors"));
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().find("nope.safetensors"), std::string::npos);

    ASSERT_TRUE(writeNpy(dir.file("m.npy"), MatrixF::Zero(2, 2)).ok());
    auto notSafetensors = loadAttentionWeights(dir.file("m.npy"));
    ASSERT_FALSE(notSafetensors.ok());
    EXPECT_NE(notSafetensors.error().find("m.npy: "), std::string::npos) << notSafetensors.error();

    AttentionWeights inconsistent = randomWeights(4, 1, true);
    inconsistent.valueBias.reset();
    EXPECT_NE(saveAttentionWeights(dir.file("x.safetensors"), inconsistent).error().find("some biases"),
              std::string::npos);
    inconsistent = randomWeights(4, 1, false);
    inconsistent.keyProjection = MatrixF::Zero(4, 3);
    EXPECT_FALSE(savePyTorchMultiheadAttention(dir.file("x.safetensors"), inconsistent).ok());
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"m.npy"});
}

TEST(weights_file_io, EmbeddingMatrixMustBeTwoDimensionalAndNonEmpty)
{
    auto ok = loadEmbeddingMatrix(fixturePath("f32_2x3.npy"));
    ASSERT_TRUE(ok.ok()) << ok.error();
    EXPECT_EQ(ok->rows(), 2);
    EXPECT_EQ(ok->cols(), 3);

    auto vector = loadEmbeddingMatrix(fixturePath("f64_vec5.npy"));
    ASSERT_FALSE(vector.ok());
    EXPECT_NE(vector.error().find("1-D array of 5 values"), std::string::npos) << vector.error();

    ScratchDir dir;
    ASSERT_TRUE(writeNpy(dir.file("empty.npy"), MatrixF(0, 8)).ok());
    auto empty = loadEmbeddingMatrix(dir.file("empty.npy"));
    ASSERT_FALSE(empty.ok());
    EXPECT_NE(empty.error().find("empty.npy: is empty (0x8)"), std::string::npos) << empty.error();

    auto nan = loadEmbeddingMatrix(fixturePath("f32_nan.npy"));
    ASSERT_FALSE(nan.ok());
    EXPECT_NE(nan.error().find("f32_nan.npy"), std::string::npos);
}

}  // namespace
}  // namespace qkv
