#include "core/analysis/map_pooling.hpp"

#include <string>

namespace qkv {

Expected<MatrixF> blockMeans(const MatrixF& map, Index rows, Index columns)
{
    if (rows <= 0 || columns <= 0 || rows > map.rows() || columns > map.cols())
        return Error{"cannot pool a " + std::to_string(map.rows()) + " x " + std::to_string(map.cols()) +
                     " map to " + std::to_string(rows) + " x " + std::to_string(columns) +
                     " cells: each side must be between 1 and the map's"};
    MatrixF pooled(rows, columns);  // r x c
    for (Index p = 0; p < rows; ++p) {
        const Index top = blockStart(p, rows, map.rows());
        const Index height = blockStart(p + 1, rows, map.rows()) - top;
        for (Index s = 0; s < columns; ++s) {
            const Index left = blockStart(s, columns, map.cols());
            const Index width = blockStart(s + 1, columns, map.cols()) - left;
            const double sum = map.block(top, left, height, width).cast<double>().sum();
            pooled(p, s) = static_cast<float>(sum / static_cast<double>(height * width));
        }
    }
    return pooled;
}

BlockMeansAndMaxima blockMeansAndMaxima(const MatrixD& map, Index rows, Index columns)
{
    BlockMeansAndMaxima pooled{MatrixD(rows, columns), MatrixD(rows, columns)};  // r x c each
    for (Index p = 0; p < rows; ++p) {
        const Index top = blockStart(p, rows, map.rows());
        const Index height = blockStart(p + 1, rows, map.rows()) - top;
        for (Index s = 0; s < columns; ++s) {
            const Index left = blockStart(s, columns, map.cols());
            const auto block = map.block(top, left, height, blockStart(s + 1, columns, map.cols()) - left);
            pooled.mean(p, s) = block.mean();
            pooled.max(p, s) = block.maxCoeff();
        }
    }
    return pooled;
}

}  // namespace qkv
