// What a loaded layer sets, and the one rule between it and what the user chose: what the
// checkpoint fixes wins and a note says so; what it only takes from the family's habits leaves
// the user's choice standing (checkpoint.hpp, applyCheckpointLayerSettings).
#include <charconv>

#include "core/checkpoint/checkpoint.hpp"
#include "core/families/attention_rules.hpp"
#include "core/families/family_table.hpp"

namespace qkv {

namespace {

// The shortest text that reads back as `value` ("500", "10000", "1e+06").
std::string numberText(double value)
{
    char buffer[32];
    const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, value);
    return error == std::errc() ? std::string(buffer, end) : std::to_string(value);
}

std::string positionsText(PositionalEncoding positional)
{
    switch (positional) {
    case PositionalEncoding::Sinusoidal: return "sinusoidal positions";
    case PositionalEncoding::Rotary: return "rotary positions";
    case PositionalEncoding::RotaryInterleaved: return "interleaved rotary positions";
    case PositionalEncoding::None: return "no absolute positions";
    }
    return "?";
}

// What the checkpoint says of `setting`, after its source: "sets rotary positions".
std::string settingStatement(const CheckpointLayerSettings& s, LayerSetting setting)
{
    switch (setting) {
    case LayerSetting::Mode: return "sets " + std::string(modeName(s.mode)) + " attention";
    case LayerSetting::DModel: return "sets d_model = " + std::to_string(s.d_model);
    case LayerSetting::Heads: return "sets h = " + std::to_string(s.headCount);
    case LayerSetting::KeyValueHeads: return "sets g = " + std::to_string(s.keyValueHeadCount);
    case LayerSetting::HeadDim: return "sets d_k = " + std::to_string(s.d_k);
    case LayerSetting::Bias: return s.withBias ? "has biases" : "has no biases";
    case LayerSetting::Positional: return "sets " + positionsText(s.positional);
    case LayerSetting::RopeBase: return "sets rope_theta = " + numberText(s.conventions.ropeBase);
    }
    return "?";
}

// The user's value of `setting` as files and the command line spell it.
std::string chosenValue(const Config& c, LayerSetting setting)
{
    switch (setting) {
    case LayerSetting::Mode: return std::string(modeName(c.mode));
    case LayerSetting::DModel: return std::to_string(c.d_model);
    case LayerSetting::Heads: return std::to_string(c.headCount);
    case LayerSetting::KeyValueHeads: return std::to_string(c.g());
    case LayerSetting::HeadDim: return std::to_string(c.d_k());
    case LayerSetting::Bias: return c.withBias ? "on" : "off";
    case LayerSetting::Positional: return std::string(positionalName(c.positional));
    case LayerSetting::RopeBase: return numberText(c.conventions.ropeBase);
    }
    return "?";
}

bool agrees(const CheckpointLayerSettings& s, const Config& c, LayerSetting setting)
{
    switch (setting) {
    case LayerSetting::Mode: return c.mode == s.mode;
    case LayerSetting::DModel: return c.d_model == s.d_model;
    case LayerSetting::Heads: return c.headCount == s.headCount;
    case LayerSetting::KeyValueHeads: return c.g() == s.keyValueHeadCount;
    case LayerSetting::HeadDim: return c.d_k() == s.d_k;
    case LayerSetting::Bias: return c.withBias == s.withBias;
    case LayerSetting::Positional: return c.positional == s.positional;
    case LayerSetting::RopeBase: return c.conventions.ropeBase == s.conventions.ropeBase;
    }
    return false;
}

}  // namespace

void setCheckpointLayerPositions(const Checkpoint& checkpoint, const CheckpointLayer& layer,
                                 CheckpointLayerSettings& settings)
{
    // config.json names the model (LLaMA, Mistral, T5, ...), and with it how positions enter;
    // without one the family's habit is only a guess the user may overrule.
    const bool hasConfig = !checkpoint.configPath.empty();
    const FamilyRow& row = layerFamilyRow(layer.family);
    switch (row.positions) {
    case PretrainedPositions::Rotary: {
        settings.positional = PositionalEncoding::Rotary;
        // The layer's own window, rotary and scores (a bad layer_types is refused by the loader).
        const Index d_k = layer.headCount > 0 ? layer.d_model / layer.headCount : 0;
        const Expected<AttentionConventions> own =
            layerAttentionConventions(checkpoint.config, blockNumberOf(layer.name), settings.d_k > 0 ? settings.d_k : d_k);
        settings.conventions = own ? *own : AttentionConventions{};
        if (hasConfig) settings.fixedBy[LayerSetting::Positional] = "config.json";
        else settings.usualPositionsNote = "No config.json fixes the positions: LLaMA-style rotary ones (\"rotate half\") are used.";
        if (checkpoint.config.ropeTheta) settings.fixedBy[LayerSetting::RopeBase] = "config.json";
        break;
    }
    case PretrainedPositions::None:
        settings.positional = PositionalEncoding::None;
        if (hasConfig) settings.fixedBy[LayerSetting::Positional] = "config.json";
        settings.usualPositionsNote = std::string(row.name) + " has no absolute positions: the positional option is none.";
        break;
    case PretrainedPositions::Sinusoidal:
        settings.positional = PositionalEncoding::Sinusoidal;  // the module holds no positions (nn.MultiheadAttention)
        break;
    case PretrainedPositions::Learned:
        // Learned position tables are part of the model's input, not of this layer.
        settings.positional = PositionalEncoding::Sinusoidal;
        settings.usualPositionsNote = "With generated or meaning embeddings, the sinusoidal encoding added to X stands "
                                      "in for the model's learned position embeddings (the model's own input holds them).";
        break;
    }
}

std::string fixedSettingText(const CheckpointLayerSettings& settings, LayerSetting setting)
{
    const auto source = settings.fixedBy.find(setting);
    return source == settings.fixedBy.end() ? std::string() : source->second + " " + settingStatement(settings, setting);
}

std::vector<std::string> applyCheckpointLayerSettings(const CheckpointLayerSettings& settings, Config& config,
                                                      const std::set<LayerSetting>& chosen,
                                                      const LayerChoiceName& nameChoice)
{
    const Config user = config;
    std::vector<std::string> notes;
    // Whether the user's value stays: chosen, and not fixed by the checkpoint (said when they differ).
    const auto userChoiceStands = [&](LayerSetting setting) {
        if (!chosen.contains(setting)) return false;
        if (!settings.fixedBy.contains(setting)) return true;
        if (!agrees(settings, user, setting)) {
            const std::string value = chosenValue(user, setting);
            notes.push_back(fixedSettingText(settings, setting) + "; " + (nameChoice ? nameChoice(setting, value) : value) +
                            " was not used.");
        }
        return false;
    };
    if (!userChoiceStands(LayerSetting::Mode)) config.mode = settings.mode;
    if (!userChoiceStands(LayerSetting::DModel)) config.d_model = settings.d_model;
    if (!userChoiceStands(LayerSetting::Heads)) config.headCount = settings.headCount;
    if (!userChoiceStands(LayerSetting::KeyValueHeads))
        config.keyValueHeadCount = settings.keyValueHeadCount == settings.headCount ? 0 : settings.keyValueHeadCount;
    if (!userChoiceStands(LayerSetting::HeadDim)) {
        // d_k follows d_model / h unless the layer's heads are another width.
        const bool paperWidth = config.headCount > 0 && config.d_model % config.headCount == 0 &&
                                settings.d_k == config.d_model / config.headCount;
        config.headDim = paperWidth || settings.d_k <= 0 ? 0 : settings.d_k;
    }
    if (!userChoiceStands(LayerSetting::Bias)) config.withBias = settings.withBias;
    if (!userChoiceStands(LayerSetting::Positional)) config.positional = settings.positional;
    const double ropeBase =
        userChoiceStands(LayerSetting::RopeBase) ? config.conventions.ropeBase : settings.conventions.ropeBase;
    config.conventions = settings.conventions;
    config.conventions.ropeBase = ropeBase;
    config.scaleScores = settings.scaleScores;
    if (config.positional == settings.positional && !settings.usualPositionsNote.empty())
        notes.push_back(settings.usualPositionsNote);
    return notes;
}

std::string slidingWindowNote(const Checkpoint& checkpoint)
{
    if (const auto w = checkpoint.config.slidingWindowNotApplied)
        return checkpoint.configPath + " sets use_sliding_window with sliding_window = " + std::to_string(*w) +
               " for the layers from max_window_layers on, which is left out: up to " + std::to_string(*w) +
               " tokens every number is the model's.";
    if (!checkpoint.config.slidingWindow) return {};
    const std::string w = std::to_string(*checkpoint.config.slidingWindow);
    return checkpoint.configPath + " sets sliding_window = " + w + ": each query sees only its " + w +
           " latest keys, its own included (from position " + w + " on, counting from 0, the earliest keys are masked).";
}

std::vector<std::string> layerConventionNotes(const Checkpoint& checkpoint, const CheckpointLayerSettings& settings)
{
    const CheckpointConfig& c = checkpoint.config;
    std::vector<std::string> notes;
    if (c.slidingWindowNotApplied) notes.push_back(slidingWindowNote(checkpoint));
    if (settings.conventions.slidingWindow > 0) {
        const std::string w = std::to_string(settings.conventions.slidingWindow);
        notes.push_back(checkpoint.configPath + " sets sliding_window = " + w + " for this layer: each query sees only its " +
                        w + " latest keys (the query's own included); earlier ones are masked.");
    } else if (c.slidingWindow) {
        notes.push_back("This is one of the model's global layers: every query sees every earlier key (its other layers "
                        "slide over " + std::to_string(*c.slidingWindow) + " keys).");
    }
    if (c.ropeLocalBase && settings.conventions.ropeBase == *c.ropeLocalBase && settings.conventions.slidingWindow > 0)
        notes.push_back("As a sliding layer it rotates with rope_local_base_freq = " + numberText(*c.ropeLocalBase) +
                        ", unscaled (the global layers use rope_theta).");
    if (settings.conventions.rotaryDims > 0)
        notes.push_back("Only the first " + std::to_string(settings.conventions.rotaryDims) + " of each head's " +
                        std::to_string(settings.d_k) + " components are rotated (" +
                        (c.modelType == "gpt_neox" ? "rotary_pct" : "partial_rotary_factor") + "); the others carry no position.");
    if (settings.conventions.scoreDim > 0)
        notes.push_back("Scores are scaled by 1/sqrt(" + std::to_string(settings.conventions.scoreDim) +
                        ") (query_pre_attn_scalar), not by 1/sqrt(d_k).");
    if (settings.conventions.scoreSoftCap > 0.0)
        notes.push_back("Scores are soft-capped (attn_logit_softcapping = " + numberText(settings.conventions.scoreSoftCap) +
                        "): the softmax reads c tanh(s / c) of each scaled score s, with c = " +
                        numberText(settings.conventions.scoreSoftCap) + ".");
    return notes;
}

std::string ropeScalingNote(const Checkpoint& checkpoint)
{
    const CheckpointConfig& c = checkpoint.config;
    if (!c.ropeScalingNotApplied.empty())
        return checkpoint.configPath + " sets rope_scaling of rope_type " + c.ropeScalingNotApplied +
               ", which is left out: the rotary positions use rope_theta's frequencies unscaled, so they differ "
               "from Hugging Face's.";
    const RopeScaling& s = c.ropeScaling;
    if (s.kind == RopeScalingKind::None) return {};
    std::string text = checkpoint.configPath + " sets rope_scaling " + std::string(nameOf(kRopeScalingNames, s.kind)) +
                       " (factor " + numberText(s.factor);
    if (s.kind == RopeScalingKind::Llama3)
        text += ", low_freq_factor " + numberText(s.lowFreqFactor) + ", high_freq_factor " + numberText(s.highFreqFactor) +
                ", original_max_position_embeddings " + numberText(s.originalMaxPositions);
    return text + "): the rotary frequencies are stretched as Hugging Face's are.";
}

}  // namespace qkv
