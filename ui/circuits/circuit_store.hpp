#pragma once
// What the Circuits tab computed for the latest model (core/circuits/head_circuits.hpp), kept
// where its figures find it: W_U W_E (CircuitBasis, ~1 s for a large vocabulary), the copying
// scores of every head, each head's spectrum, the heads map's ablation effects and axes.
//
// The figures are widget-free (ui/figures/figure.hpp): an export or `qkv-studio figure` asks
// for the numbers with the *Of functions, which compute what is missing on the calling thread
// (export is not the GUI's frame). The tab computes them off the GUI thread and paints only
// what stored*() already holds, so the screen never waits. One model is kept: another model
// replaces it. Every function is safe from any thread.

#include <QString>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "core/analysis/predictions.hpp"
#include "core/circuits/head_circuits.hpp"
#include "core/common/expected.hpp"
#include "core/pipeline/model_overview.hpp"

namespace qkv::ui {

using CircuitModel = std::shared_ptr<const qkv::PretrainedModel>;

// Computed when missing (any thread but the GUI's). `stop` set ends the basis with an error.
qkv::Expected<std::shared_ptr<const qkv::CircuitBasis>> circuitBasisOf(const CircuitModel& model,
                                                                       const std::atomic<bool>* stop = nullptr);
// L x h, NaN for cross-attention layers. `progress(done, total)` per layer; false stops.
qkv::Expected<std::shared_ptr<const qkv::MatrixD>> copyingScoresOf(
    const CircuitModel& model, const std::function<bool(qkv::Index, qkv::Index)>& progress = {});
qkv::Expected<qkv::HeadSpectrum> headSpectrumOf(const CircuitModel& model, const qkv::CircuitHead& head);

// Only what is stored; never computes (the GUI thread).
std::shared_ptr<const qkv::CircuitBasis> storedBasis(const CircuitModel& model);
std::shared_ptr<const qkv::MatrixD> storedCopyingScores(const CircuitModel& model);
std::optional<qkv::HeadSpectrum> storedSpectrum(const CircuitModel& model, const qkv::CircuitHead& head);

// The heads map's ablation axis: how switching each head off changes the probability of one
// prediction (core's rankHeadsAtPosition), for the overview it was ranked on.
struct AblationEffects {
    std::shared_ptr<const qkv::ModelOverview> overview;
    qkv::Index position = -1;
    QString token;  // the predicted token, as text
    std::vector<qkv::HeadEffect> effects;
};
void storeAblationEffects(AblationEffects effects);
// The effects ranked on `overview`, or null.
std::shared_ptr<const AblationEffects> storedAblationEffects(const std::shared_ptr<const qkv::ModelOverview>& overview);

// Forgets everything (tests).
void clearCircuitStore();

}  // namespace qkv::ui
