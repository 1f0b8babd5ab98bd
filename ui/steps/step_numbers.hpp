#pragma once
// The numbers of one (head, query, key) cell, step by step, gathered from the core's Result.
// Nothing here recomputes attention: q, k, the scaled score, the mask, the softmax row and the
// head output are the core's values. Only q ⊙ k and a_j v_j (for the bars) are formed here.

#include <QString>
#include <QStringList>

#include <vector>

#include "core/pipeline/compute.hpp"

namespace qkv::ui {

struct StepNumbers {
    bool valid = false;
    int head = 0, query = 0, key = 0;
    qkv::Index d_k = 0;
    double sqrtDk = 1.0;
    QString queryLabel, keyLabel;
    QStringList keyLabels;
    std::vector<float> q;             // Q_i row `query`, d_k entries (core)
    std::vector<float> k;             // K_i row `key`, d_k entries (core)
    std::vector<float> products;      // q ⊙ k, for the bars (display only)
    double dotProduct = 0;            // q·k = scaled score x sqrt(d_k)
    double scaledScore = 0;           // scores_i(query, key), core
    bool masked = false;              // this key is hidden from this query
    bool rowFullyMasked = false;
    std::vector<float> rowScores;     // scores_i row, masked entries -inf (what softmax sees)
    std::vector<float> rowWeights;    // A_i row `query` (core)
    double weight = 0;                // A_i(query, key), core
    std::vector<float> contributionNorms;  // |a_j v_j| per key (display only)
    std::vector<float> headOutput;    // head_i row `query` = sum_j a_j v_j, d_k entries (core)
};

StepNumbers gatherStepNumbers(const qkv::Result& result, int head, int query, int key);

}  // namespace qkv::ui
