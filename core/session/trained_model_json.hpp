#pragma once
// A trained model in a session (the "model" section; docs/formats.md): its spec, every parameter
// tensor by name, the vocabulary, the training settings, the curve, and which attention layer
// the document shows. Internal to core/session. Written and read back bit for bit: tensors as
// float32 bytes, every double as the shortest text that reads back to the same double.

#include <memory>

#include <nlohmann/json.hpp>

#include "core/common/expected.hpp"
#include "core/training/trained_model.hpp"

namespace qkv {

struct ShownModel {
    std::shared_ptr<const TrainedModel> model;
    Index layer = 0;  // attentionLayers(model->parameters.spec) index
};

nlohmann::json trainedModelToJson(const TrainedModel& model, Index layer);
// Checks everything before it is used: the spec's spellings and sizes (ModelSpec::problem), the
// tensors' names and shapes against tensorLayout(spec) (every one present, no other), finite
// values, the vocabulary (special tokens first, no duplicates, spec.vocabularySize tokens), the
// training settings' spellings and ranges and their agreement with the spec, the curve, and the
// layer's name. Messages name the field ("model.tensors.readout.W: is 8 x 5, expected 8 x 6").
Expected<ShownModel> trainedModelFromJson(const nlohmann::json& json);

}  // namespace qkv
