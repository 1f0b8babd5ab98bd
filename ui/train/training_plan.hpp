#pragma once
// What the Train tab asks for: the settings of one run, and whether to train both ways of
// forming a head's scores (factored W_i^Q, W_i^K and one full W_i) side by side, on the same
// data from the same seed, so that the two curves differ only in that.

#include <optional>
#include <string>
#include <vector>

#include "core/training/training_limits.hpp"
#include "core/training/training_run.hpp"

namespace qkv::ui {

struct TrainingPlan {
    qkv::TrainingSettings settings;  // settings.variant is the variant when not both
    bool bothVariants = false;

    // The variants to train, in the order they are shown (factored first).
    std::vector<qkv::ScoreForm> variants() const;
    // The settings of one of them.
    qkv::TrainingSettings settingsFor(qkv::ScoreForm variant) const;
    // Empty when the settings are within the training limits (core/training/training_limits.hpp);
    // else what is wrong with the first field that is not, in words.
    std::string problem() const;
    // That field and its problem, or none.
    std::optional<qkv::FieldProblem> fieldProblem() const;
};

}  // namespace qkv::ui
