#pragma once
// Which tensors a part of the model needs, their expected shapes, then their values: every name
// and shape is checked from the headers before a byte is read, and a problem names the file and
// the tensor. Internal to core/pretrained.

#include <set>
#include <string>
#include <vector>

#include "core/modelfiles/tensor_reading.hpp"
#include "core/families/family_recipe.hpp"
#include "core/pretrained/pretrained_model.hpp"

namespace qkv::pretrained_detail {

class TensorPlan {
public:
    TensorPlan(const Checkpoint& checkpoint, const FamilyRecipe& recipe) : checkpoint_(checkpoint), recipe_(recipe) {}

    // A table of exactly rows x d_model.
    void requireTable(const std::string& name, std::size_t rows, const std::string& what);
    // Any number of rows, `cols` columns.
    void requireRows(const std::string& name, std::size_t cols, const std::string& what);
    void requireVector(const std::string& name, std::size_t size, const std::string& what);
    // A vector stored as (size) or as one row (1, size), such as BART's final_logits_bias.
    void requireVectorOrRow(const std::string& name, std::size_t size, const std::string& what);
    // A norm module: weight (or gamma), and for LayerNorm bias (or beta), d_model each.
    void requireNorm(const std::string& module);
    // A linear module d_in -> d_out stored in `layout`; its bias is read when present.
    void requireLinear(const std::string& module, std::size_t d_in, std::size_t d_out, LinearLayout layout,
                       bool withBias = true);

    // The first shape problem, else every missing tensor (from the headers: no value is read).
    Status check() const;
    // check(), then the values (readTensors: only
    // their bytes, checked finite).
    Expected<checkpoint_detail::LoadedTensors> read() const;

    NormWeights norm(checkpoint_detail::LoadedTensors& loaded, const std::string& module) const;
    // The weight in x W form: d_in x d_out (an nn.Linear weight transposed).
    MatrixF linear(checkpoint_detail::LoadedTensors& loaded, const std::string& module, LinearLayout layout) const;
    // The bias (1 x d_out), or empty when the file has none.
    RowVectorF bias(checkpoint_detail::LoadedTensors& loaded, const std::string& module) const;

private:
    void expect(const std::string& name, const std::vector<std::size_t>& shape, const std::string& what);
    // module + ".weight", or the older module + ".gamma" when only that is stored.
    std::string normParameter(const std::string& module, const char* modern, const char* older) const;

    const Checkpoint& checkpoint_;
    const FamilyRecipe& recipe_;
    std::set<std::string> names_;
    std::set<std::string> transposed_;  // nn.Linear weights, read straight into x W form
    std::vector<std::string> missing_;
    std::string problem_;
};

}  // namespace qkv::pretrained_detail
