#include "core/pretrained/tensor_plan.hpp"

#include <algorithm>

#include "core/common/transpose.hpp"

namespace qkv::pretrained_detail {

using checkpoint_detail::LoadedTensors;
using checkpoint_detail::shapeText;

void TensorPlan::expect(const std::string& name, const std::vector<std::size_t>& shape, const std::string& what)
{
    const auto it = checkpoint_.tensors.find(name);
    if (it == checkpoint_.tensors.end()) {
        if (std::find(missing_.begin(), missing_.end(), name) == missing_.end()) missing_.push_back(name);
        return;
    }
    names_.insert(name);
    if (!problem_.empty() || it->second.shape == shape) return;
    problem_ = it->second.file + ": tensor '" + name + "' is " + shapeText(it->second.shape) + ", expected " +
               shapeText(shape) + " (" + what + ", d_model = " + std::to_string(recipe_.d_model) + ")";
}

void TensorPlan::requireTable(const std::string& name, std::size_t rows, const std::string& what)
{
    expect(name, {rows, static_cast<std::size_t>(recipe_.d_model)}, what);
}

void TensorPlan::requireRows(const std::string& name, std::size_t cols, const std::string& what)
{
    const auto it = checkpoint_.tensors.find(name);
    const std::size_t rows = it != checkpoint_.tensors.end() && it->second.shape.size() == 2 ? it->second.shape[0] : 1;
    expect(name, {std::max<std::size_t>(rows, 1), cols}, what);
}

void TensorPlan::requireVector(const std::string& name, std::size_t size, const std::string& what)
{
    expect(name, {size}, what);
}

void TensorPlan::requireVectorOrRow(const std::string& name, std::size_t size, const std::string& what)
{
    const auto it = checkpoint_.tensors.find(name);
    const bool row = it != checkpoint_.tensors.end() && it->second.shape.size() == 2;
    expect(name, row ? std::vector<std::size_t>{1, size} : std::vector<std::size_t>{size}, what);
}

std::string TensorPlan::normParameter(const std::string& module, const char* modern, const char* older) const
{
    const std::string name = module + "." + modern;
    if (!checkpoint_.tensors.contains(name) && checkpoint_.tensors.contains(module + "." + older))
        return module + "." + older;
    return name;
}

void TensorPlan::requireNorm(const std::string& module)
{
    const auto d = static_cast<std::size_t>(recipe_.d_model);
    expect(normParameter(module, "weight", "gamma"), {d}, "a norm's gamma");
    if (recipe_.norm == PretrainedNorm::LayerNorm) expect(normParameter(module, "bias", "beta"), {d}, "a norm's beta");
}

void TensorPlan::requireLinear(const std::string& module, std::size_t d_in, std::size_t d_out, LinearLayout layout,
                               bool withBias)
{
    const bool outByIn = layout == LinearLayout::OutByIn;
    const std::string why = outByIn ? "nn.Linear, out x in" : "Conv1D, in x out";
    expect(module + ".weight", outByIn ? std::vector<std::size_t>{d_out, d_in} : std::vector<std::size_t>{d_in, d_out},
           why);
    if (outByIn) transposed_.insert(module + ".weight");
    if (withBias && checkpoint_.tensors.contains(module + ".bias")) expect(module + ".bias", {d_out}, "a bias");
}

Status TensorPlan::check() const
{
    if (!problem_.empty()) return Error{problem_};
    if (!missing_.empty()) {
        std::string list;
        for (const std::string& name : missing_) list += (list.empty() ? "'" : ", '") + name + "'";
        return Error{checkpoint_.path + ": the " + std::string(familyName(recipe_.family)) + " model lacks " +
                     list};
    }
    return {};
}

Expected<LoadedTensors> TensorPlan::read() const
{
    if (Status checked = check(); !checked) return Error{checked.error()};
    return checkpoint_detail::readTensors(checkpoint_.tensors, names_, transposed_);
}

NormWeights TensorPlan::norm(LoadedTensors& loaded, const std::string& module) const
{
    NormWeights weights;
    weights.gamma = checkpoint_detail::asRow(loaded.at(normParameter(module, "weight", "gamma")));
    if (recipe_.normWeightOffset != 0.0f) weights.gamma.array() += recipe_.normWeightOffset;  // Gemma: 1 + w
    if (recipe_.norm == PretrainedNorm::LayerNorm)
        weights.beta = checkpoint_detail::asRow(loaded.at(normParameter(module, "bias", "beta")));
    return weights;
}

MatrixF TensorPlan::linear(LoadedTensors& loaded, const std::string& module, LinearLayout layout) const
{
    // nn.Linear weights that requireLinear asked for were read transposed; Conv1D's are x W already.
    MatrixF& stored = loaded.at(module + ".weight");
    if (layout == LinearLayout::InByOut || transposed_.contains(module + ".weight")) return std::move(stored);
    return transposed(stored);
}

RowVectorF TensorPlan::bias(LoadedTensors& loaded, const std::string& module) const
{
    const auto it = loaded.find(module + ".bias");
    return it == loaded.end() ? RowVectorF() : RowVectorF(checkpoint_detail::asRow(it->second));
}

}  // namespace qkv::pretrained_detail
