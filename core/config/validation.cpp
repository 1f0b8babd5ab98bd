#include "core/config/validation.hpp"

#include <cmath>
#include <cstdlib>
#include <optional>
#include <sstream>

#include "core/common/limits.hpp"
#include "core/text/tokenizer.hpp"

namespace qkv {

namespace {

std::string fieldName(ConfigField field)
{
    switch (field) {
    case ConfigField::Source: return "source";
    case ConfigField::Target: return "target";
    case ConfigField::Mode: return "mode";
    case ConfigField::DModel: return "d_model";
    case ConfigField::Heads: return "h";
    case ConfigField::HeadDim: return "d_k";
    case ConfigField::KeyValueHeads: return "key/value heads";
    case ConfigField::Weights: return "weights";
    case ConfigField::Embeddings: return "embeddings";
    case ConfigField::Positional: return "positions";
    case ConfigField::Presets: return "presets";
    case ConfigField::Ablation: return "ablation";
    }
    return "config";
}

std::string formatBytes(std::size_t bytes)
{
    std::ostringstream out;
    out.precision(3);
    if (bytes >= (std::size_t{1} << 30)) out << static_cast<double>(bytes) / double(1 << 30) << " GiB";
    else out << static_cast<double>(bytes) / double(1 << 20) << " MiB";
    return out.str();
}

// Token count of one sentence (`known`, or cut here when -1), or an issue when the text is too
// long to even tokenize.
Index checkSentence(const std::string& text, Index known, const char* name, ConfigField field, const char* why,
                    const AnalysisPlan& plan, std::vector<ValidationIssue>& issues)
{
    if (text.size() > limits::maxSentenceBytes) {
        issues.push_back({field, std::string("The ") + name + " sentence is " + std::to_string(text.size()) +
                                     " bytes long; the limit is " + std::to_string(limits::maxSentenceBytes) +
                                     " bytes."});
        return 0;
    }
    const Index tokens = known >= 0 ? known : static_cast<Index>(tokenize(text).size());
    if (tokens == 0) {
        issues.push_back({field, std::string("The ") + name + " sentence is empty: " + why});
    } else if (const std::string problem = tokenCountProblem(tokens, plan); !problem.empty()) {
        issues.push_back({field, std::string("The ") + name + " sentence has " + problem});
    }
    return tokens;
}

// d_k set by the user (or a model): 1..maxHeadDim, and W^Q's h d_k columns within maxQueryWidth.
bool checkHeadDim(const Config& config, std::vector<ValidationIssue>& issues)
{
    if (config.headDim < 0 || config.headDim > limits::maxHeadDim) {
        issues.push_back({ConfigField::HeadDim, "d_k must be between 1 and " + std::to_string(limits::maxHeadDim) +
                                                    " (or follow d_model / h); it is " + std::to_string(config.headDim) + "."});
        return false;
    }
    const Index width = config.headCount * config.d_k();
    if (width > limits::maxQueryWidth) {
        issues.push_back({ConfigField::HeadDim, "h d_k = " + std::to_string(config.headCount) + " x " +
                                                    std::to_string(config.d_k()) + " = " + std::to_string(width) +
                                                    " columns of W^Q; the limit is " +
                                                    std::to_string(limits::maxQueryWidth) + "."});
        return false;
    }
    return true;
}

void checkKeyValueHeads(const Config& config, std::vector<ValidationIssue>& issues)
{
    const Index g = config.keyValueHeadCount;
    if (g < 0 || (g > 0 && config.headCount % g != 0)) {
        std::string divisors;
        for (Index d = 1; d <= config.headCount; ++d)
            if (config.headCount % d == 0) divisors += (divisors.empty() ? "" : ", ") + std::to_string(d);
        issues.push_back({ConfigField::KeyValueHeads, "g = " + std::to_string(g) + " key/value heads must divide h = " +
                                                          std::to_string(config.headCount) + " (one of " + divisors + ")."});
    }
}

void checkPositionsAndEmbeddings(const Config& config, std::vector<ValidationIssue>& issues)
{
    if (config.conventions.slidingWindow < 0)
        issues.push_back({ConfigField::Mode, "A sliding window holds at least 1 key (0: none)."});
    else if (config.conventions.slidingWindow > 0 && config.mode != AttentionMode::DecoderCausal)
        issues.push_back({ConfigField::Mode, "A sliding window of " + std::to_string(config.conventions.slidingWindow) +
                                                 " keys needs decoder (causal) self-attention."});
    if (isRotary(config.positional)) {
        if (config.headCount >= 1 && config.d_k() % 2 != 0)
            issues.push_back({ConfigField::Positional, "Rotary positions turn pairs of coordinates: d_k = " +
                                                           std::to_string(config.d_k()) + " must be even."});
        if (!std::isfinite(config.conventions.ropeBase) || config.conventions.ropeBase <= 1.0)
            issues.push_back({ConfigField::Positional, "The rotary base must be a finite number above 1."});
        if (const std::string problem = ropeScalingProblem(config.conventions.ropeScaling); !problem.empty())
            issues.push_back({ConfigField::Positional, "The rotary positions' scaling: " + problem + "."});
        if (config.conventions.rotaryDims < 0 || config.conventions.rotaryDims % 2 != 0 || (config.headCount >= 1 && config.conventions.rotaryDims > config.d_k()))
            issues.push_back({ConfigField::Positional, "The rotated components of a head (" + std::to_string(config.conventions.rotaryDims) +
                                                           ") must be an even number up to d_k = " +
                                                           std::to_string(config.d_k()) + " (0: all)."});
    }
    if (config.conventions.scoreDim < 0)
        issues.push_back({ConfigField::Heads, "The scores' scale 1/sqrt(d) needs d >= 1 (0: d_k)."});
    if (!std::isfinite(config.conventions.scoreSoftCap) || config.conventions.scoreSoftCap < 0.0)
        issues.push_back({ConfigField::Heads, "The scores' soft cap must be a finite number >= 0 (0: none)."});
    if (!std::isfinite(config.tokenEmbeddingScale) || config.tokenEmbeddingScale <= 0.0f)
        issues.push_back({ConfigField::Embeddings, "The token-embedding scale must be a finite number above 0."});
}

// Presets that need position in X, and presets whose heads share a key/value head (g < h):
// they write the same W^K block, so they must want the same one.
void checkPresetGroups(const Config& config, std::vector<ValidationIssue>& issues)
{
    if (config.g() < 1 || config.headCount % config.g() != 0) return;  // reported by checkKeyValueHeads
    const HeadGrouping g = config.grouping();
    std::vector<const HeadPreset*> keyWriter(static_cast<std::size_t>(g.keyValueHeadCount), nullptr);
    for (const HeadPreset& preset : config.presets) {
        if (preset.head < 0 || preset.head >= config.headCount) continue;
        const std::string name(presetName(preset.kind));
        if (isPositionalPreset(preset.kind) && config.positional != PositionalEncoding::Sinusoidal)
            issues.push_back({ConfigField::Presets, "Head " + std::to_string(preset.head + 1) + "'s " + name +
                                                        " preset reads the sinusoidal encoding added to X; with " +
                                                        std::string(positionalName(config.positional)) +
                                                        " positions it cannot see where a token is."});
        if (presetKeyBlock(preset.kind) == PresetKeyBlock::Untouched || g.keyValueHeadCount < 1) continue;
        const HeadPreset*& writer = keyWriter[static_cast<std::size_t>(g.keyValueHeadOf(preset.head))];
        const bool agree = !writer || (presetKeyBlock(writer->kind) == presetKeyBlock(preset.kind) &&
                                       (presetKeyBlock(preset.kind) != PresetKeyBlock::Fitted || writer->kind == preset.kind));
        if (!agree)
            issues.push_back({ConfigField::Presets,
                              "Heads " + std::to_string(writer->head + 1) + " and " + std::to_string(preset.head + 1) +
                                  " share key/value head " + std::to_string(g.keyValueHeadOf(preset.head) + 1) + " (g = " +
                                  std::to_string(g.keyValueHeadCount) + "), so their presets write the same W^K block: " +
                                  std::string(presetName(writer->kind)) + " and " + name +
                                  " need different ones. Raise g or choose presets that agree."});
        if (!writer) writer = &preset;
    }
}

void checkPresetsAndAblations(const Config& config, std::vector<ValidationIssue>& issues)
{
    const Index h = config.headCount;
    std::vector<bool> seen(static_cast<std::size_t>(h), false);
    for (const HeadPreset& preset : config.presets) {
        const std::string head = "head " + std::to_string(preset.head + 1);
        if (preset.head < 0 || preset.head >= h) {
            issues.push_back({ConfigField::Presets, "A preset names " + head + ", but there are h = " + std::to_string(h) +
                                                        " heads (numbered from 1)."});
            continue;
        }
        if (seen[static_cast<std::size_t>(preset.head)])
            issues.push_back({ConfigField::Presets, head + " has more than one preset."});
        seen[static_cast<std::size_t>(preset.head)] = true;
        if (!std::isfinite(preset.sharpness) || preset.sharpness <= 0.0)
            issues.push_back({ConfigField::Presets, "The sharpness of " + head + " must be a finite number above 0."});
        if (preset.kind == HeadPresetKind::LowRank && (preset.rank < 1 || preset.rank >= config.d_k()))
            issues.push_back({ConfigField::Presets, "The low-rank preset of " + head + " needs 1 <= r < d_k = " +
                                                        std::to_string(config.d_k()) + "; r is " +
                                                        std::to_string(preset.rank) + "."});
    }
    checkPresetGroups(config, issues);
    for (const Index head : config.ablatedHeads)
        if (head < 0 || head >= h)
            issues.push_back({ConfigField::Ablation, "Head " + std::to_string(head + 1) + " cannot be switched off: there are h = " +
                                                         std::to_string(h) + " heads (numbered from 1)."});
}

// The estimated peak against limits::maxResultBytes, naming the field whose term is largest.
std::optional<ValidationIssue> checkMemory(const Config& config, Index n_q, Index n_k, const SentenceOverrides& overrides,
                                           const AnalysisPlan& plan)
{
    const MemoryEstimate estimate = estimateMemory(config, n_q, n_k, overrides, plan);
    const std::size_t bytes = estimate.peak();
    if (bytes <= limits::maxResultBytes) return std::nullopt;
    const std::size_t perToken = estimate.inputs + estimate.projections + estimate.outputs;
    std::string detail = formatBytes(estimate.maps) + " of attention maps (" + std::to_string(n_q) + " queries x " +
                         std::to_string(n_k) + " keys x h = " + std::to_string(config.headCount) + " heads), " +
                         formatBytes(estimate.weights) + " of weights, " + formatBytes(perToken) +
                         " of X, Q, K, V and outputs";
    if (estimate.analysis > 0) detail += ", " + formatBytes(estimate.analysis) + " for the per-head analysis";
    // The attention maps grow with the sentences and h; everything else with d_model.
    const bool mapsDominate = estimate.maps >= estimate.held() - estimate.maps + estimate.analysis;
    const ConfigField sentenceField = config.queriesFromTarget() ? ConfigField::Target : ConfigField::Source;
    return ValidationIssue{mapsDominate ? sentenceField : ConfigField::DModel,
                           "This configuration needs about " + formatBytes(bytes) + " at its peak (" + detail +
                               "); the limit is " + formatBytes(limits::maxResultBytes) +
                               ". Shorten the sentences or lower h or d_model."};
}

}  // namespace

std::string tokenCountProblem(Index tokens, const AnalysisPlan& plan)
{
    const Index limit = sentenceTokenLimit(plan);
    if (tokens <= limit) return {};
    std::string text = std::to_string(tokens) + " tokens; the limit is " + std::to_string(limit);
    if (!plan.streamed() && tokens <= limits::maxTokens)
        text += " when every head's full map is held (qkv-studio export --pool or --rows/--cols streams up to " +
                std::to_string(limits::maxTokens) + ")";
    return text + ".";
}

Index nearestValidHeadCount(Index d_model, Index requested)
{
    if (d_model < 1) return 1;
    Index best = 1;
    for (Index divisor = 1; divisor <= d_model; ++divisor) {
        if (d_model % divisor != 0) continue;
        const Index distance = std::abs(divisor - requested);
        const Index bestDistance = std::abs(best - requested);
        if (distance < bestDistance || (distance == bestDistance && divisor > best)) best = divisor;
    }
    return best;
}

std::size_t estimateResultBytes(Index queryTokens, Index keyTokens, Index d_model, Index headCount)
{
    Config layer;
    layer.d_model = d_model;
    layer.headCount = headCount;
    return estimateMemory(layer, queryTokens, keyTokens).held();
}

std::vector<ValidationIssue> validateConfig(const Config& config, const SentenceOverrides& overrides,
                                            const AnalysisPlan& plan, const SentenceWordCounts& words)
{
    std::vector<ValidationIssue> issues;

    bool sizesValid = true;
    if (config.d_model < 1 || config.d_model > limits::maxDModel) {
        issues.push_back({ConfigField::DModel, "d_model must be between 1 and " + std::to_string(limits::maxDModel) +
                                                   "; it is " + std::to_string(config.d_model) + "."});
        sizesValid = false;
    }
    if (config.headCount < 1) {
        issues.push_back({ConfigField::Heads, "h must be at least 1; it is " + std::to_string(config.headCount) + "."});
        sizesValid = false;
    } else if (config.headCount > limits::maxHeads) {
        issues.push_back({ConfigField::Heads, "h must be at most " + std::to_string(limits::maxHeads) + "; it is " +
                                                  std::to_string(config.headCount) + "."});
        sizesValid = false;
    } else if (sizesValid && !config.headDimSet() && config.d_model % config.headCount != 0) {
        const Index nearest = nearestValidHeadCount(config.d_model, config.headCount);
        issues.push_back({ConfigField::Heads,
                          "h = " + std::to_string(config.headCount) + " does not divide d_model = " +
                              std::to_string(config.d_model) + " (d_k = d_model / h must be whole); the nearest valid h is " +
                              std::to_string(nearest) + " (d_k = " + std::to_string(config.d_model / nearest) +
                              "), or set d_k yourself."});
        sizesValid = false;
    }
    if (sizesValid && !checkHeadDim(config, issues)) sizesValid = false;

    if (sizesValid) checkKeyValueHeads(config, issues);
    checkPositionsAndEmbeddings(config, issues);
    if (sizesValid) checkPresetsAndAblations(config, issues);

    const ProjectionScales& s = config.scales;
    if (!std::isfinite(s.query) || !std::isfinite(s.key) || !std::isfinite(s.value) || !std::isfinite(s.output))
        issues.push_back({ConfigField::Weights, "Every weight scale must be a finite number."});

    // The sentences this mode reads (docs/architecture.md, "Numerical conventions"), unless user embeddings replace them.
    const bool needsSource = config.mode != AttentionMode::DecoderCausal;
    const bool needsTarget = config.mode != AttentionMode::EncoderSelf;
    Index sourceTokens = overrides.sourceRows;
    Index targetTokens = overrides.targetRows;
    if (needsSource && overrides.sourceRows < 0) {
        const char* why = config.mode == AttentionMode::Cross
                              ? "cross-attention takes its keys and values from the source."
                              : "encoder self-attention takes Q, K and V from the source.";
        sourceTokens = checkSentence(config.sourceText, words.source, "source", ConfigField::Source, why, plan, issues);
    }
    if (needsTarget && overrides.targetRows < 0) {
        const char* why = config.mode == AttentionMode::Cross
                              ? "cross-attention takes its queries from the target."
                              : "decoder masked self-attention takes Q, K and V from the target.";
        targetTokens = checkSentence(config.targetText, words.target, "target", ConfigField::Target, why, plan, issues);
    }

    if (sizesValid && issues.empty()) {
        const Index n_q = config.queriesFromTarget() ? targetTokens : sourceTokens;
        const Index n_k = config.keysFromTarget() ? targetTokens : sourceTokens;
        if (auto issue = checkMemory(config, n_q, n_k, overrides, plan)) issues.push_back(*issue);
    }
    return issues;
}

std::string describe(const std::vector<ValidationIssue>& issues)
{
    std::string text;
    for (const ValidationIssue& issue : issues) {
        if (!text.empty()) text += '\n';
        text += fieldName(issue.field) + ": " + issue.message;
    }
    return text;
}

}  // namespace qkv
