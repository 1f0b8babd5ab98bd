#include "core/families/family_recipe.hpp"

#include <string>

namespace qkv {

std::string recipeSummary(const FamilyRecipe& recipe)
{
    std::string text = recipe.norm == PretrainedNorm::None ? "no norms"
                       : recipe.placement == NormPlacement::Post ? "post-"
                                                                 : "pre-";
    if (recipe.norm != PretrainedNorm::None) text += recipe.norm == PretrainedNorm::RmsNorm ? "RMSNorm" : "LayerNorm";
    std::string_view act = "swiglu";
    for (const auto& entry : kActivationSpellings)
        if (entry.value == recipe.activation) {
            act = entry.name;
            break;
        }
    text += recipe.d_ff == 0 ? std::string(", attention only (no MLP)") : ", " + std::string(act);
    switch (recipe.positions) {
    case PretrainedPositions::Learned:
        text += ", learned positions";
        if (recipe.positionOffset > 0) text += " from row " + std::to_string(recipe.positionOffset);
        break;
    case PretrainedPositions::Rotary: text += ", rotary positions"; break;
    case PretrainedPositions::Sinusoidal: text += ", sinusoidal positions"; break;
    case PretrainedPositions::None: text += ", no positions"; break;
    }
    switch (recipe.readout) {
    case ReadoutKind::None: text += ", no readout"; break;
    case ReadoutKind::MaskedLm: text += ", masked-LM head"; break;
    case ReadoutKind::CausalLm: text += ", LM head"; break;
    }
    if (recipe.readout != ReadoutKind::None)
        text += recipe.tiedReadout ? " tied to the token embeddings" : " with its own weights";
    return text;
}

}  // namespace qkv
