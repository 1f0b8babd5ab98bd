#include "core/weights/head_preset.hpp"

#include <array>
#include <utility>

namespace qkv {

namespace {

struct PresetNames {
    HeadPresetKind kind;
    std::string_view name;   // command line, sessions, exports
    std::string_view title;  // head titles in the app
};

constexpr std::array<PresetNames, 8> kPresets{{
    {HeadPresetKind::Uniform, "uniform", "uniform"},
    {HeadPresetKind::SameToken, "same-token", "same token"},
    {HeadPresetKind::PreviousToken, "previous-token", "previous token"},
    {HeadPresetKind::NextToken, "next-token", "next token"},
    {HeadPresetKind::SamePosition, "same-position", "same position"},
    {HeadPresetKind::SameMeaning, "same-meaning", "same meaning"},
    {HeadPresetKind::LowRank, "low-rank", "low rank"},
    {HeadPresetKind::Random, "random", "random"},
}};

}  // namespace

std::string_view presetName(HeadPresetKind kind)
{
    for (const PresetNames& p : kPresets)
        if (p.kind == kind) return p.name;
    return "random";
}

std::string_view presetTitle(HeadPresetKind kind)
{
    for (const PresetNames& p : kPresets)
        if (p.kind == kind) return p.title;
    return "random";
}

std::optional<HeadPresetKind> parsePresetName(std::string_view name)
{
    for (const PresetNames& p : kPresets)
        if (p.name == name) return p.kind;
    return std::nullopt;
}

const std::vector<HeadPresetKind>& allPresetKinds()
{
    static const std::vector<HeadPresetKind> kinds = [] {
        std::vector<HeadPresetKind> all;
        for (const PresetNames& p : kPresets) all.push_back(p.kind);
        return all;
    }();
    return kinds;
}

}  // namespace qkv
