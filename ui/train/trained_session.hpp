#pragma once
// A trained model as document content: the session that shows one variant's attention layer
// on the held-out example the Train tab shows (qkv::trainedModelSession: its words as the
// source and target sentences, the settings the pipeline requires of a trained layer), seen
// with the document's view options.

#include <QString>

#include "core/session/session.hpp"
#include "ui/train/training_snapshot.hpp"

namespace qkv::ui {

// Variant `variant` of `snapshot`, attention layer `layer`; `view`: the document's view options.
qkv::Session trainedSession(const TrainingSnapshot& snapshot, std::size_t variant, qkv::Index layer,
                            const qkv::ViewOptions& view);

// The undo step's text for keeping it: "Keep Trained Model (trained: reverse, 2,000 steps, ...)".
QString keepDescription(const qkv::TrainedModel& model);

}  // namespace qkv::ui
