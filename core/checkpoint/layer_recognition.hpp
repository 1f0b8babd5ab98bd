#pragma once
// Which module paths of a checkpoint are attention layers, of which layer family and kind, and
// the name of every projection's weight and bias, from the family table's attention columns
// (core/families/family_table.hpp; docs/checkpoints.md). Internal to core/checkpoint.

#include <map>
#include <utility>
#include <string>
#include <string_view>
#include <vector>

#include "core/checkpoint/checkpoint.hpp"
#include "core/common/expected.hpp"
#include "core/families/family_table.hpp"

namespace qkv::checkpoint_detail {

enum class Projection { Query, Key, Value, Output };

// The stored weight / bias of a projection of the layer `module` of `family`. A fused Q-K-V store
// (GPT-2's c_attn, nn.MultiheadAttention's in_proj_weight, ...) gives all three the same name.
std::string weightName(Family family, std::string_view module, Projection projection);
std::string biasName(Family family, std::string_view module, Projection projection);
// nn.MultiheadAttention's separate query weight, kept instead of in_proj_weight when kdim or
// vdim differ from embed_dim (listed, then refused by the loader with that reason).
std::string separateQueryWeightName(std::string_view module);

// The way `family`'s layers store Q, K and V (its layer family's row).
inline QkvStorage qkvStorage(Family family) { return layerFamilyRow(family).attention.storage; }

// Phi-3's qkv_proj and GPT-NeoX's query_key_value: one nn.Linear holds Q, K and V.
inline bool fusedQueryKeyValue(Family family)
{
    const QkvStorage storage = qkvStorage(family);
    return storage == QkvStorage::FusedByProjection || storage == QkvStorage::FusedPerHead;
}

// h d_k and g d_k of a fused Q-K-V weight (fusedQueryKeyValue) of `rows` rows: GPT-NeoX's are
// 3 h d_k, its heads all alike; Phi-3's d_k is config.json's head_dim or d_model / h, and K and V
// share the rows Q leaves. An error says why the rows do not divide so.
Expected<std::pair<Index, Index>> fusedQueryKeyValueWidths(Family family, Index h, Index d_model, Index rows,
                                                          const CheckpointConfig& config);

// The rows of a fused Q-K-V weight (fusedQueryKeyValue) that hold `projection` (Query, Key or
// Value), in order, for h query heads and g key/value heads of width d_k.
std::vector<Index> fusedRows(Family family, Projection projection, Index h, Index g, Index d_k);

// The layers the names show, sorted (module paths compared with layer numbers as numbers),
// index, h, g and d_model filled from the shapes, the config and `defaultHeadCount`.
std::vector<CheckpointLayer> recogniseLayers(const std::map<std::string, CheckpointTensor>& tensors,
                                             const CheckpointConfig& config, Index defaultHeadCount);

// h for a layer: the config's key for its family and stack (encoder / decoder), else
// `defaultHeadCount`, else d_model / 64 when 64 divides d_model, else 1. `fromConfig` says which.
Index layerHeadCount(const CheckpointLayer& layer, const CheckpointConfig& config, Index defaultHeadCount,
                     bool* fromConfig = nullptr);

}  // namespace qkv::checkpoint_detail
