#pragma once
// `qkv-studio export --weights CKPT --layer all|NAME|INDEX [--embeddings model] [--ablate L.H,...]`
// on a whole pretrained model (core/pretrained), and `--session TRAINED.qkv.json --layer all` on
// a trained model run whole (trained_model_recipe.hpp): every attention layer reads the hidden
// states the layers before it computed, and heads switched off anywhere change the layers after them.

#include <optional>
#include <string>

#include "app/export_arguments.hpp"

namespace qkv::app {

// Whether these arguments ask for the whole model: --layer all (a checkpoint's, or a session's
// trained model), or a checkpoint layer with --embeddings model or with a LAYER.HEAD in --ablate
// (a result format, not a session).
bool wantsWholeModel(const ExportArguments& args);

// Runs the export; returns the exit status (0, 1 read/compute/write failure, 2 bad argument),
// having printed one line on failure. std::nullopt: the checkpoint does not run whole, and a
// single layer was asked for with nothing that needs the whole model (the one-layer path runs).
std::optional<int> runWholeModelExport(const ExportArguments& args);

}  // namespace qkv::app
