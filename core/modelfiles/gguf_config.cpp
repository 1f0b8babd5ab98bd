#include "core/modelfiles/gguf_config.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/attention/rotary.hpp"
#include "core/gguf/gguf_tensor.hpp"

namespace qkv {
namespace {

class Keys {
public:
    Keys(const GgufFile& file, std::string_view architecture) : file_(file), prefix_(std::string(architecture) + ".") {}

    // A positive integer under the architecture's prefix; nullopt when absent, an error when wrong.
    Expected<std::optional<Index>> count(const std::string& key) const
    {
        const GgufValue* value = file_.find(prefix_ + key);
        if (!value) return std::optional<Index>{};
        const std::optional<std::int64_t> n = value->integer();
        if (!n || *n <= 0 || *n > (std::int64_t{1} << 40))
            return Error{file_.path + ": metadata '" + prefix_ + key + "' must be a positive integer"};
        return std::optional<Index>{static_cast<Index>(*n)};
    }
    // A positive finite number; nullopt when absent.
    Expected<std::optional<double>> positive(const std::string& key) const
    {
        const GgufValue* value = file_.find(prefix_ + key);
        if (!value) return std::optional<double>{};
        const std::optional<double> x = value->number();
        if (!x || !std::isfinite(*x) || *x <= 0)
            return Error{file_.path + ": metadata '" + prefix_ + key + "' must be a positive number"};
        return std::optional<double>{*x};
    }
    std::string text(const std::string& key) const
    {
        const GgufValue* value = file_.find(prefix_ + key);
        return value && value->type == GgufValueType::String ? value->text : std::string();
    }
    Status required(const std::string& key, const std::optional<Index>& value) const
    {
        if (value) return {};
        return Error{file_.path + ": metadata '" + prefix_ + key + "' is missing"};
    }

private:
    const GgufFile& file_;
    std::string prefix_;
};

#define QKV_TAKE(target, expression)                  \
    do {                                              \
        auto taken = (expression);                    \
        if (!taken) return Error{taken.error()};      \
        target = *taken;                              \
    } while (false)

Status readRope(const Keys& keys, CheckpointConfig& config)
{
    QKV_TAKE(config.ropeTheta, keys.positive("rope.freq_base"));
    const std::string scaling = keys.text("rope.scaling.type");
    if (scaling.empty() || scaling == "none") return {};
    if (scaling != "linear") {
        config.ropeScalingNotApplied = scaling;
        return {};
    }
    std::optional<double> factor;
    QKV_TAKE(factor, keys.positive("rope.scaling.factor"));
    if (factor && *factor != 1.0) {
        config.ropeScaling.kind = RopeScalingKind::Linear;
        config.ropeScaling.factor = *factor;
    }
    return {};
}

// Gemma 3's sliding layers: every P-th block global (attention.sliding_window_pattern a number,
// llama.cpp's default 6), or one flag per block (an array of bools: true slides).
Status readSlidingPattern(const GgufFile& file, const Keys& keys, CheckpointConfig& config)
{
    const GgufValue* listed = file.find("gemma3.attention.sliding_window_pattern");
    if (listed && listed->type == GgufValueType::Array) {
        if (listed->elementType != GgufValueType::Bool)
            return Error{file.path + ": metadata 'gemma3.attention.sliding_window_pattern' must be a number or bools"};
        for (double slides : listed->numbers) config.layerTypes.push_back(slides != 0 ? "sliding_attention" : "full_attention");
        return {};
    }
    std::optional<Index> pattern;
    QKV_TAKE(pattern, keys.count("attention.sliding_window_pattern"));
    config.slidingWindowPattern = pattern.value_or(6);
    return {};
}

// Whether llama3 scaling with these numbers gives the frequencies the file's factors do
// (llama.cpp divides each plain frequency by its factor).
bool matchesFactors(const RopeScaling& scaling, const Eigen::VectorXd& plain, const MatrixF& factors, Index d, double base)
{
    const Eigen::VectorXd scaled = rotaryFrequencies(d, base, scaling);
    for (Index i = 0; i < plain.size(); ++i) {
        const double expected = plain(i) / static_cast<double>(factors(0, i));
        if (std::abs(scaled(i) - expected) > 1e-5 * expected) return false;
    }
    return true;
}

// Llama 3's rope_scaling, which llama.cpp's converter stores as one factor per frequency (the
// rope_freqs tensor: 1 for short wavelengths, `factor` for long ones, a smooth blend between)
// instead of keys. Its numbers are recovered with low_freq_factor 1 and high_freq_factor 4 (every
// Llama 3.1 and 3.2): factor is the largest, and a blended frequency's
// s = (L / wavelength - 1) / 3 gives the original context L (else L = 8192). Applied only when
// those numbers give every factor back; otherwise reported as not applied.
void readRopeFactors(const GgufFile& file, CheckpointConfig& config)
{
    if (file.findTensor("rope_factors_long.weight") || file.findTensor("rope_factors_short.weight"))
        config.ropeScalingNotApplied = "longrope (the GGUF file's rope_factors_long and rope_factors_short)";
    const GgufTensorInfo* tensor = file.findTensor("rope_freqs.weight");
    if (!tensor || config.ropeScaling.kind != RopeScalingKind::None) return;
    config.ropeScalingNotApplied = "llama3 (the GGUF file's rope_freqs factors)";
    Expected<MatrixF> factors = readGgufTensor(file.path, *tensor);
    if (!factors || factors->rows() != 1 || factors->cols() == 0 || !config.ropeTheta) return;
    const Index d = 2 * factors->cols();
    const double base = *config.ropeTheta;
    const Eigen::VectorXd plain = rotaryFrequencies(d, base);
    RopeScaling scaling;
    scaling.kind = RopeScalingKind::Llama3;
    scaling.factor = factors->maxCoeff();
    scaling.lowFreqFactor = 1.0;
    scaling.highFreqFactor = 4.0;
    scaling.originalMaxPositions = 8192;
    constexpr double pi = 3.14159265358979323846;
    for (Index i = 0; i < plain.size(); ++i) {
        const double f = (*factors)(0, i);
        if (f <= 1.0 + 1e-6 || f >= scaling.factor - 1e-6) continue;
        const double s = (1.0 / f - 1.0 / scaling.factor) / (1.0 - 1.0 / scaling.factor);
        scaling.originalMaxPositions = std::round((3.0 * s + 1.0) * (2.0 * pi / plain(i)));
        break;
    }
    if (scaling.factor >= 1.0 && matchesFactors(scaling, plain, *factors, d, base)) {
        config.ropeScaling = scaling;
        config.ropeScalingNotApplied.clear();
    }
}

Status readGemma(const GgufFile& file, const Keys& keys, std::string_view architecture, CheckpointConfig& config)
{
    QKV_TAKE(config.attentionSoftCap, keys.positive("attn_logit_softcapping"));
    QKV_TAKE(config.finalLogitSoftCap, keys.positive("final_logit_softcapping"));
    // llama.cpp scales Gemma's queries by 1/sqrt(d_model / h) for the 27B models (46 blocks in
    // Gemma 2, 62 in Gemma 3), by 1/sqrt(d_k) otherwise: as their query_pre_attn_scalar says.
    // A file may say its scale itself (llama.cpp's attention.scale, a factor on q . k).
    const bool large = config.layerCount == (architecture == "gemma2" ? 46 : 62);
    std::optional<double> scale;
    QKV_TAKE(scale, keys.positive("attention.scale"));
    if (scale) config.queryPreAttnScalar = static_cast<Index>(std::lround(1.0 / (*scale * *scale)));
    else if (large && config.d_model && config.headCount) config.queryPreAttnScalar = *config.d_model / *config.headCount;
    else config.queryPreAttnScalar = config.headDim;
    if (architecture == "gemma3") {
        std::optional<double> localBase;  // the sliding layers' own base (newer files say it)
        QKV_TAKE(localBase, keys.positive("rope.freq_base_swa"));
        config.ropeLocalBase = localBase.value_or(10000.0);
        if (Status pattern = readSlidingPattern(file, keys, config); !pattern) return pattern;
    }
    return {};
}

}  // namespace

Expected<CheckpointConfig> ggufCheckpointConfig(const GgufFile& file, std::string_view architecture,
                                                std::string_view modelType)
{
    const Keys keys(file, architecture);
    CheckpointConfig config;
    config.modelType = std::string(modelType);
    QKV_TAKE(config.layerCount, keys.count("block_count"));
    QKV_TAKE(config.d_model, keys.count("embedding_length"));
    QKV_TAKE(config.d_ff, keys.count("feed_forward_length"));
    QKV_TAKE(config.headCount, keys.count("attention.head_count"));
    QKV_TAKE(config.keyValueHeadCount, keys.count("attention.head_count_kv"));
    QKV_TAKE(config.positionCount, keys.count("context_length"));
    for (const auto& [key, value] : {std::pair<const char*, const std::optional<Index>&>{"block_count", config.layerCount},
                                     {"embedding_length", config.d_model},
                                     {"attention.head_count", config.headCount}})
        if (Status status = keys.required(key, value); !status) return Error{status.error()};
    std::optional<Index> keyLength, valueLength;
    QKV_TAKE(keyLength, keys.count("attention.key_length"));
    QKV_TAKE(valueLength, keys.count("attention.value_length"));
    if (keyLength && valueLength && *keyLength != *valueLength)
        return Error{file.path + ": key_length " + std::to_string(*keyLength) + " and value_length " +
                     std::to_string(*valueLength) + " differ; heads of one width are read"};
    config.headDim = keyLength ? keyLength : valueLength;
    QKV_TAKE(config.rmsNormEpsilon, keys.positive("attention.layer_norm_rms_epsilon"));
    QKV_TAKE(config.slidingWindow, keys.count("attention.sliding_window"));
    if (Status rope = readRope(keys, config); !rope) return Error{rope.error()};
    // The rotated width of a head (Phi-3's partial_rotary_factor, as llama.cpp's n_rot).
    std::optional<Index> rotated;
    QKV_TAKE(rotated, keys.count("rope.dimension_count"));
    const Index d_k = config.headDim.value_or(config.d_model.value_or(0) / std::max<Index>(1, config.headCount.value_or(1)));
    if (rotated && d_k > 0 && *rotated != d_k) {
        if (*rotated > d_k)
            return Error{file.path + ": rope.dimension_count " + std::to_string(*rotated) + " is wider than a head (" +
                         std::to_string(d_k) + ")"};
        config.partialRotary = static_cast<double>(*rotated) / static_cast<double>(d_k);
    }
    readRopeFactors(file, config);
    if (architecture.starts_with("gemma"))
        if (Status gemma = readGemma(file, keys, architecture, config); !gemma) return Error{gemma.error()};
    if (const GgufValue* tokens = file.find("tokenizer.ggml.tokens"); tokens && tokens->arrayCount() > 0)
        config.vocabularySize = static_cast<Index>(tokens->arrayCount());
    return config;
}

}  // namespace qkv
