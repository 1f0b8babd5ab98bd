#include "core/weights/attention_weights.hpp"

#include <cmath>
#include <string_view>

#include "core/common/random.hpp"

namespace qkv {

namespace {

// Each matrix draws from its own stream, keyed by its name, so adding biases or changing the
// initialisation of one matrix never shifts the numbers of another.
MatrixF initialiseMatrix(Index d_model, std::uint64_t seed, WeightInit init, std::string_view name)
{
    SplitMix64 stream(hashWithSeed(name, seed));
    MatrixF matrix(d_model, d_model);
    const double fan = static_cast<double>(d_model);
    // Glorot & Bengio (2010): a = sqrt(6 / (fan_in + fan_out)).
    const double xavierBound = std::sqrt(6.0 / (fan + fan));
    const double normalDeviation = 1.0 / std::sqrt(fan);
    for (Index row = 0; row < d_model; ++row) {
        for (Index column = 0; column < d_model; ++column) {
            const double value = init == WeightInit::XavierUniform
                                     ? stream.uniform(-xavierBound, xavierBound)
                                     : normalDeviation * stream.normal();
            matrix(row, column) = static_cast<float>(value);
        }
    }
    return matrix;
}

}  // namespace

AttentionWeights initialiseWeights(Index d_model, std::uint64_t seed, WeightInit init, bool withBias)
{
    AttentionWeights weights;
    weights.queryProjection = initialiseMatrix(d_model, seed, init, "W_Q");
    weights.keyProjection = initialiseMatrix(d_model, seed, init, "W_K");
    weights.valueProjection = initialiseMatrix(d_model, seed, init, "W_V");
    weights.outputProjection = initialiseMatrix(d_model, seed, init, "W_O");
    if (withBias) {
        weights.queryBias = RowVectorF::Zero(d_model);
        weights.keyBias = RowVectorF::Zero(d_model);
        weights.valueBias = RowVectorF::Zero(d_model);
        weights.outputBias = RowVectorF::Zero(d_model);
    }
    return weights;
}

AttentionWeights scaledWeights(const AttentionWeights& weights, const ProjectionScales& scales)
{
    if (scales == ProjectionScales{}) return weights;
    AttentionWeights scaled = weights;
    scaled.queryProjection *= scales.query;
    scaled.keyProjection *= scales.key;
    scaled.valueProjection *= scales.value;
    scaled.outputProjection *= scales.output;
    if (scaled.queryBias) *scaled.queryBias *= scales.query;
    if (scaled.keyBias) *scaled.keyBias *= scales.key;
    if (scaled.valueBias) *scaled.valueBias *= scales.value;
    if (scaled.outputBias) *scaled.outputBias *= scales.output;
    return scaled;
}

bool allFinite(const AttentionWeights& weights)
{
    const auto finiteBias = [](const std::optional<RowVectorF>& bias) { return !bias || bias->allFinite(); };
    return weights.queryProjection.allFinite() && weights.keyProjection.allFinite() &&
           weights.valueProjection.allFinite() && weights.outputProjection.allFinite() &&
           finiteBias(weights.queryBias) && finiteBias(weights.keyBias) &&
           finiteBias(weights.valueBias) && finiteBias(weights.outputBias);
}

}  // namespace qkv
