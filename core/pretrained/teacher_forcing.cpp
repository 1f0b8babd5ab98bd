#include "core/pretrained/teacher_forcing.hpp"

#include <string>

namespace qkv {

Expected<std::vector<std::int32_t>> teacherForcedDecoderIds(const FamilyRecipe& recipe,
                                                            const std::vector<std::int32_t>& target)
{
    const std::string family(familyName(recipe.family));
    if (!recipe.encoderDecoder())
        return Error{"the " + family + " model has no encoder-decoder pair: it reads one sequence, not a target"};
    if (recipe.decoderStartTokenId < 0)
        return Error{"the " + family + " model's config.json names no decoder_start_token_id to start the target with"};
    if (target.empty()) return Error{"the target has no tokens"};
    std::vector<std::int32_t> decoderIds;
    decoderIds.reserve(target.size());
    decoderIds.push_back(static_cast<std::int32_t>(recipe.decoderStartTokenId));
    decoderIds.insert(decoderIds.end(), target.begin(), target.end() - 1);
    return decoderIds;
}

}  // namespace qkv
