#pragma once
// The whole-model export's circuits and head roles (docs/formats.md, "Whole model"):
//   circuits[]            one object per head of every self-attention layer (--circuits K):
//                         {layer, head, kv_head, copying_score, eigenvalues, qk, ov}
//                         (core/circuits/head_circuits.hpp)
//   layers[].heads[].roles {previous_token, induction, duplicate_token, first_token}
//                         (core/analysis/head_roles.hpp), null where undefined

#include <cstdint>
#include <vector>

#include "core/circuits/head_circuits.hpp"
#include "core/common/matrix.hpp"
#include "core/export/json_stream.hpp"

namespace qkv {

// "circuits": [...]. "layer" is the layer's `index` as layers[] write it (CheckpointLayer::index,
// as --list-layers numbers it), "head" and "kv_head" count from 1.
void writeCircuits(JsonStream& json, const PretrainedModel& model, const std::vector<HeadCircuits>& heads);

// "roles": {...} of one head: `attention` its n x n map over `tokenIds` (a self-attention
// layer's, held whole), or nullptr (cross-attention, a streamed map): every role null.
void writeHeadRoles(JsonStream& json, const MatrixF* attention, const std::vector<std::int32_t>& tokenIds);

}  // namespace qkv
