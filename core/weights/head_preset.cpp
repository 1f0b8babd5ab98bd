#include "core/weights/head_preset.hpp"

namespace qkv {

std::string_view presetName(HeadPresetKind kind) { return nameOf(kHeadPresetNames, kind); }

std::string_view presetTitle(HeadPresetKind kind)
{
    const HeadPresetNames* entry = entryOf(kHeadPresetNames, kind);
    return entry ? entry->title : std::string_view();
}

std::optional<HeadPresetKind> parsePresetName(std::string_view name) { return parseName(kHeadPresetNames, name); }

const std::vector<HeadPresetKind>& allPresetKinds()
{
    static const std::vector<HeadPresetKind> kinds = [] {
        std::vector<HeadPresetKind> all;
        for (const HeadPresetNames& p : kHeadPresetNames) all.push_back(p.value);
        return all;
    }();
    return kinds;
}

}  // namespace qkv
