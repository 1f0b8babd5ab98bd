#pragma once
// Steps 2-4 of the forward pass (scores, softmax, A_i V_j) for every head, fused over blocks of
// query rows: a block's scores and weights are still in the core's own cache when the softmax
// and the product with V_j read them, instead of a round trip through memory for each step
// (an n_q x n_k map is 16 MiB at n = 2048; a block is 1 MiB). docs/benchmarks.md has the
// measurements that chose this.
//
// Symbols as in multi_head_attention.hpp: n_q, n_k, h, d_k; head i reads key/value head j.

#include "core/attention/multi_head_attention.hpp"

namespace qkv {

// Query rows per block for n_k keys: a block of scores fills 1 MiB (16 to 1024 rows, a multiple of 4).
Index attentionBlockRows(Index n_k);

// Fills, for every head i, heads[i].attention (n_q x n_k), heads[i].scores (n_q x n_k, only when
// keepScores; else left empty), Concat's block headOutputs[:, i d_k : (i+1) d_k), and
// fullyMaskedRows. Reads query, key, value, scoreScale, grouping and mask from `result`, whose
// headOutputs must be n_q x h d_v and heads h entries. blockRows: query rows per block, 0 for
// attentionBlockRows(n_k) (tests pass small blocks to cross many block boundaries cheaply).
//
// Threads: the (head, row block) tasks are independent and shared among at most
// computeThreads() threads, each running one-threaded products (Eigen runs its products
// serially inside a team, so teams never nest). The app allows one thread; the export and the
// benchmarks Eigen's default (every core).
//
// Every weight, score and head output has the same bits however the rows are cut into blocks or
// shared among threads, and a query's row the same bits whatever keys follow its visible ones
// (head_blocks.cpp says how): a causal layer's earlier rows are a prefix's rows.
// keepWeights false: heads[i].attention is left empty (AttentionOptions::keepWeights).
void attendHeadsInRowBlocks(AttentionResult& result, bool keepScores, Index blockRows = 0, bool keepWeights = true);

// attendHeadsInRowBlocks for the query rows [firstQuery, n_q) only, into maps already n_q x n_k
// (and fullyMaskedRows' entries of those rows); the earlier rows are left as they are.
void attendQueryRows(AttentionResult& result, bool keepScores, Index firstQuery, Index blockRows = 0,
                     bool keepWeights = true);

// Kept scores (before the mask) of the first queryCount queries against the keys [firstKey, n_k):
// the same bits as attendHeadsInRowBlocks gives them. A causal layer typed on keeps its earlier
// rows, whose future keys changed.
void scoreLaterKeys(AttentionResult& result, Index queryCount, Index firstKey);

}  // namespace qkv
