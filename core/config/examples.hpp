#pragma once
// Built-in examples: the window opens on one, and `qkv-studio export` uses it by default.

#include "core/config/config.hpp"

namespace qkv {

// An English source and its French translation in cross mode, d_model 64, h 4: the first
// screen already shows which sentence gives the queries and which the keys and values.
Config builtInExample();

}  // namespace qkv
