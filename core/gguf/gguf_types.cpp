#include "core/gguf/gguf_types.hpp"

#include <array>
#include <string_view>

namespace qkv {
namespace {

struct TypeRow {
    std::uint32_t type;
    std::string_view name;
    std::size_t blockValues;  // 0: named only, not decoded
    std::size_t blockBytes;
};

// ggml's numbering (include/ggml.h). Rows with blockValues 0 are known to ggml but not decoded
// here: a file with such a tensor is refused by the type's name.
constexpr std::array<TypeRow, 28> kTypes{{
    {0, "F32", 1, 4},       {1, "F16", 1, 2},       {2, "Q4_0", 32, 18},   {3, "Q4_1", 32, 20},
    {6, "Q5_0", 32, 22},    {7, "Q5_1", 32, 24},    {8, "Q8_0", 32, 34},   {9, "Q8_1", 0, 0},
    {10, "Q2_K", 256, 84},  {11, "Q3_K", 256, 110}, {12, "Q4_K", 256, 144}, {13, "Q5_K", 256, 176},
    {14, "Q6_K", 256, 210}, {15, "Q8_K", 0, 0},     {16, "IQ2_XXS", 0, 0}, {17, "IQ2_XS", 0, 0},
    {18, "IQ3_XXS", 0, 0},  {19, "IQ1_S", 0, 0},    {20, "IQ4_NL", 0, 0},  {21, "IQ3_S", 0, 0},
    {22, "IQ2_S", 0, 0},    {23, "IQ4_XS", 0, 0},   {24, "I8", 0, 0},      {25, "I16", 0, 0},
    {26, "I32", 0, 0},      {27, "I64", 0, 0},      {28, "F64", 0, 0},     {30, "BF16", 1, 2},
}};

const TypeRow* rowOf(std::uint32_t type)
{
    for (const TypeRow& row : kTypes)
        if (row.type == type) return &row;
    return nullptr;
}

}  // namespace

std::optional<GgmlTypeLayout> ggmlTypeLayout(std::uint32_t type)
{
    const TypeRow* row = rowOf(type);
    if (!row || row->blockValues == 0) return std::nullopt;
    return GgmlTypeLayout{row->blockValues, row->blockBytes};
}

std::string ggmlTypeName(std::uint32_t type)
{
    const TypeRow* row = rowOf(type);
    if (!row) return "unknown type " + std::to_string(type);
    if (row->blockValues == 0) return "type " + std::to_string(type) + " (" + std::string(row->name) + ")";
    return std::string(row->name);
}

}  // namespace qkv
