#include "core/pretrained/marian_positions.hpp"

#include <cmath>

namespace qkv {

MatrixF marianSinusoidalPositions(Index positions, Index d_model)
{
    MatrixF table(positions, d_model);  // P x d_model
    const Index sinColumns = (d_model + 1) / 2;  // c = ceil(d_model / 2)
    const double dimension = static_cast<double>(d_model);
    for (Index pos = 0; pos < positions; ++pos) {
        for (Index j = 0; j < d_model; ++j) {
            const bool isSin = j < sinColumns;
            const Index pair = isSin ? j : j - sinColumns;  // the frequency's index
            const double angle = static_cast<double>(pos) / std::pow(10000.0, 2.0 * static_cast<double>(pair) / dimension);
            table(pos, j) = static_cast<float>(isSin ? std::sin(angle) : std::cos(angle));
        }
    }
    return table;
}

}  // namespace qkv
