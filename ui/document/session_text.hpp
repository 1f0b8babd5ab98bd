#pragma once
// What a session's settings mean, in words for the controls and the heads' titles: where the
// weights come from, whether the seed and init fields apply, why the token-embedding scale is
// not the paper's 1. Pure functions of the session.

#include <QString>
#include <QStringList>

#include "core/session/session.hpp"

namespace qkv::ui {

// One title per head of `session.config` (qkv::headOriginText: "same meaning", "edited",
// "from file", "random"; a low-rank head adds its r).
QStringList headTitles(const qkv::Session& session);

// Where the current weights come from, one line per fact: generated from seed S or the file
// (and layer), edited heads, presets, switched-off heads, settings that differ from the paper
// because of presets, user embeddings.
QStringList weightsOriginLines(const qkv::Session& session);

// When the seed does not apply (fully or in part), why; empty when it applies fully.
QString seedNote(const qkv::Session& session);
// When the initialisation does not apply, why; empty when it applies.
QString initNote(const qkv::Session& session);
// Why the token-embedding scale is not the paper's 1 (which presets set it); empty at 1.
QString tokenScaleNote(const qkv::Config& config);

// What applying a scenario `after` to `before` replaces, as one sentence: "It replaced your source
// and target sentences and changed the mode (self → cross), d_model (64 → 512) and the head
// presets."; empty when it changes nothing the user set.
QString scenarioChanges(const qkv::Session& before, const qkv::Session& after);

// "head 2", "heads 1, 3 and 4" (numbered from 1).
QString headList(const std::vector<qkv::Index>& heads);

}  // namespace qkv::ui
