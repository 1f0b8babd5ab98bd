#pragma once
// Attention rollout (Abnar and Zuidema, 2020, "Quantifying Attention Flow in Transformers",
// section 3): how much of each input token reaches each position after several layers, when
// attention is followed through the residual connections.
//
// Symbols: L self-attention layers, n tokens, h heads per layer; A_l,i the attention of head i
// in layer l (n x n, rows = queries, columns = keys); I the n x n identity.
//   mean       Ā_l = (1 / |on_l|) sum_{i on} A_l,i    over the heads that are switched on
//   residual   Â_l = D_l^-1 (Ā_l + I),  D_l = diag of the row sums of Ā_l + I
//              (the residual connection as a second, equal path: (Ā_l + I) / 2 when the rows of
//              Ā_l sum to 1; the division by the actual sum also keeps a fully masked query,
//              whose row of Ā_l is 0, at weight 1 on itself)
//   rollout    R_s = Â_s Â_{s-1} ... Â_1                                     (n x n)
// Rows of R_s are the positions after layer s, columns the input tokens; every row sums to 1.
// Layers are 0-based here: "up to layer s" includes layers 0..s.
// Switched-off (ablated) heads are left out of the mean: their output is zeroed, so no
// information flows through them. A layer whose heads are all off passes the residual stream
// alone: Â_l = I (it contributes nothing to the product).
// All in double: a product of L row-stochastic matrices; Â_l R_{l-1} costs 2 n^3 flops, shared
// by row blocks among at most threadsFor(work) threads (parallelism.hpp).

#include <vector>

#include "core/common/expected.hpp"
#include "core/common/matrix.hpp"

namespace qkv {

struct AttentionResult;

// Ā_l of one layer: the mean of the attention maps of the heads that are on (n_q x n_k, double).
// Empty (0 x 0) when every head is off: such a layer passes the residual stream alone.
MatrixD meanAttentionOfActiveHeads(const AttentionResult& attention);

// The kernel: layerMeans[l] is Ā_l (n x n, entries finite and >= 0), or an empty matrix for a
// layer whose heads are all off (then Â_l = I). lastLayer: s, 0-based, included.
// Errors: no layers, lastLayer outside [0, L), a non-square map, maps of different sizes (no
// layer non-empty gives n = 0: an error too), NaN, infinite or negative entries.
Expected<MatrixD> attentionRollout(const std::vector<MatrixD>& layerMeans, Index lastLayer);

// The rollout one layer at a time, for layers whose maps are not held together (a long prompt's
// streamed layers, streamed_layer_maps.hpp): rollout <- Â_l rollout, with rollout empty while
// every layer so far passed the residual alone (then it becomes Â_l), and `mean` Ā_l (n x n) or
// empty (Â_l = I). lowerTriangular: Ā_l and every earlier layer's are lower triangular (causal
// layers), so the rollout is too and only the blocks on and below the diagonal are multiplied:
// a sixth of the 2 n^3 flops (8,192 tokens: 0.18 instead of 1.1 TFLOP per layer); the terms
// left out are exact zeros. Errors: a mean of another size than the rollout's, or not square.
// `mean` is taken (moved in, at 8,192 tokens 512 MiB): Â_l is formed in its place.
Status foldRolloutLayer(MatrixD& rollout, MatrixD mean, bool lowerTriangular);

// Self-attention layers of one stack, in model order (layers[l] is layer l's result).
// Errors as above, and a layer that is not self-attention (n_q != n_k).
Expected<MatrixD> attentionRollout(const std::vector<const AttentionResult*>& layers, Index lastLayer);

}  // namespace qkv
