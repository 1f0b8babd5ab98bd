#include "core/common/shape_text.hpp"

namespace qkv {

std::string shapeText(Index rows, Index cols) { return std::to_string(rows) + " x " + std::to_string(cols); }

}  // namespace qkv
