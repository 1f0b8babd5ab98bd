#pragma once
// The Config as JSON: the one spelling of every setting, shared by session files and the
// export's `config` object (docs/formats.md). Internal to qkv_core: it exposes nlohmann::json,
// which the rest of the program never sees.

#include <string>

#include <nlohmann/json.hpp>

#include "core/common/expected.hpp"
#include "core/config/config.hpp"

namespace qkv {

// Every field, with heads numbered from 1. Derived values (d_k, positional_encoding) are
// written for readers and ignored when read back.
nlohmann::json configToJson(const Config& config);
// Fields absent from `json` keep the defaults of a default Config; a present field of the wrong
// type or an unknown name is an error naming the field ("config.mode: 'sideways' is not one of
// self, causal, cross"). Checks spelling and types only; validateConfig checks the values.
Expected<Config> configFromJson(const nlohmann::json& json);

}  // namespace qkv
