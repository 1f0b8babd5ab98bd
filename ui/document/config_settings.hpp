#pragma once
// The last configuration, kept in QSettings between runs.

#include "core/config/config.hpp"

namespace qkv::ui {

// The built-in example the window opens on: an English sentence and its French translation in
// cross mode (from core when available).
qkv::Config defaultConfig();
// The configuration saved by saveLastConfig(), or `fallback` when none was saved.
qkv::Config loadLastConfig(const qkv::Config& fallback);
void saveLastConfig(const qkv::Config& config);

}  // namespace qkv::ui
