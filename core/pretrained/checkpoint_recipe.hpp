#pragma once
// The recipe of a checkpoint (core/families/family_recipe.hpp): which row of the family table it
// is, its sizes and spellings from config.json, the readout from which tensors it holds.

#include "core/checkpoint/checkpoint.hpp"
#include "core/common/expected.hpp"
#include "core/families/family_recipe.hpp"

namespace qkv {

// The recipe of a checkpoint: its family (the layers' family, model_type and the prefix of its
// names choose the row), sizes and spellings from config.json, the readout from which tensors it
// holds. Refuses families not run whole yet, activations it does not know (naming the key and
// the spellings it knows) and sizes config.json and the tensors disagree on.
Expected<FamilyRecipe> familyRecipe(const Checkpoint& checkpoint);

}  // namespace qkv
