#include "core/gguf/gguf_file_type.hpp"

#include <array>
#include <map>
#include <string_view>

#include "core/gguf/gguf_types.hpp"

namespace qkv {
namespace {

// llama_ftype (llama.cpp's include/llama.h): "MOSTLY" because 1-d tensors (norms) stay F32.
// Numbers 4-6 and 33-35 were removed from llama.cpp and are not named.
struct FileTypeRow {
    std::int64_t number;
    std::string_view name;
};
constexpr std::array<FileTypeRow, 32> kFileTypes{{
    {0, "F32"},      {1, "F16"},       {2, "Q4_0"},     {3, "Q4_1"},     {7, "Q8_0"},     {8, "Q5_0"},
    {9, "Q5_1"},     {10, "Q2_K"},     {11, "Q3_K_S"},  {12, "Q3_K_M"},  {13, "Q3_K_L"},  {14, "Q4_K_S"},
    {15, "Q4_K_M"},  {16, "Q5_K_S"},   {17, "Q5_K_M"},  {18, "Q6_K"},    {19, "IQ2_XXS"}, {20, "IQ2_XS"},
    {21, "Q2_K_S"},  {22, "IQ3_XS"},   {23, "IQ3_XXS"}, {24, "IQ1_S"},   {25, "IQ4_NL"},  {26, "IQ3_S"},
    {27, "IQ3_M"},   {28, "IQ2_S"},    {29, "IQ2_M"},   {30, "IQ4_XS"},  {31, "IQ1_M"},   {32, "BF16"},
    {36, "TQ1_0"},   {37, "TQ2_0"},
}};

}  // namespace

std::string llamaFileTypeName(std::int64_t fileType)
{
    for (const FileTypeRow& row : kFileTypes)
        if (row.number == fileType) return std::string(row.name);
    return {};
}

std::string ggufQuantizationName(const GgufFile& file)
{
    if (const GgufValue* value = file.find("general.file_type"))
        if (const std::optional<std::int64_t> number = value->integer())
            if (std::string name = llamaFileTypeName(*number); !name.empty()) return name;
    // Without it (or with a number not named): the type of most bytes. A Q4_K_M file keeps some
    // tensors in Q6_K and its norms in F32, but most of its bytes are Q4_K.
    std::map<std::uint32_t, std::uint64_t> bytesByType;
    for (const GgufTensorInfo& tensor : file.tensors) bytesByType[tensor.type] += tensor.byteCount;
    std::uint32_t dominant = 0;
    std::uint64_t most = 0;
    for (const auto& [type, bytes] : bytesByType)
        if (bytes > most) dominant = type, most = bytes;
    return most == 0 ? std::string() : "mostly " + ggmlTypeName(dominant);
}

}  // namespace qkv
