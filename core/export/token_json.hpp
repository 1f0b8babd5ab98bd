#pragma once
// How the whole-model export writes a vocabulary token (docs/formats.md, "Whole model"): its id
// and its entry as the tokenizer lists it, or null for an id the tokenizer lacks; and each
// position's most likely tokens, the shape "predictions" and "logit_lens" share.

#include <cstdint>
#include <string>
#include <vector>

#include "core/export/json_stream.hpp"
#include "core/pipeline/model_predictions.hpp"

namespace qkv {

// "token": pieces[id], or null when the id is outside `pieces` or its entry is empty.
void writeTokenPiece(JsonStream& json, const std::vector<std::string>& pieces, std::int32_t id);

// [{position, top: [{id, token, probability}]}], one object per position, a line each.
void writePositionsTop(JsonStream& json, const std::vector<std::string>& pieces,
                       const std::vector<PositionPredictions>& positions);

}  // namespace qkv
