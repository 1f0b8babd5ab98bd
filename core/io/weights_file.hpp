#pragma once
// Attention weights and embeddings from and to the files users exchange (docs/architecture.md, "Files users exchange").
//
// Weights are safetensors files in one of two layouts:
//  - ours: W_Q, W_K, W_V, W_O (each d_model x d_model, row-vector convention: Q = X W_Q + b_Q)
//    with optional b_Q, b_K, b_V, b_O (each of shape [d_model]; all four or none);
//  - PyTorch nn.MultiheadAttention state-dict names under any prefix ("" or e.g.
//    "layers.0.self_attn"): in_proj_weight (3 d_model x d_model, column-vector convention),
//    out_proj.weight (d_model x d_model), optional in_proj_bias (3 d_model) with
//    out_proj.bias (d_model). Then
//        W^Q = in_proj_weight[0:d]^T,  W^K = in_proj_weight[d:2d]^T,
//        W^V = in_proj_weight[2d:3d]^T, W^O = out_proj.weight^T,
//    and in_proj_bias splits into b^Q, b^K, b^V the same way.
// Any of the dtypes F32, F64, F16, BF16 is accepted; values become float and must be finite.
//
// Loading is all or nothing: a complete AttentionWeights or an error that names the file and
// the problem ("weights.safetensors: tensor 'W_K' is 64x32, expected 64x64 (d_model = 64)").

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/expected.hpp"
#include "core/common/matrix.hpp"
#include "core/io/safetensors.hpp"
#include "core/weights/attention_weights.hpp"

namespace qkv {

// Finds the layout by itself. Refuses files that hold several layers (or both layouts) and
// lists what it found; use the overload with a prefix then.
Expected<AttentionWeights> loadAttentionWeights(const std::string& path);
// Loads the PyTorch layer whose names start with `pytorchPrefix` ("layers.0.self_attn" or
// "layers.0.self_attn."; "" for names without a prefix).
Expected<AttentionWeights> loadAttentionWeights(const std::string& path,
                                                std::string_view pytorchPrefix);

// The same from an already parsed file (what the loaders and the fuzzer call). `sourceName`
// starts every message. Without a prefix the layout is detected as above.
Expected<AttentionWeights> attentionWeightsFromSafetensors(
    const SafetensorsFile& file, std::string_view sourceName,
    std::optional<std::string_view> pytorchPrefix = std::nullopt);

// The prefixes ("" for none) under which the file holds an nn.MultiheadAttention layer,
// sorted. A name "p.in_proj_weight" or "p.q_proj_weight" marks prefix "p".
std::vector<std::string> multiheadAttentionPrefixes(const SafetensorsFile& file);

// Our layout, F32, sorted names, with a little metadata ("format": "qkv-studio").
Status saveAttentionWeights(const std::string& path, const AttentionWeights& weights);
// PyTorch nn.MultiheadAttention names under `prefix` (a '.' is added unless empty), F32.
Status savePyTorchMultiheadAttention(const std::string& path, const AttentionWeights& weights,
                                     std::string_view prefix = "");

// Token embeddings (n_tokens x d_model) from a 2-D .npy file; refuses 1-D and empty arrays.
Expected<MatrixF> loadEmbeddingMatrix(const std::string& path);

}  // namespace qkv
