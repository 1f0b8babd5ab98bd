#pragma once
// A whole pretrained model on the typed sentences (docs/architecture.md, "Model"): the sentences cut by the
// model's own tokenizer, the run (core/pretrained/model_run.hpp), and any of its attention layers
// as the app's Result, so every view and the one-layer export read a layer of the run as they
// read any other layer: X_q and X_kv are the hidden states the layers before it computed.
//
// Which sentence feeds what (docs/architecture.md, "Numerical conventions"): an encoder-only model reads the source
// sentence, a decoder-only model (causal layers, as in the app's decoder mode) the target; an
// encoder-decoder's encoder reads the source and its decoder the target, teacher-forced, so a cross-attention layer's queries come from the target
// and its keys and values from the source.

#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "core/common/expected.hpp"
#include "core/config/config.hpp"
#include "core/pipeline/compute.hpp"
#include "core/pretrained/model_run.hpp"
#include "core/pretrained/pretrained_model.hpp"
#include "core/text/subword_tokens.hpp"

namespace qkv {

// The sentences as the model reads them.
struct ModelSentences {
    SubwordTokenization sequence;  // the one sequence, or an encoder-decoder's source
    SubwordTokenization decoder;   // encoder-decoder only: the decoder's input, teacher-forced
    ModelTokens tokens;            // their ids, as runPretrainedModel reads them
};

// Cuts the sentences the model reads (above) with the model's tokenizer. Fails when
// the model has no tokenizer files, a sentence gives no tokens or more than the model's
// positions, naming the sentence.
Expected<ModelSentences> modelSentences(const PretrainedModel& model, const std::string& source,
                                        const std::string& target);

// The tokens a layer's queries and keys are: an encoder-decoder's decoder layers read the target
// (a cross-attention's keys and values the source), every other layer the one sequence.
const SubwordTokenization& layerQueryTokens(const PretrainedModel& model, const ModelSentences& sentences,
                                            const LayerRun& layer);
const SubwordTokenization& layerKeyTokens(const PretrainedModel& model, const ModelSentences& sentences,
                                          const LayerRun& layer);

// A head named on the command line as LAYER.HEAD: LAYER is the index --list-layers prints (from
// 0, the checkpoint's listing order) or the layer's name, HEAD counts from 1 as everywhere
// people read heads. Returns the head in model order (ModelHead).
Expected<ModelHead> parseModelHead(const PretrainedModel& model, std::string_view item);
// The same head as people read it: "3.2" (listing index, head from 1).
std::string modelHeadText(const PretrainedModel& model, const ModelHead& head);

// The model-order index of the layer --layer names (its listing index or name).
Expected<Index> findModelLayer(const PretrainedModel& model, std::string_view nameOrIndex);
// The model-order index of a layer already found in the model's checkpoint (its listing index
// decides, never its name read again).
Expected<Index> modelLayerIndex(const PretrainedModel& model, const CheckpointLayer& layer);

// `base` (its sentences and view settings) with what the layer decides: d_model, h, g, biases,
// positions (rotary inside the layer, else none: they are inside X), mode = the layer's kind,
// embeddings = the model's, and the layer's switched-off heads. `weights`: the layer's.
Config pretrainedLayerConfig(const PretrainedModel& model, const LayerRun& layer, const AttentionWeights& weights,
                             const std::set<ModelHead>& ablated, Config base);

// Layer `modelIndex` of `run` as a Result: its tokens and labels, X_q and X_kv, the layer's own
// weights (shared with `model`, not copied, when it keeps them; else read from its file) and the
// run's attention (not recomputed). Fails only when a model that reads one block at a time can no
// longer read the layer's.
Expected<std::shared_ptr<const Result>> pretrainedLayerResult(const std::shared_ptr<const PretrainedModel>& model,
                                                    const ModelRun& run, Index modelIndex,
                                                    const ModelSentences& sentences, const Config& base);

}  // namespace qkv
