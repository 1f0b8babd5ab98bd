#include "core/io/weights_file.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <set>

#include "core/common/limits.hpp"
#include "core/io/npy.hpp"

namespace qkv {

namespace {

// Symbols: d = d_model.
constexpr std::array<const char*, 4> kOurMatrices = {"W_Q", "W_K", "W_V", "W_O"};
constexpr std::array<const char*, 4> kOurBiases = {"b_Q", "b_K", "b_V", "b_O"};
// Names of nn.MultiheadAttention's state dict (after the prefix).
constexpr std::string_view kInProjWeight = "in_proj_weight";
constexpr std::string_view kInProjBias = "in_proj_bias";
constexpr std::string_view kOutProjWeight = "out_proj.weight";
constexpr std::string_view kOutProjBias = "out_proj.bias";
constexpr std::array<std::string_view, 5> kUnsupportedPyTorch = {
    "q_proj_weight", "k_proj_weight", "v_proj_weight", "bias_k", "bias_v"};

std::string prefixed(std::string_view sourceName, const std::string& what)
{
    return std::string(sourceName) + ": " + what;
}

bool endsWithName(std::string_view name, std::string_view suffix)
{
    if (name == suffix) return true;
    return name.size() > suffix.size() && name.ends_with(suffix) &&
           name[name.size() - suffix.size() - 1] == '.';
}

std::string describeShape(const std::vector<std::size_t>& shape)
{
    if (shape.empty()) return "a single number";
    if (shape.size() == 1) return "a vector of " + std::to_string(shape[0]) + " values";
    std::string text;
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i > 0) text += "x";
        text += std::to_string(shape[i]);
    }
    return text;
}

std::string joinQuoted(const std::vector<std::string>& names)
{
    std::string text;
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (i > 0) text += ", ";
        text += "'" + names[i] + "'";
    }
    return text;
}

std::string positionText(const Tensor& tensor, std::size_t index)
{
    if (tensor.shape.size() == 2)
        return "row " + std::to_string(index / tensor.shape[1]) + ", column " +
               std::to_string(index % tensor.shape[1]);
    return "index " + std::to_string(index);
}

// Explains the first value of `tensor` that is not finite as a float (NaN, Inf, or an F64
// value beyond float's range), naming the tensor and the position in the file's layout.
Error nonFiniteError(const Tensor& tensor, std::string_view sourceName)
{
    const std::size_t count = tensor.elementCount();
    for (std::size_t i = 0; i < count; ++i) {
        const double value = tensor.valueAt(i);
        if (std::isnan(value))
            return Error{prefixed(sourceName, "tensor '" + tensor.name + "' has a NaN at " +
                                                  positionText(tensor, i))};
        if (std::isinf(value))
            return Error{prefixed(sourceName, "tensor '" + tensor.name + "' has " +
                                                  (value > 0 ? "+Inf" : "-Inf") + " at " +
                                                  positionText(tensor, i))};
        if (!std::isfinite(static_cast<float>(value)))
            return Error{prefixed(sourceName, "tensor '" + tensor.name + "' has the value " +
                                                  std::to_string(value) + " at " +
                                                  positionText(tensor, i) +
                                                  ", too large for float32")};
    }
    return Error{prefixed(sourceName, "tensor '" + tensor.name + "' has a value that is not finite")};
}

template <class Source>
void narrow(const std::byte* bytes, float* out, std::size_t count)
{
    for (std::size_t i = 0; i < count; ++i) {
        Source value;
        std::memcpy(&value, bytes + i * sizeof(Source), sizeof(Source));
        out[i] = static_cast<float>(value);
    }
}

// The tensor's values in C order as a rows x cols float matrix (rows * cols ==
// elementCount(), checked by the caller), or an error when one of them is not a finite float.
Expected<MatrixF> toMatrix(const Tensor& tensor, Index rows, Index cols, std::string_view sourceName)
{
    MatrixF matrix(rows, cols);
    const auto count = static_cast<std::size_t>(matrix.size());
    const std::byte* bytes = tensor.data.data();
    float* out = matrix.data();
    switch (tensor.dtype) {
    case TensorDtype::F32:
        if (count > 0) std::memcpy(out, bytes, count * sizeof(float));
        break;
    case TensorDtype::F64: narrow<double>(bytes, out, count); break;
    case TensorDtype::F16:
    case TensorDtype::BF16: {
        const bool f16 = tensor.dtype == TensorDtype::F16;
        for (std::size_t i = 0; i < count; ++i) {
            std::uint16_t bits;
            std::memcpy(&bits, bytes + 2 * i, 2);
            out[i] = f16 ? decodeFloat16(bits) : decodeBFloat16(bits);
        }
        break;
    }
    }
    // One vectorised pass; the slow search for the culprit runs only on failure.
    if (!matrix.allFinite()) return nonFiniteError(tensor, sourceName);
    return matrix;
}

// d_model from the tensor that sets it, with the common checks.
Status checkDModel(std::size_t d, const Tensor& from, std::string_view sourceName)
{
    if (d < 1)
        return Error{prefixed(sourceName, "tensor '" + from.name + "' is " +
                                              describeShape(from.shape) +
                                              "; d_model must be at least 1")};
    if (d > static_cast<std::size_t>(limits::maxDModel))
        return Error{prefixed(sourceName, "tensor '" + from.name + "' gives d_model = " +
                                              std::to_string(d) + ", more than the limit of " +
                                              std::to_string(limits::maxDModel))};
    return {};
}

Status expectShape(const Tensor& tensor, const std::vector<std::size_t>& expected, std::size_t d,
                   std::string_view sourceName)
{
    if (tensor.shape == expected) return {};
    return Error{prefixed(sourceName, "tensor '" + tensor.name + "' is " + describeShape(tensor.shape) +
                                          ", expected " + describeShape(expected) +
                                          " (d_model = " + std::to_string(d) + ")")};
}

Expected<AttentionWeights> loadOurLayout(const SafetensorsFile& file, std::string_view sourceName)
{
    std::array<const Tensor*, 4> matrices{};
    std::array<const Tensor*, 4> biases{};
    std::vector<std::string> missingMatrices, missingBiases;
    for (std::size_t i = 0; i < 4; ++i) {
        matrices[i] = file.find(kOurMatrices[i]);
        biases[i] = file.find(kOurBiases[i]);
        if (!matrices[i]) missingMatrices.push_back(kOurMatrices[i]);
        if (!biases[i]) missingBiases.push_back(kOurBiases[i]);
    }
    if (!missingMatrices.empty())
        return Error{prefixed(sourceName, "has some of W_Q, W_K, W_V, W_O but not " +
                                              joinQuoted(missingMatrices))};
    if (missingBiases.size() != 0 && missingBiases.size() != 4)
        return Error{prefixed(sourceName, "has some biases but not " + joinQuoted(missingBiases) +
                                              " (give all four of b_Q, b_K, b_V, b_O or none)")};
    const bool withBias = missingBiases.empty();

    // 1. Shapes: W_Q sets d; everything else must agree.
    const Tensor& wq = *matrices[0];
    if (wq.shape.size() != 2 || wq.shape[0] != wq.shape[1])
        return Error{prefixed(sourceName, "tensor 'W_Q' is " + describeShape(wq.shape) +
                                              "; it must be square (d_model x d_model)")};
    const std::size_t d = wq.shape[0];
    if (Status s = checkDModel(d, wq, sourceName); !s) return Error{s.error()};
    for (const Tensor* t : matrices)
        if (Status s = expectShape(*t, {d, d}, d, sourceName); !s) return Error{s.error()};
    if (withBias)
        for (const Tensor* t : biases)
            if (Status s = expectShape(*t, {d}, d, sourceName); !s) return Error{s.error()};

    // 2. Values (all converted before anything is returned: nothing is half-loaded).
    const auto n = static_cast<Index>(d);
    std::array<MatrixF, 4> m;
    for (std::size_t i = 0; i < 4; ++i) {
        auto converted = toMatrix(*matrices[i], n, n, sourceName);
        if (!converted) return Error{converted.error()};
        m[i] = std::move(*converted);
    }
    std::array<MatrixF, 4> b;
    if (withBias) {
        for (std::size_t i = 0; i < 4; ++i) {
            auto converted = toMatrix(*biases[i], 1, n, sourceName);
            if (!converted) return Error{converted.error()};
            b[i] = std::move(*converted);
        }
    }

    // 3. Assemble.
    AttentionWeights weights;
    weights.queryProjection = std::move(m[0]);
    weights.keyProjection = std::move(m[1]);
    weights.valueProjection = std::move(m[2]);
    weights.outputProjection = std::move(m[3]);
    if (withBias) {
        weights.queryBias = RowVectorF(b[0]);
        weights.keyBias = RowVectorF(b[1]);
        weights.valueBias = RowVectorF(b[2]);
        weights.outputBias = RowVectorF(b[3]);
    }
    return weights;
}

std::string joinName(std::string_view prefix, std::string_view name)
{
    if (prefix.empty()) return std::string(name);
    return std::string(prefix) + "." + std::string(name);
}

std::string prefixWords(std::string_view prefix)
{
    return prefix.empty() ? std::string("without a prefix") : "under '" + std::string(prefix) + "'";
}

Expected<AttentionWeights> loadPyTorchLayout(const SafetensorsFile& file, std::string_view prefix,
                                             std::string_view sourceName)
{
    for (std::string_view unsupported : kUnsupportedPyTorch) {
        if (file.find(joinName(prefix, unsupported))) {
            if (unsupported.starts_with("bias_"))
                return Error{prefixed(sourceName, "the attention layer " + prefixWords(prefix) +
                                                      " uses add_bias_kv (tensor '" +
                                                      joinName(prefix, unsupported) +
                                                      "'), which QKV Studio does not support")};
            return Error{prefixed(sourceName, "the attention layer " + prefixWords(prefix) +
                                                  " stores separate query/key/value weights ('" +
                                                  joinName(prefix, unsupported) +
                                                  "', used when kdim or vdim differ from "
                                                  "embed_dim), which QKV Studio does not support")};
        }
    }
    const Tensor* inWeight = file.find(joinName(prefix, kInProjWeight));
    const Tensor* outWeight = file.find(joinName(prefix, kOutProjWeight));
    const Tensor* inBias = file.find(joinName(prefix, kInProjBias));
    const Tensor* outBias = file.find(joinName(prefix, kOutProjBias));
    if (!inWeight)
        return Error{prefixed(sourceName, "has no tensor '" + joinName(prefix, kInProjWeight) + "'")};
    if (!outWeight)
        return Error{prefixed(sourceName, "has '" + inWeight->name + "' but no '" +
                                              joinName(prefix, kOutProjWeight) + "'")};
    if ((inBias == nullptr) != (outBias == nullptr))
        return Error{prefixed(sourceName, "has '" + (inBias ? inBias->name : outBias->name) +
                                              "' but no '" +
                                              joinName(prefix, inBias ? kOutProjBias : kInProjBias) +
                                              "' (give both biases or neither)")};
    const bool withBias = inBias != nullptr;

    // 1. Shapes: in_proj_weight is (3d x d) and sets d.
    if (inWeight->shape.size() != 2 || inWeight->shape[1] > inWeight->shape[0] ||
        inWeight->shape[0] != 3 * inWeight->shape[1]) {
        const std::size_t guess = inWeight->shape.size() == 2 ? inWeight->shape.back() : 0;
        return Error{prefixed(sourceName,
                              "tensor '" + inWeight->name + "' is " + describeShape(inWeight->shape) +
                                  ", expected (3 d_model) x d_model" +
                                  (guess > 0 ? ", e.g. " + std::to_string(3 * guess) + "x" +
                                                   std::to_string(guess)
                                             : std::string()))};
    }
    const std::size_t d = inWeight->shape[1];
    if (Status s = checkDModel(d, *inWeight, sourceName); !s) return Error{s.error()};
    if (Status s = expectShape(*outWeight, {d, d}, d, sourceName); !s) return Error{s.error()};
    if (withBias) {
        if (Status s = expectShape(*inBias, {3 * d}, d, sourceName); !s) return Error{s.error()};
        if (Status s = expectShape(*outBias, {d}, d, sourceName); !s) return Error{s.error()};
    }

    // 2. Values, in the file's layout (so positions in messages are the file's).
    const auto n = static_cast<Index>(d);
    auto in = toMatrix(*inWeight, 3 * n, n, sourceName);  // (3d x d)
    if (!in) return Error{in.error()};
    auto out = toMatrix(*outWeight, n, n, sourceName);    // (d x d)
    if (!out) return Error{out.error()};
    MatrixF inB, outB;
    if (withBias) {
        auto converted = toMatrix(*inBias, 1, 3 * n, sourceName);  // (1 x 3d)
        if (!converted) return Error{converted.error()};
        inB = std::move(*converted);
        converted = toMatrix(*outBias, 1, n, sourceName);  // (1 x d)
        if (!converted) return Error{converted.error()};
        outB = std::move(*converted);
    }

    // 3. Transpose from the column-vector convention (y = W x) to ours (y = x W).
    AttentionWeights weights;
    weights.queryProjection = in->middleRows(0, n).transpose();
    weights.keyProjection = in->middleRows(n, n).transpose();
    weights.valueProjection = in->middleRows(2 * n, n).transpose();
    weights.outputProjection = out->transpose();
    if (withBias) {
        weights.queryBias = RowVectorF(inB.middleCols(0, n));
        weights.keyBias = RowVectorF(inB.middleCols(n, n));
        weights.valueBias = RowVectorF(inB.middleCols(2 * n, n));
        weights.outputBias = RowVectorF(outB);
    }
    return weights;
}

bool relevantName(std::string_view name)
{
    for (const char* ours : kOurMatrices)
        if (name == ours) return true;
    for (const char* ours : kOurBiases)
        if (name == ours) return true;
    for (std::string_view suffix : {kInProjWeight, kInProjBias, kOutProjWeight, kOutProjBias})
        if (endsWithName(name, suffix)) return true;
    for (std::string_view suffix : kUnsupportedPyTorch)
        if (endsWithName(name, suffix)) return true;
    return false;
}

std::string normalisedPrefix(std::string_view prefix)
{
    while (prefix.ends_with('.')) prefix.remove_suffix(1);
    return std::string(prefix);
}

// Checks that the weights are consistent enough to be written.
Status checkWritable(const std::string& path, const AttentionWeights& weights)
{
    // The file holds the paper's four projections; a session keeps the norms of q and k.
    if (weights.hasQueryKeyNorm())
        return Error{"cannot write '" + path + "': the layer normalises q and k (q_norm, k_norm), which a weights "
                     "file does not hold; save the session instead"};
    const Index d = weights.d_model();
    for (const MatrixF* m : {&weights.queryProjection, &weights.keyProjection,
                             &weights.valueProjection, &weights.outputProjection})
        if (m->rows() != d || m->cols() != d)
            return Error{"cannot write '" + path + "': the projections are not all " +
                         std::to_string(d) + "x" + std::to_string(d)};
    const int biases = weights.queryBias.has_value() + weights.keyBias.has_value() +
                       weights.valueBias.has_value() + weights.outputBias.has_value();
    if (biases != 0 && biases != 4)
        return Error{"cannot write '" + path + "': some biases are set and others are not"};
    if (biases == 4)
        for (const auto* b : {&weights.queryBias, &weights.keyBias, &weights.valueBias,
                              &weights.outputBias})
            if ((*b)->cols() != d)
                return Error{"cannot write '" + path + "': a bias does not have d_model = " +
                             std::to_string(d) + " entries"};
    return {};
}

std::span<const float> spanOf(const RowVectorF& v)
{
    return {v.data(), static_cast<std::size_t>(v.size())};
}

}  // namespace

std::vector<std::string> multiheadAttentionPrefixes(const SafetensorsFile& file)
{
    std::set<std::string> prefixes;
    for (const Tensor& tensor : file.tensors) {
        for (std::string_view marker : {kInProjWeight, std::string_view("q_proj_weight")}) {
            if (endsWithName(tensor.name, marker)) {
                const std::size_t cut = tensor.name.size() - marker.size();
                prefixes.insert(cut == 0 ? std::string() : tensor.name.substr(0, cut - 1));
            }
        }
    }
    return {prefixes.begin(), prefixes.end()};
}

namespace {

Expected<AttentionWeights> weightsFromFile(const SafetensorsFile& file, std::string_view sourceName,
                                           std::optional<std::string_view> pytorchPrefix)
{
    // Tensors built by hand (not by the reader) could disagree with their own shape.
    for (const Tensor& tensor : file.tensors)
        if (!tensor.consistent())
            return Error{prefixed(sourceName, "tensor '" + tensor.name + "' holds " +
                                                  std::to_string(tensor.data.size()) +
                                                  " bytes, which does not match its shape")};
    const std::vector<std::string> prefixes = multiheadAttentionPrefixes(file);
    std::vector<std::string> quotedPrefixes;
    for (const std::string& p : prefixes) quotedPrefixes.push_back(p.empty() ? "(no prefix)" : p);

    if (pytorchPrefix) {
        const std::string prefix = normalisedPrefix(*pytorchPrefix);
        if (std::find(prefixes.begin(), prefixes.end(), prefix) == prefixes.end())
            return Error{prefixed(sourceName, "has no nn.MultiheadAttention layer " +
                                                  prefixWords(prefix) +
                                                  (prefixes.empty()
                                                       ? std::string(" (it has none at all)")
                                                       : " (it has: " + joinQuoted(quotedPrefixes) + ")"))};
        return loadPyTorchLayout(file, prefix, sourceName);
    }

    bool ours = false;
    for (std::size_t i = 0; i < 4; ++i)
        ours = ours || file.find(kOurMatrices[i]) || file.find(kOurBiases[i]);
    if (ours && !prefixes.empty())
        return Error{prefixed(sourceName, "holds both W_Q/W_K/W_V/W_O and PyTorch attention layers (" +
                                              joinQuoted(quotedPrefixes) +
                                              "); keep one layout in the file")};
    if (ours) return loadOurLayout(file, sourceName);
    if (prefixes.size() > 1)
        return Error{prefixed(sourceName, "holds " + std::to_string(prefixes.size()) +
                                              " attention layers (" + joinQuoted(quotedPrefixes) +
                                              "); choose one by its prefix")};
    if (prefixes.size() == 1) return loadPyTorchLayout(file, prefixes[0], sourceName);

    std::string found;
    if (!file.tensors.empty()) {
        std::vector<std::string> names;
        for (std::size_t i = 0; i < file.tensors.size() && i < 6; ++i)
            names.push_back(file.tensors[i].name);
        found = "; it holds " + joinQuoted(names) + (file.tensors.size() > 6 ? ", ..." : "");
    }
    return Error{prefixed(sourceName, "holds no attention weights: expected W_Q, W_K, W_V, W_O or "
                                      "PyTorch nn.MultiheadAttention tensors (in_proj_weight, "
                                      "out_proj.weight)" + found)};
}

}  // namespace

Expected<AttentionWeights> attentionWeightsFromSafetensors(const SafetensorsFile& file,
                                                           std::string_view sourceName,
                                                           std::optional<std::string_view> pytorchPrefix)
{
    try {
        return weightsFromFile(file, sourceName, pytorchPrefix);
    } catch (const std::bad_alloc&) {
        return Error{prefixed(sourceName, "not enough memory to hold the weights")};
    }
}

Expected<AttentionWeights> loadAttentionWeights(const std::string& path)
{
    // Only the tensors that can matter are read: a whole model's file costs one layer.
    auto file = readSafetensors(path, relevantName);
    if (!file) return Error{file.error()};
    return attentionWeightsFromSafetensors(*file, path);
}

Expected<AttentionWeights> loadAttentionWeights(const std::string& path, std::string_view pytorchPrefix)
{
    const std::string prefix = normalisedPrefix(pytorchPrefix);
    auto file = readSafetensors(path, [&](std::string_view name) {
        return relevantName(name) && name.starts_with(prefix);
    });
    if (!file) return Error{file.error()};
    return attentionWeightsFromSafetensors(*file, path, prefix);
}

Status saveAttentionWeights(const std::string& path, const AttentionWeights& weights)
{
    if (Status s = checkWritable(path, weights); !s) return s;
    SafetensorsFile file;
    file.metadata["format"] = "qkv-studio";
    file.metadata["convention"] = "row vectors: Q = X W_Q + b_Q (docs/architecture.md, Numerical conventions)";
    file.tensors.push_back(Tensor::fromMatrix("W_Q", weights.queryProjection));
    file.tensors.push_back(Tensor::fromMatrix("W_K", weights.keyProjection));
    file.tensors.push_back(Tensor::fromMatrix("W_V", weights.valueProjection));
    file.tensors.push_back(Tensor::fromMatrix("W_O", weights.outputProjection));
    if (weights.hasBias()) {
        file.tensors.push_back(Tensor::fromVector("b_Q", spanOf(*weights.queryBias)));
        file.tensors.push_back(Tensor::fromVector("b_K", spanOf(*weights.keyBias)));
        file.tensors.push_back(Tensor::fromVector("b_V", spanOf(*weights.valueBias)));
        file.tensors.push_back(Tensor::fromVector("b_O", spanOf(*weights.outputBias)));
    }
    return writeSafetensors(path, file);
}

Status savePyTorchMultiheadAttention(const std::string& path, const AttentionWeights& weights,
                                     std::string_view prefix)
{
    if (Status s = checkWritable(path, weights); !s) return s;
    const std::string p = normalisedPrefix(prefix);
    const Index d = weights.d_model();
    // in_proj_weight = [W_Q^T; W_K^T; W_V^T], (3d x d)
    MatrixF in(3 * d, d);
    in.middleRows(0, d) = weights.queryProjection.transpose();
    in.middleRows(d, d) = weights.keyProjection.transpose();
    in.middleRows(2 * d, d) = weights.valueProjection.transpose();
    const MatrixF out = weights.outputProjection.transpose();  // (d x d)

    SafetensorsFile file;
    file.tensors.push_back(Tensor::fromMatrix(joinName(p, kInProjWeight), in));
    file.tensors.push_back(Tensor::fromMatrix(joinName(p, kOutProjWeight), out));
    if (weights.hasBias()) {
        RowVectorF bias(3 * d);  // [b_Q b_K b_V], (3d)
        bias << *weights.queryBias, *weights.keyBias, *weights.valueBias;
        file.tensors.push_back(Tensor::fromVector(joinName(p, kInProjBias), spanOf(bias)));
        file.tensors.push_back(Tensor::fromVector(joinName(p, kOutProjBias), spanOf(*weights.outputBias)));
    }
    return writeSafetensors(path, file);
}

Expected<MatrixF> loadEmbeddingMatrix(const std::string& path)
{
    auto array = readNpy(path);
    if (!array) return Error{array.error()};
    if (array->shape.size() != 2)
        return Error{prefixed(path, "is a 1-D array of " + std::to_string(array->shape[0]) +
                                        " values; embeddings need a 2-D array (n_tokens x d_model), "
                                        "one row per token")};
    if (array->values.rows() == 0 || array->values.cols() == 0)
        return Error{prefixed(path, "is empty (" + std::to_string(array->values.rows()) + "x" +
                                        std::to_string(array->values.cols()) +
                                        "); embeddings need at least one token and one column")};
    return std::move(array->values);
}

}  // namespace qkv
