#pragma once
// The numbers of one (head, query, key) cell through the whole layer, gathered from the core's
// Result: equation (1) for head i and query i, then MultiHead (paper section 3.2.2). Nothing
// here recomputes attention: q, k (before and after rotation), the scaled score, the mask, the
// softmax row, V_i, the head output, Concat and the output row are the core's values. Only the
// parts drawn to explain a sum are formed here: q ⊙ k (sums to the raw score) and a_ij v_j
// (sums over the keys to the head output).

#include <QString>
#include <QStringList>

#include <vector>

#include "core/pipeline/compute.hpp"

namespace qkv::ui {

struct StepNumbers {
    bool valid = false;
    int head = 0, query = 0, key = 0;  // 0-based head; token positions from 0
    // Queries [query, queryEnd) together (gatherSpanStepNumbers): every per-query number below is
    // then the span's mean; query + 1 for one query.
    int queryEnd = 1;
    bool isSpan() const { return queryEnd - query > 1; }
    qkv::Index d_k = 0, d_v = 0, d_model = 0, headCount = 0;
    qkv::Index concatWidth = 0;  // h d_k: d_model unless the heads have their own width
    qkv::Index keyValueHead = 0, keyValueHeadCount = 0;  // the K/V head this query head reads (GQA)
    qkv::AttentionMode mode = qkv::AttentionMode::Cross;
    double sqrtDk = 1.0;  // what turns a scaled score back into q·k (1 without scaling)
    bool scaled = true;   // scores are divided by √d_k (false: T5 layers)
    bool rotary = false;  // q and k are rotated by position before the scores
    qkv::Index rotaryDims = 0;  // rotary: the components of a head that turn (0: all d_k; GPT-NeoX, Phi)
    double softCap = 0;         // the scores' soft cap c (Gemma 2): the softmax reads c tanh(s / c); 0: none
    bool hasBias = false;
    bool queryKeyNorm = false;  // q and k RMS-normalised with learned scales (Qwen3) before any rotation
    QString queryLabel, keyLabel;
    QStringList queryLabels, keyLabels;
    std::vector<float> q;                // Q_i row `query`, d_k entries (after rotation when rotary)
    std::vector<float> k;                // K_i row `key`, d_k entries (after rotation when rotary)
    std::vector<float> qBeforeRotation;  // rotary only: as projected; else empty
    std::vector<float> kBeforeRotation;
    std::vector<float> products;  // q ⊙ k (display: sums to the raw score)
    double dotProduct = 0;        // raw score q·k = scaled score x sqrtDk
    double scaledScore = 0;       // scores_i(query, key), core
    double cappedScore = 0;       // what the softmax reads: c tanh(scaledScore / c), or scaledScore without a cap
    bool masked = false;          // this key is hidden from this query
    bool rowFullyMasked = false;
    std::vector<bool> keyMasked;           // n_k: which keys this query cannot see
    std::vector<float> rowScores;          // scaled (and capped) scores of the row, masked entries -inf (what softmax sees)
    std::vector<float> rowWeights;         // A_i row `query` (core)
    double weight = 0;                     // A_i(query, key), core
    qkv::MatrixF values;                   // V_i, n_k x d_k (core)
    std::vector<float> v;                  // v_j = V_i row `key`, d_k entries (core)
    qkv::MatrixF weightedValues;           // row j = a_ij v_j, n_k x d_k (display: sums to the head output)
    std::vector<float> contributionNorms;  // |a_ij v_j| per key (display)
    std::vector<float> headOutput;         // head_i row `query` = Σ_j a_ij v_j, d_k entries (core)
    bool headAblated = false;              // this head is switched off
    std::vector<bool> ablated;             // h entries
    std::vector<float> concat;             // Concat row `query` as fed to W^O: h d_k, ablated blocks 0
    std::vector<float> output;             // Output row `query` = Concat W^O + b^O, d_model (core)
};

StepNumbers gatherStepNumbers(const qkv::Result& result, int head, int query, int key);

// Several queries [first, end) through the layer together: each per-query number is the mean
// over the span. Before the softmax the mean is of linear steps, so it is the step of the mean
// query q̄ = mean q_i (its raw score q̄·k is the mean raw score); the weights are the mean of the
// queries' softmax rows (the span's mean attention row, core/analysis/span_row.hpp), which is not
// the softmax of the mean scores; what follows is linear again (the head output, Concat and the
// output are their mean rows). A key is masked when no query of the span sees it. One query:
// gatherStepNumbers.
StepNumbers gatherSpanStepNumbers(const qkv::Result& result, int head, int first, int end, int key);

}  // namespace qkv::ui
