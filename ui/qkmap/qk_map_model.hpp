#pragma once
// The Q/K map of every head: the rows of Q_i and K_i projected together
// onto the first two principal components of [Q_i; K_i], centred on their joint mean, with the
// explained variance ratio of each axis. Every number is core/analysis's qkProjection; this
// only holds them for drawing, and says which lines the selected query's attention draws.

#include <QString>

#include <memory>
#include <optional>
#include <vector>

#include "core/analysis/qk_projection.hpp"
#include "core/pipeline/compute.hpp"

namespace qkv::ui {

struct QkMapModel {
    std::shared_ptr<const qkv::Result> result;
    std::vector<std::optional<qkv::QkProjection>> heads;  // h entries; empty optional: see errors
    std::vector<QString> errors;                          // h entries; empty when the projection exists

    // Every head's projection (the heavy part: run it through a LatestTask for big layers).
    static std::shared_ptr<const QkMapModel> build(std::shared_ptr<const qkv::Result> result);
    // Rough multiply-adds of build(): h (n_q + n_k) d_k min(n_q + n_k, d_k).
    static double buildWork(const qkv::Result& result);
};

// One line from the selected query to a key: its opacity is the attention weight a_ij.
struct AttentionLine {
    qkv::Index key = 0;
    double opacity = 0;  // = A_i(query, key), in [0, 1]
};
// Every key of `query` in head `head` (masked keys have opacity 0).
std::vector<AttentionLine> attentionLines(const qkv::Result& result, qkv::Index head, qkv::Index query);

}  // namespace qkv::ui
