#pragma once
// What the Train tab asks for: the settings of one run, and whether to train both ways of
// forming a head's scores (factored W_i^Q, W_i^K and one full W_i) side by side, on the same
// data from the same seed, so that the two curves differ only in that.

#include <string>
#include <vector>

#include "core/training/training_run.hpp"

namespace qkv::ui {

struct TrainingPlan {
    qkv::TrainingSettings settings;  // settings.variant is the variant when not both
    bool bothVariants = false;

    // The variants to train, in the order they are shown (factored first).
    std::vector<qkv::ScoreForm> variants() const;
    // The settings of one of them.
    qkv::TrainingSettings settingsFor(qkv::ScoreForm variant) const;
    // Empty when the numbers fit together; else what is wrong, in words (the model's own check,
    // qkv::ModelSpec::problem, on the sizes the form sets).
    std::string problem() const;
};

}  // namespace qkv::ui
