#pragma once
// Shared by the model tests: reading make_model_fixtures.py's JSON, random batches, and
// EXPECT_TENSOR_NEAR, which names the tensor and prints its worst entry.

#include <cmath>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/common/random.hpp"
#include "core/trainable/model_forward.hpp"
#include "support/test_paths.hpp"

namespace qkv::testing {

inline nlohmann::json readFixture(const std::string& name)
{
    std::ifstream file(std::string(qkv::testDataDir()) + "/model/" + name);
    if (!file) return {};
    return nlohmann::json::parse(file);
}

template <class Enum, class Table>
Enum enumFromJson(const nlohmann::json& value, const Table& table)
{
    Enum result{};
    EXPECT_TRUE(parseName(table, value.get<std::string>(), result)) << value;
    return result;
}

inline ModelSpec specFromJson(const nlohmann::json& j)
{
    ModelSpec spec;
    spec.vocabularySize = j.at("vocabulary").get<Index>();
    spec.maxPositions = j.at("max_positions").get<Index>();
    spec.d_model = j.at("d_model").get<Index>();
    spec.headCount = j.at("heads").get<Index>();
    spec.encoderLayers = j.at("encoder_layers").get<Index>();
    spec.decoderLayers = j.at("decoder_layers").get<Index>();
    spec.d_ff = j.at("d_ff").get<Index>();
    spec.norm = enumFromJson<NormKind>(j.at("norm"), kNormKindNames);
    spec.placement = enumFromJson<NormPlacement>(j.at("placement"), kNormPlacementNames);
    spec.normEpsilon = j.at("norm_epsilon").get<double>();
    spec.activation = enumFromJson<Activation>(j.at("activation"), kActivationNames);
    spec.positions = enumFromJson<PositionKind>(j.at("positions"), kPositionKindNames);
    spec.scoreForm = enumFromJson<ScoreForm>(j.at("score_form"), kScoreFormNames);
    spec.scaleEmbedding = j.at("scale_embedding").get<bool>();
    return spec;
}

// Every tensor of `spec` from a {name: rows} object; a missing or misshapen tensor fails the test.
template <typename Scalar>
ModelParameters<Scalar> parametersFromJson(const ModelSpec& spec, const nlohmann::json& tensors)
{
    ModelParameters<Scalar> parameters = ModelParameters<Scalar>::zeros(spec);
    EXPECT_EQ(tensors.size(), parameters.tensors.size()) << "the fixture and tensorLayout list different tensors";
    for (const TensorSlot& slot : parameters.tensors) {
        if (!tensors.contains(slot.name)) {
            ADD_FAILURE() << "the fixture has no tensor " << slot.name;
            continue;
        }
        const nlohmann::json& rows = tensors.at(slot.name);
        EXPECT_EQ(static_cast<Index>(rows.size()), slot.rows) << slot.name;
        auto tensor = parameters.tensor(slot);
        for (Index r = 0; r < std::min<Index>(slot.rows, static_cast<Index>(rows.size())); ++r) {
            const nlohmann::json& row = rows.at(static_cast<std::size_t>(r));
            EXPECT_EQ(static_cast<Index>(row.size()), slot.cols) << slot.name;
            for (Index c = 0; c < std::min<Index>(slot.cols, static_cast<Index>(row.size())); ++c)
                tensor(r, c) = static_cast<Scalar>(row.at(static_cast<std::size_t>(c)).get<double>());
        }
    }
    return parameters;
}

inline std::vector<SequencePair> batchFromJson(const nlohmann::json& batch)
{
    std::vector<SequencePair> pairs;
    for (const nlohmann::json& pair : batch)
        pairs.push_back({pair.at("source").get<std::vector<std::int32_t>>(),
                         pair.at("target_input").get<std::vector<std::int32_t>>(),
                         pair.at("target_output").get<std::vector<std::int32_t>>()});
    return pairs;
}

// `count` random pairs for `spec` (source 1-6 ids with an encoder, decoder 1-7 ids, about one
// label in five -1).
inline std::vector<SequencePair> randomBatch(const ModelSpec& spec, std::size_t count, std::uint64_t seed)
{
    SplitMix64 random(seed);
    const auto id = [&] { return static_cast<std::int32_t>(random.next() % static_cast<std::uint64_t>(spec.vocabularySize)); };
    std::vector<SequencePair> batch(count);
    for (SequencePair& pair : batch) {
        const std::size_t sourceLength = spec.hasEncoder() ? 1 + random.next() % 6 : 0;
        const std::size_t targetLength = 1 + random.next() % 7;
        for (std::size_t i = 0; i < sourceLength; ++i) pair.source.push_back(id());
        for (std::size_t i = 0; i < targetLength; ++i) {
            pair.targetInput.push_back(id());
            pair.targetOutput.push_back(random.next() % 5 == 0 ? -1 : id());
        }
    }
    return batch;
}

// |actual - expected| <= relative * max|expected| over the tensor (relative to its largest entry,
// so that entries near zero are held to the tensor's scale, not to their own).
template <class A, class B>
::testing::AssertionResult tensorNear(const std::string& name, const A& actual, const B& expected, double relative)
{
    if (actual.rows() != expected.rows() || actual.cols() != expected.cols())
        return ::testing::AssertionFailure() << name << " is " << actual.rows() << "x" << actual.cols()
                                             << ", expected " << expected.rows() << "x" << expected.cols();
    const double scale = std::max(expected.template cast<double>().cwiseAbs().maxCoeff(), 1e-300);
    double worst = 0.0;
    Index worstRow = 0, worstCol = 0;
    for (Index r = 0; r < actual.rows(); ++r)
        for (Index c = 0; c < actual.cols(); ++c) {
            const double difference = std::abs(static_cast<double>(actual(r, c)) - static_cast<double>(expected(r, c)));
            if (!(difference <= worst)) {  // also catches NaN
                worst = std::isnan(difference) ? INFINITY : difference;
                worstRow = r;
                worstCol = c;
            }
        }
    if (worst <= relative * scale) return ::testing::AssertionSuccess();
    std::ostringstream out;
    out.precision(17);
    out << name << " differs by " << worst << " (" << worst / scale << " of its largest entry " << scale
        << "; allowed " << relative << ") at (" << worstRow << ", " << worstCol << "): "
        << static_cast<double>(actual(worstRow, worstCol)) << " vs expected "
        << static_cast<double>(expected(worstRow, worstCol));
    return ::testing::AssertionFailure() << out.str();
}

}  // namespace qkv::testing

#define EXPECT_TENSOR_NEAR(name, actual, expected, relative) \
    EXPECT_TRUE(::qkv::testing::tensorNear(name, actual, expected, relative))
