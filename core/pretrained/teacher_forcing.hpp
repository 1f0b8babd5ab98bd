#pragma once
// Teacher forcing for an encoder-decoder (BART, Marian): the decoder reads the target sentence
// shifted one place right, after the decoder's start token, so position t predicts target token
// t from the target tokens before it (Hugging Face's shift_tokens_right):
//   decoder input = [decoder_start_token_id, y_0, ..., y_{n-2}]    for the target y_0 .. y_{n-1}
// Marian starts with its pad token (decoder_start_token_id = pad_token_id), BART with </s>.

#include <cstdint>
#include <vector>

#include "core/common/expected.hpp"
#include "core/families/family_recipe.hpp"

namespace qkv {

// The decoder's input for `target` (n ids, n >= 1). Refuses a model without a decoder stack
// beside an encoder, and one whose config.json names no decoder_start_token_id.
Expected<std::vector<std::int32_t>> teacherForcedDecoderIds(const FamilyRecipe& recipe,
                                                            const std::vector<std::int32_t>& target);

}  // namespace qkv
