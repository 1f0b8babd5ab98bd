#pragma once
// Config (+ optional user weights and embeddings) -> one immutable Result.
// The single entry point the GUI and the command line share.

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/attention/multi_head_attention.hpp"
#include "core/common/expected.hpp"
#include "core/config/config.hpp"
#include "core/embedding/model_input.hpp"
#include "core/pipeline/compute_request.hpp"
#include "core/presets/head_presets.hpp"
#include "core/result/result.hpp"
#include "core/result/user_inputs.hpp"
#include "core/text/tokenizer.hpp"
#include "core/weights/attention_weights.hpp"

namespace qkv {

// The generated weights of the last configuration asked for, kept by the caller (the app's
// document) so that typing a sentence or dragging a scale slider skips regenerating
// 4 d_model^2 random numbers (8 ms at d_model 512). Thread-safe; no global state.
class GeneratedWeightsCache {
public:
    std::shared_ptr<const AttentionWeights> get(const Config& config);
    // Fitted positional heads and position-free bases of the head presets.
    PresetCache& presets() { return presets_; }

private:
    PresetCache presets_;
    struct Key {
        Index d_model = 0;
        HeadGrouping heads;  // the widths h d_k and g d_k
        std::uint64_t seed = 0;
        WeightInit init = WeightInit::XavierUniform;
        bool withBias = false;
        bool operator==(const Key&) const = default;
    };
    std::mutex mutex_;
    std::optional<Key> key_;
    std::shared_ptr<const AttentionWeights> weights_;
};

// How a layer of `config` computes attention: the mask (with its sliding window), rotary positions,
// the scores' scale and soft cap, the switched-off heads.
AttentionOptions attentionOptions(const Config& config);

// Computes a prepared request (core/pipeline/compute_request.hpp): refuses one with issues, checks
// the values of loaded weights and embeddings (off the GUI thread: up to 4 d_model^2 numbers),
// and reads the sentences as the request cut them. Never throws, never crashes on bad input.
// `cache` (optional) keeps generated weights between calls. A streamed plan (a long layer) counts
// its finished query rows into `control.rowsDone` (h n_q in all) and ends with streamStoppedError
// when `control.stop` is set; a held plan takes well under a second and ignores `control`.
Expected<std::shared_ptr<const Result>> compute(const ComputeRequest& request, GeneratedWeightsCache* cache = nullptr,
                                                const StreamControl& control = {});

// prepareCompute, then the above: for callers that compute once (the command line, tests).
Expected<std::shared_ptr<const Result>> compute(const Config& config, const UserInputs& inputs = {},
                                                GeneratedWeightsCache* cache = nullptr);

}  // namespace qkv
