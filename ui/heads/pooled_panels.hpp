#pragma once
// The heads figure's panels for a long layer (Result::streamed()): each head's map in blocks of
// positions (core/analysis/pooled_heads.hpp computes them; masked blocks are NaN, drawn hatched),
// with what the figure says about them: why there are none, the blocks' labels.

#include <QString>
#include <QStringList>

#include <memory>
#include <string>
#include <vector>

#include "core/common/matrix.hpp"
#include "core/result/result.hpp"

namespace qkv::ui {

struct PooledPanels {
    std::vector<std::shared_ptr<const qkv::MatrixF>> panels;  // per head, then the heads' mean when asked
    std::vector<qkv::Index> rowEdges;     // r + 1: block b holds query positions [rowEdges[b], rowEdges[b+1])
    std::vector<qkv::Index> columnEdges;  // c + 1, key positions alike
    QString error;  // why there are no panels (a quantity a long layer does not keep), or empty
};

// `maxima`: each block's largest weight, else its mean. `withAverage`: a last panel, the mean of
// the heads' panels (for means the block mean of the heads' mean map, exactly). Only attention
// weights are kept pooled; other quantities give an error naming the export that writes them.
PooledPanels pooledPanels(const qkv::Result& result, bool attentionWeights, bool maxima, bool withAverage);

// A block's label: the token where the block is one position wide, else its first position.
QStringList pooledLabels(const std::vector<qkv::Index>& edges, const std::vector<std::string>& tokens);

}  // namespace qkv::ui
