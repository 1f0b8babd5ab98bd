#include "ui/circuits/circuit_store.hpp"

#include <map>
#include <mutex>
#include <utility>

namespace qkv::ui {
namespace {

struct Store {
    std::mutex mutex;
    std::weak_ptr<const qkv::PretrainedModel> model;  // whose numbers these are
    const qkv::PretrainedModel* identity = nullptr;
    std::shared_ptr<const qkv::CircuitBasis> basis;
    std::shared_ptr<const qkv::MatrixD> copyingScores;
    std::map<std::pair<qkv::Index, qkv::Index>, qkv::HeadSpectrum> spectra;
    std::shared_ptr<const AblationEffects> ablation;
};

Store& store()
{
    static Store instance;
    return instance;
}

// Under the lock: the store's entries are `model`'s from here on (another model's are dropped).
bool holds(Store& s, const CircuitModel& model, bool adopt)
{
    const bool same = s.identity == model.get() && !s.model.expired();
    if (same || !adopt) return same;
    s.model = model;
    s.identity = model.get();
    s.basis.reset();
    s.copyingScores.reset();
    s.spectra.clear();
    s.ablation.reset();
    return true;
}

}  // namespace

std::shared_ptr<const qkv::CircuitBasis> storedBasis(const CircuitModel& model)
{
    Store& s = store();
    const std::lock_guard lock(s.mutex);
    return model && holds(s, model, false) ? s.basis : nullptr;
}

std::shared_ptr<const qkv::MatrixD> storedCopyingScores(const CircuitModel& model)
{
    Store& s = store();
    const std::lock_guard lock(s.mutex);
    return model && holds(s, model, false) ? s.copyingScores : nullptr;
}

std::optional<qkv::HeadSpectrum> storedSpectrum(const CircuitModel& model, const qkv::CircuitHead& head)
{
    Store& s = store();
    const std::lock_guard lock(s.mutex);
    if (!model || !holds(s, model, false)) return std::nullopt;
    const auto found = s.spectra.find({head.layer, head.head});
    if (found == s.spectra.end()) return std::nullopt;
    return found->second;
}

qkv::Expected<std::shared_ptr<const qkv::CircuitBasis>> circuitBasisOf(const CircuitModel& model,
                                                                       const std::atomic<bool>* stop)
{
    if (!model) return qkv::Error{"No model."};
    if (std::shared_ptr<const qkv::CircuitBasis> basis = storedBasis(model)) return basis;
    // Computed outside the lock: two threads asking at once may both compute it.
    qkv::Expected<qkv::CircuitBasis> computed = qkv::circuitBasis(*model, stop);
    if (!computed) return qkv::Error{computed.error()};
    auto basis = std::make_shared<const qkv::CircuitBasis>(std::move(*computed));
    Store& s = store();
    const std::lock_guard lock(s.mutex);
    holds(s, model, true);
    s.basis = basis;
    return basis;
}

qkv::Expected<std::shared_ptr<const qkv::MatrixD>> copyingScoresOf(
    const CircuitModel& model, const std::function<bool(qkv::Index, qkv::Index)>& progress)
{
    if (std::shared_ptr<const qkv::MatrixD> scores = storedCopyingScores(model)) return scores;
    qkv::Expected<std::shared_ptr<const qkv::CircuitBasis>> basis = circuitBasisOf(model);
    if (!basis) return qkv::Error{basis.error()};
    qkv::Expected<qkv::MatrixD> grid = qkv::copyingScoreGrid(*model, **basis, progress);
    if (!grid) return qkv::Error{grid.error()};
    auto scores = std::make_shared<const qkv::MatrixD>(std::move(*grid));
    Store& s = store();
    const std::lock_guard lock(s.mutex);
    holds(s, model, true);
    s.copyingScores = scores;
    return scores;
}

qkv::Expected<qkv::HeadSpectrum> headSpectrumOf(const CircuitModel& model, const qkv::CircuitHead& head)
{
    if (std::optional<qkv::HeadSpectrum> spectrum = storedSpectrum(model, head)) return *spectrum;
    qkv::Expected<std::shared_ptr<const qkv::CircuitBasis>> basis = circuitBasisOf(model);
    if (!basis) return qkv::Error{basis.error()};
    qkv::Expected<qkv::HeadSpectrum> spectrum = qkv::headSpectrum(*model, **basis, head);
    if (!spectrum) return qkv::Error{spectrum.error()};
    Store& s = store();
    const std::lock_guard lock(s.mutex);
    holds(s, model, true);
    s.spectra[{head.layer, head.head}] = *spectrum;
    return spectrum;
}

void storeAblationEffects(AblationEffects effects)
{
    if (!effects.overview) return;
    Store& s = store();
    const std::lock_guard lock(s.mutex);
    holds(s, effects.overview->model, true);
    s.ablation = std::make_shared<const AblationEffects>(std::move(effects));
}

std::shared_ptr<const AblationEffects> storedAblationEffects(const std::shared_ptr<const qkv::ModelOverview>& overview)
{
    Store& s = store();
    const std::lock_guard lock(s.mutex);
    if (!overview || !s.ablation || s.ablation->overview != overview) return nullptr;
    return s.ablation;
}

void clearCircuitStore()
{
    Store& s = store();
    const std::lock_guard lock(s.mutex);
    s.model.reset();
    s.identity = nullptr;
    s.basis.reset();
    s.copyingScores.reset();
    s.spectra.clear();
    s.ablation.reset();
}

}  // namespace qkv::ui
