#pragma once
// A small trained model for tests of what holds one (sessions, the pipeline): an encoder layer,
// two decoder layers, a vocabulary of a few words, settings and a curve with every field away
// from its default (NaN and infinities included), weights from the seeded initialisation.

#include <limits>
#include <memory>
#include <string>

#include "core/training/trained_model.hpp"

namespace qkv::testing {

inline std::shared_ptr<TrainedModel> smallTrainedModel(ScoreForm form = ScoreForm::Factored, std::uint64_t seed = 7)
{
    auto model = std::make_shared<TrainedModel>();
    for (const char* word : {"the", "black", "cat", "sat", "der", "schwarze", "katze", "saß"}) model->vocabulary.add(word);
    ModelSpec spec;
    spec.vocabularySize = model->vocabulary.size();
    spec.maxPositions = 10;
    spec.d_model = 8;
    spec.headCount = 2;
    spec.encoderLayers = 1;
    spec.decoderLayers = 2;
    spec.d_ff = 12;
    spec.norm = NormKind::LayerNorm;
    spec.placement = NormPlacement::Post;
    spec.normEpsilon = 1e-6;
    spec.activation = Activation::Gelu;
    spec.positions = PositionKind::Learned;
    spec.scoreForm = form;
    spec.scaleEmbedding = false;
    model->parameters = ModelParameters<float>::initialised(spec, seed);

    TrainingSettings& t = model->settings;
    t.task.kind = TaskKind::Translate;
    t.task.language = TargetLanguage::German;
    t.task.pairsFile = "/data/pairs \"de\".tsv";
    t.task.seed = 18446744073709551615ull;
    t.task.heldOutCount = 17;
    t.variant = form;
    t.d_model = spec.d_model;
    t.headCount = spec.headCount;
    t.layers = 2;
    t.steps = 12345;
    t.batch = 3;
    t.optimizer = {0.1 + 0.2, 0.875, 0.999, 1e-9, 0.0, 0.5, 7};
    t.seed = 42;

    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    constexpr double inf = std::numeric_limits<double>::infinity();
    model->curve = {{1, 0.001, 2.0794415416798357, 0.125, nan, nan, nan},
                    {2, 1.0 / 3.0, inf, -0.0, 1.5, 0.3333333333333333, 0.0},
                    {3, 2.5e-300, -inf, 1.0, nan, nan, nan}};
    model->steps = 3;
    model->heldOutAccuracy = 0.3333333333333333;
    return model;
}

}  // namespace qkv::testing
