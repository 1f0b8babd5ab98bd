#pragma once
// The first layer's input X as a pretrained model builds it from its own token ids.
//
// Symbols: n tokens, d_model columns, V rows of the token table, P rows of the position table.
//   BERT  (Devlin et al. 2019, section 3, "Input/Output Representations"; Hugging Face
//         BertEmbeddings): X = LayerNorm(E_word[ids] + E_pos[0..n-1] + E_type[0]), eps from the
//         config's layer_norm_eps (1e-12).
//   GPT-2 (Radford et al. 2019; Hugging Face GPT2Model): h_0 = W_te[ids] + W_pe[0..n-1], and the
//         first attention layer reads X = ln_1(h_0), eps from layer_norm_epsilon (1e-5).
// LayerNorm is core/ops/layer_norm.hpp's layerNormRows: the sums and the normalisation run in
// double; X is stored as float (attention runs in float).
//
// The tables are taken as they lie in memory (a MatrixF, or an Eigen::Map over a checkpoint's
// float32 data), row-major, one row per token id or position.

#include <cstdint>
#include <span>

#include <Eigen/Core>

#include "core/common/expected.hpp"
#include "core/common/matrix.hpp"
#include "core/ops/layer_norm.hpp"

namespace qkv {

using EmbeddingTable = Eigen::Ref<const MatrixF>;  // rows x d_model, row-major

// BERT: X = LayerNorm(wordEmbeddings[ids] + positionEmbeddings[0..n-1] + tokenTypeEmbeddings[0]).
// n x d_model.
Expected<MatrixF> bertModelInput(std::span<const std::int32_t> ids, const EmbeddingTable& wordEmbeddings,
                                 const EmbeddingTable& positionEmbeddings,
                                 const EmbeddingTable& tokenTypeEmbeddings, const LayerNormParameters& embeddingNorm);

// GPT-2: X = ln_1(wte[ids] + wpe[0..n-1]). n x d_model.
Expected<MatrixF> gpt2ModelInput(std::span<const std::int32_t> ids, const EmbeddingTable& tokenEmbeddings,
                                 const EmbeddingTable& positionEmbeddings, const LayerNormParameters& ln1);

// What both build on: X = LayerNorm(tokenTable[ids] + positionTable[firstPosition + t] (+ extraRow)),
// t = 0..n-1. `extraRow` (1 x d_model) may be null. firstPosition is 0 for BERT and GPT-2 (RoBERTa
// counts from 2). Validates before computing:
//   - ids: at least one, each in [0, tokenTable.rows()) ("token 3 has id 40000, but the token
//     embeddings have 30522 rows");
//   - positions: "the sentence has N tokens; this model's positions go up to M";
//   - shapes: every table, gamma and beta have d_model columns; epsilon is finite and > 0;
//   - the result is finite (a NaN in a table is reported with its token).
Expected<MatrixF> normalizedEmbeddingSum(std::span<const std::int32_t> ids, const EmbeddingTable& tokenTable,
                                         const EmbeddingTable& positionTable, Index firstPosition,
                                         const RowVectorF* extraRow, const LayerNormParameters& norm);

}  // namespace qkv
