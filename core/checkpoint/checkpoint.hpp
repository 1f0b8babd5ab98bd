#pragma once
// One attention layer from a Hugging Face checkpoint (docs/checkpoints.md).
//
// A checkpoint is a .safetensors file, or a sharded checkpoint's model.safetensors.index.json
// ({"metadata": ..., "weight_map": {tensor name: shard file name}}), with the config.json
// beside it when there is one. Opening reads the headers only (and config.json); loading a
// layer reads that layer's tensors only (pread of their bytes, nothing else).
//
// Families and the layer names (module paths) they give, e.g.:
//   BERT, RoBERTa  bert.encoder.layer.0.attention          (self.query|key|value, output.dense)
//   DistilBERT     distilbert.transformer.layer.0.attention (q_lin k_lin v_lin out_lin)
//   GPT-2          h.5.attn                                 (c_attn, c_proj: Conv1D)     causal
//   BART, Marian   model.encoder.layers.0.self_attn         self
//                  model.decoder.layers.0.self_attn         causal
//                  model.decoder.layers.0.encoder_attn      cross  (q_proj k_proj v_proj out_proj)
//   T5             encoder.block.0.layer.0.SelfAttention    self   (q k v o, no biases, no scale)
//                  decoder.block.0.layer.0.SelfAttention    causal
//                  decoder.block.0.layer.1.EncDecAttention  cross
//   LLaMA-style    model.layers.3.self_attn                 causal (q_proj k_proj v_proj o_proj,
//                                                            grouped-query, rotary "rotate half")
//   Phi-3          model.layers.3.self_attn                 causal (qkv_proj fused, o_proj)
//   GPT-NeoX       gpt_neox.layers.3.attention              causal (query_key_value fused per
//                                                            head, dense; Pythia)
//   PyTorch        encoder.layers.0.self_attn               self   (nn.MultiheadAttention:
//                  decoder.layers.0.self_attn               causal  in_proj_weight, out_proj; the
//                  decoder.layers.0.multihead_attn          cross   kind is read from the path)
// Which names make a layer of which family, and how each stores its projections, is the family
// table's (core/families/family_table.hpp); the files and config.json are read by
// core/modelfiles. Every message starts with the file it is about; nothing is returned half-done.

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/expected.hpp"
#include "core/common/matrix.hpp"
#include "core/config/config.hpp"
#include "core/families/family.hpp"
#include "core/modelfiles/checkpoint_config.hpp"
#include "core/modelfiles/checkpoint_tensor.hpp"
#include "core/text/subword_tokenizer.hpp"
#include "core/weights/attention_weights.hpp"

namespace qkv {

// A recognised attention layer. `kind` is the attention it computes: EncoderSelf ("self"),
// DecoderCausal ("causal") or Cross ("cross"); modeName(kind) spells it.
struct CheckpointLayer {
    Index index = 0;   // 0-based in listed order
    std::string name;  // module path, e.g. "bert.encoder.layer.0.attention"
    Family family = Family::Bert;  // its layer family (familyRow(family).layers == family): layerFamilyName
    AttentionMode kind = AttentionMode::EncoderSelf;
    Index headCount = 1;          // h
    Index keyValueHeadCount = 1;  // g
    Index d_model = 0;
};

struct CheckpointOptions {
    // h when config.json does not say it (or there is no config.json). 0: the default,
    // d_model / 64 when 64 divides d_model, else 1.
    Index headCount = 0;
};

struct Checkpoint {
    std::string path;                                 // a .safetensors file or an index.json (a folder's)
    std::string configPath;                           // the config.json read, or empty
    CheckpointConfig config;                          // what it says (all empty without one)
    bool headCountFromConfig = false;                 // false: h came from CheckpointOptions (ask the user)
    std::vector<CheckpointLayer> layers;              // sorted: by module path, layer numbers numerically
    CheckpointTensors tensors;                        // every tensor of every file, by name
    // A GGUF file's own tokenizer (its tokenizer.ggml.* keys), or why it could not be built.
    std::optional<SubwordTokenizer> fileTokenizer;
    std::string fileTokenizerProblem;
};

// Reads the headers (and config.json beside `path`) and recognises the attention layers. `path`
// is a .safetensors file, a shard index, a Hugging Face model folder (its
// model.safetensors.index.json, else its model.safetensors; Checkpoint::path names that file), or
// a model of the Hugging Face cache, by its snapshot or its models--Org--Name folder
// (core/checkpoint/model_folders.hpp). Refuses Python pickles, saying how to convert them.
// Refuses a file with no recognised layer, listing some of the tensor names it holds.
Expected<Checkpoint> openCheckpoint(const std::string& path, const CheckpointOptions& options = {});

// The layer named `nameOrIndex` (its module path, the path with a trailing '.' as a prefix is
// written, or a bare number: its index). The error lists the available layers.
Expected<CheckpointLayer> findCheckpointLayer(const Checkpoint& checkpoint, std::string_view nameOrIndex);

// The settings a loaded layer decides that a user can also choose (command-line options, the
// Open Checkpoint dialog).
enum class LayerSetting { Mode, DModel, Heads, KeyValueHeads, HeadDim, Bias, Positional, RopeBase };

// What the configuration becomes with a loaded layer (nothing else of Config changes).
struct CheckpointLayerSettings {
    Index d_model = 0;
    Index headCount = 1;          // h
    Index keyValueHeadCount = 1;  // g
    Index d_k = 0;                // the head width: W^Q's h d_k columns / h
    bool withBias = false;
    PositionalEncoding positional = PositionalEncoding::Sinusoidal;
    // The layer's window, rotary and scores (core/families/attention_rules.hpp): always the layer's, except
    // the rotary base, which a user's choice overrules when config.json has no rope_theta.
    AttentionConventions conventions;
    bool scaleScores = true;                          // false for T5: the family's definition, which no option changes
    AttentionMode mode = AttentionMode::EncoderSelf;  // the layer's kind
    // What in the checkpoint fixes a setting ("config.json", "the layer's shape", ...). A setting
    // without an entry holds the family's usual value only, and a user's choice stands over it:
    // the positions of a LLaMA-style or T5 layer without config.json, and of every other family
    // (their files hold no positions for X); the rope base without rope_theta; h without
    // config.json (then it is CheckpointOptions::headCount already).
    std::map<LayerSetting, std::string> fixedBy;
    // What the family's usual positions mean here; said only when they are the ones used.
    std::string usualPositionsNote;
};

// The positions a layer uses, from its family and config.json alone (no tensor is read, so the
// Open Checkpoint dialog can offer them before loading): sets positional, ropeBase, their
// fixedBy entries and usualPositionsNote in `settings`.
void setCheckpointLayerPositions(const Checkpoint& checkpoint, const CheckpointLayer& layer,
                                 CheckpointLayerSettings& settings);

// "config.json sets rotary positions", "the layer's shape sets g = 2", ...; empty when the
// checkpoint does not fix `setting`.
std::string fixedSettingText(const CheckpointLayerSettings& settings, LayerSetting setting);

// What config.json's rope_scaling does to the rotary positions, for a rotary layer's or model's
// notes: "... llama3 (factor 8, ...) stretches ..." or "... of rope_type yarn is left out ...";
// empty without one.
std::string ropeScalingNote(const Checkpoint& checkpoint);
// config.json's sliding_window (Mistral): each query sees the W latest keys. Empty without one.
std::string slidingWindowNote(const Checkpoint& checkpoint);
// What the layer's own conventions (core/families/attention_rules.hpp) do, one note each: its window (or that
// it is one of the global layers of a model whose others slide), Gemma 3's local rotary base, a
// partial rotary, the scores' query_pre_attn_scalar and soft cap.
std::vector<std::string> layerConventionNotes(const Checkpoint& checkpoint, const CheckpointLayerSettings& settings);

// How a caller names the user's choice of `setting`, given its value as files and the command
// line spell it ("none", "self", "32"): "--positional none", or a control's name in words.
using LayerChoiceName = std::function<std::string(LayerSetting setting, std::string_view value)>;

// Sets d_model, headCount, keyValueHeadCount (0 when g = h), headDim (0 when d_k = d_model / h), withBias, positional, ropeBase,
// scaleScores and mode from `settings`, except that the settings in `chosen` were chosen by the
// user (their values are in `config`): what the checkpoint fixes wins, with a note such as
// "config.json sets rotary positions; --positional none was not used" unless the two agree; what
// it does not fix keeps the user's value. Returns those notes, then usualPositionsNote when the
// family's usual positions are the ones used.
std::vector<std::string> applyCheckpointLayerSettings(const CheckpointLayerSettings& settings, Config& config,
                                                      const std::set<LayerSetting>& chosen = {},
                                                      const LayerChoiceName& nameChoice = {});

struct CheckpointLayerWeights {
    CheckpointLayer layer;
    AttentionWeights weights;  // our layout (attention_weights.hpp), values finite
    CheckpointLayerSettings settings;
    std::vector<std::string> notes;  // for people: what was left out or filled in
};

// Reads the layer's tensors only and converts them to our layout. Refuses missing tensors,
// inconsistent shapes, h not dividing d_model, g not dividing h, unsupported dtypes and
// non-finite values, naming the file and the tensor.
Expected<CheckpointLayerWeights> loadCheckpointLayer(const Checkpoint& checkpoint, const CheckpointLayer& layer);
// openCheckpoint + findCheckpointLayer + loadCheckpointLayer.
Expected<CheckpointLayerWeights> loadCheckpointLayer(const std::string& path, std::string_view nameOrIndex,
                                                     const CheckpointOptions& options = {});

// "index\tname\tkind\th\tg\td_model" (the --list-layers line, no newline).
std::string checkpointLayerLine(const CheckpointLayer& layer);

}  // namespace qkv
