#include "core/families/family_table.hpp"

#include <utility>
#include <vector>

namespace qkv {

namespace {

// "encoder" or "decoder": BART's and Marian's names for the stacks.
std::string_view stackName(ModelStack stack) { return stack == ModelStack::Encoder ? "encoder" : "decoder"; }

// Each pattern of a row with the column it stands in, for messages.
struct Column {
    std::string_view pattern;
    std::string_view name;
    bool required;
};

std::vector<Column> blockColumns(const FamilyRow& row)
{
    const bool twoStacks = row.stacks == FamilyStacks::EncoderDecoder;
    const BlockPatterns& b = row.block;
    // Each sublayer has a norm before it, after it, or on its output (OLMo 2 has only the last).
    const bool attentionOutputNorm = !b.attentionOutputNorm.empty();
    const bool feedForwardOutputNorm = !b.feedForwardOutputNorm.empty();
    return {{b.attention, "block.attention", true},
            {b.attentionNorm, "block.attentionNorm", !attentionOutputNorm},
            {b.attentionOutputNorm, "block.attentionOutputNorm", false},
            {b.crossAttention, "block.crossAttention", twoStacks},
            {b.crossAttentionNorm, "block.crossAttentionNorm", twoStacks},
            {b.feedForwardIn, "block.feedForwardIn", b.feedForwardGateUp.empty()},
            {b.feedForwardGate, "block.feedForwardGate", false},
            {b.feedForwardGateUp, "block.feedForwardGateUp", false},
            {b.feedForwardOut, "block.feedForwardOut", true},
            {b.feedForwardNorm, "block.feedForwardNorm", !feedForwardOutputNorm},
            {b.feedForwardOutputNorm, "block.feedForwardOutputNorm", false}};
}

std::vector<Column> otherColumns(const FamilyRow& row)
{
    const bool maskedLm = row.readoutKind == ReadoutKind::MaskedLm;
    return {{row.embeddings.tokens, "embeddings.tokens", true},
            {row.embeddings.positions, "embeddings.positions", false},
            {row.embeddings.tokenTypes, "embeddings.tokenTypes", false},
            {row.embeddings.norm, "embeddings.norm", false},
            {row.finalNorm, "finalNorm", false},
            {row.readout.transform, "readout.transform", maskedLm},
            {row.readout.transformNorm, "readout.transformNorm", maskedLm},
            {row.readout.decoder, "readout.decoder", row.readoutKind != ReadoutKind::None},
            {row.readout.bias, "readout.bias", false}};
}

// Empty when `pattern` uses only the placeholders its column may; else what is wrong.
std::string placeholderProblem(std::string_view pattern, bool block, bool twoStacks)
{
    for (std::size_t at = pattern.find('{'); at != std::string_view::npos; at = pattern.find('{', at + 1)) {
        const std::string_view rest = pattern.substr(at);
        if (!rest.starts_with("{p}") && !rest.starts_with("{s}") && !rest.starts_with("{b}"))
            return "an unknown placeholder (known: {p}, {s}, {b})";
    }
    if (block && pattern.find("{b}") == std::string_view::npos) return "no {b} (the block number)";
    if (!block && pattern.find("{b}") != std::string_view::npos) return "{b}, but it is not a block's tensor";
    if (!twoStacks && pattern.find("{s}") != std::string_view::npos) return "{s}, but the family has one stack";
    return {};
}

void replaceAll(std::string& text, std::string_view placeholder, std::string_view value)
{
    for (std::size_t at = text.find(placeholder); at != std::string::npos;
         at = text.find(placeholder, at + value.size()))
        text.replace(at, placeholder.size(), value);
}

}  // namespace

const FamilyRow& familyRow(Family family)
{
    const FamilyRow* row = entryOf(kFamilyRows, family);
    return row ? *row : kFamilyRows.front();
}

const FamilyRow& layerFamilyRow(Family family) { return familyRow(familyRow(family).layers); }

const FamilyRow* familyOfModelType(std::string_view modelType)
{
    if (modelType.empty()) return nullptr;
    for (const FamilyRow& row : kFamilyRows)
        for (const std::string_view spelling : row.modelTypes)
            if (spelling == modelType) return &row;
    return nullptr;
}

std::string_view familyName(Family family) { return familyRow(family).name; }

std::string layerFamilyNames()
{
    std::string names;
    for (const FamilyRow& row : kFamilyRows)
        if (row.layers == row.value) names += (names.empty() ? "" : ", ") + std::string(layerFamilyName(row.value));
    return names;
}

std::string_view layerFamilyName(Family family)
{
    const FamilyRow& row = layerFamilyRow(family);
    return row.layerName.empty() ? row.name : row.layerName;
}

std::string tensorName(std::string_view pattern, const std::string& prefix, ModelStack stack, Index block)
{
    std::string name(pattern);
    // The prefix last: it comes from the file and is not searched for placeholders.
    replaceAll(name, "{s}", stackName(stack));
    replaceAll(name, "{b}", std::to_string(block));
    replaceAll(name, "{p}", prefix);
    return name;
}

Status checkFamilyRow(const FamilyRow& row)
{
    const std::string what = "the " + std::string(row.name) + " family's row";
    const bool layerFamily = row.layers == row.value;
    for (const std::string_view projection : row.attention.projections)
        if (layerFamily == projection.empty())
            return Error{what + (layerFamily ? " names no attention.projections (it is a layer family)"
                                             : " names attention.projections, but its layers are another row's")};
    if (!row.wholeModel) return {};  // its layers load one at a time: no model names to check
    const bool twoStacks = row.stacks == FamilyStacks::EncoderDecoder;
    for (const bool block : {true, false})
        for (const Column& column : block ? blockColumns(row) : otherColumns(row)) {
            if (column.pattern.empty()) {
                if (column.required) return Error{what + " names no " + std::string(column.name)};
                continue;
            }
            if (const std::string problem = placeholderProblem(column.pattern, block, twoStacks); !problem.empty())
                return Error{what + ": " + std::string(column.name) + " \"" + std::string(column.pattern) + "\" has " +
                             problem};
        }
    if (!row.block.attention.starts_with("{p}") || row.block.attention.find("{b}") != row.block.attention.rfind("{b}"))
        return Error{what + ": block.attention \"" + std::string(row.block.attention) +
                     "\" must start with {p} and hold one {b} (its blocks are counted from it)"};
    if (!row.block.crossAttention.empty() && !twoStacks)
        return Error{what + " names block.crossAttention, but only an encoder-decoder has one"};
    if (row.activation.empty()) return Error{what + " names no activation (config.json's default spelling)"};
    if (!row.block.feedForwardGateUp.empty() && (!row.block.feedForwardIn.empty() || !row.block.feedForwardGate.empty()))
        return Error{what + " names block.feedForwardGateUp and a separate gate or up projection"};
    if ((!row.block.attentionOutputNorm.empty() || !row.block.feedForwardOutputNorm.empty()) &&
        row.placement != NormPlacement::Pre)
        return Error{what + ": norms on a sublayer's output come with pre-norm blocks only"};
    if (row.layerCountWords[0].empty() || (twoStacks && row.layerCountWords[1].empty()))
        return Error{what + " names no layerCountWords for each of its stacks"};
    if (row.positions == PretrainedPositions::Learned && row.embeddings.positions.empty())
        return Error{what + " has learned positions but names no embeddings.positions"};
    if (row.positions == PretrainedPositions::Sinusoidal && row.positionCount <= 0)
        return Error{what + " has sinusoidal positions but no positionCount"};
    return {};
}

}  // namespace qkv
