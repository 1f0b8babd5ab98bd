#pragma once
// The model's own input X for any attention layer of a checkpoint (docs/architecture.md, "Model"): the first
// layer's from the embedding tables (core/checkpoint/model_input_loading.hpp), a later layer's
// from the whole model (core/pretrained) run on the sentence up to the layer, so every view reads
// the hidden states the layers before it computed.
//
// A later layer takes one sentence: an encoder-only model's (BERT, RoBERTa, DistilBERT) or a
// decoder-only model's (GPT-2, LLaMA-style) layers. An encoder-decoder's decoder layers read
// both sentences at once; the command line's `--layer all` and `--embeddings model --layer N`
// show them (core/pipeline/pretrained_run.hpp).

#include <memory>
#include <string>

#include "core/checkpoint/checkpoint.hpp"
#include "core/common/expected.hpp"
#include "core/embedding/model_input.hpp"
#include "core/pretrained/pretrained_model.hpp"
#include "core/session/session.hpp"

namespace qkv {

// The first layer's input from its tables when the checkpoint has them (BERT, GPT-2), else the
// whole model run below `layer` on each sentence. Either way the whole model comes along when it
// runs (ModelInput::wholeModel): `model` when given (already loaded from this checkpoint), else
// loaded here. Fails when neither input can be built: the family does not run whole, no
// tokenizer files, or an encoder-decoder's decoder layer. `progress` follows (and may stop) the
// whole model's load; a stopped load fails (loadStopped(error)) even where the tables would do.
Expected<std::shared_ptr<const ModelInput>> loadLayerInput(Checkpoint checkpoint, const CheckpointLayer& layer,
                                                           std::shared_ptr<const PretrainedModel> model = nullptr,
                                                           const LoadProgress& progress = {});

// A session whose embeddings are the model's own input (Config::embeddings = Model) and that
// has no ModelInput yet reads it from the checkpoint and layer its weights came from
// (weightsProvenance); the app's Open and the command line's --session and --embeddings model
// share this. Does nothing when no sentence needs it. Fails, changing nothing, when the weights
// did not come from a checkpoint's layer or the input cannot be built there.
Status attachModelInput(Session& session);
// For the app's Open and restore: attachModelInput, and when it fails the embeddings become
// by word (weights, sentences and all else kept). Returns what to tell the user, or "".
std::string attachModelInputOrUseWords(Session& session);

}  // namespace qkv
