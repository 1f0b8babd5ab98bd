#include "core/analysis/map_pooling.hpp"

#include <string>

namespace qkv {

Expected<MatrixF> blockMeans(const MatrixF& map, Index rows, Index columns)
{
    if (rows <= 0 || columns <= 0 || rows > map.rows() || columns > map.cols())
        return Error{"cannot pool a " + std::to_string(map.rows()) + " x " + std::to_string(map.cols()) +
                     " map to " + std::to_string(rows) + " x " + std::to_string(columns) +
                     " cells: each side must be between 1 and the map's"};
    return blockMeans(map, blockEdges(map.rows(), rows), blockEdges(map.cols(), columns));  // r x c
}

BlockMeansAndMaxima blockMeansAndMaxima(const MatrixD& map, Index rows, Index columns)
{
    const std::vector<Index> rowEdges = blockEdges(map.rows(), rows), columnEdges = blockEdges(map.cols(), columns);
    return {blockMeans(map, rowEdges, columnEdges), blockMaxima(map, rowEdges, columnEdges)};  // r x c each
}

}  // namespace qkv
