#include "core/trainable/adamw.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace qkv {

template <typename Scalar>
AdamW<Scalar>::AdamW(const ModelSpec& spec, AdamWSettings settings) : settings_(settings)
{
    const std::vector<TensorSlot> layout = tensorLayout(spec);
    const std::size_t count = layout.empty() ? 0 : layout.back().offset + layout.back().size();
    m_.assign(count, Scalar(0));
    v_.assign(count, Scalar(0));
}

template <typename Scalar>
bool AdamW<Scalar>::restore(long steps, std::vector<Scalar> firstMoment, std::vector<Scalar> secondMoment)
{
    if (steps < 0 || firstMoment.size() != m_.size() || secondMoment.size() != v_.size()) return false;
    step_ = steps;
    m_ = std::move(firstMoment);
    v_ = std::move(secondMoment);
    return true;
}

template <typename Scalar>
double AdamW<Scalar>::learningRate(long step) const
{
    // Linear warm-up: step t (from 1) uses lr min(1, t / warmupSteps).
    if (settings_.warmupSteps <= 0 || step >= settings_.warmupSteps) return settings_.learningRate;
    return settings_.learningRate * static_cast<double>(step) / static_cast<double>(settings_.warmupSteps);
}

template <typename Scalar>
double AdamW<Scalar>::step(ModelParameters<Scalar>& parameters, ModelParameters<Scalar>& gradient)
{
    if (parameters.values.size() != m_.size() || gradient.values.size() != m_.size())
        return std::numeric_limits<double>::quiet_NaN();
    // clip_grad_norm_: the 2-norm of every gradient together, scaled down to clipNorm when above.
    double squares = 0.0;
    for (const Scalar g : gradient.values) squares += static_cast<double>(g) * static_cast<double>(g);
    const double norm = std::sqrt(squares);
    if (settings_.clipNorm > 0.0) {
        const double coefficient = settings_.clipNorm / (norm + 1e-6);
        if (coefficient < 1.0) {
            const auto c = static_cast<Scalar>(coefficient);
            for (Scalar& g : gradient.values) g *= c;
        }
    }
    ++step_;
    const double lr = learningRate(step_);
    const double beta1 = settings_.beta1, beta2 = settings_.beta2;
    // torch.optim.AdamW's order of operations (the single-tensor path), for the same rounding.
    const auto stepSize = static_cast<Scalar>(lr / (1.0 - std::pow(beta1, static_cast<double>(step_))));
    const auto correction2Root = static_cast<Scalar>(std::sqrt(1.0 - std::pow(beta2, static_cast<double>(step_))));
    const auto decay = static_cast<Scalar>(1.0 - lr * settings_.weightDecay);
    const auto b1 = static_cast<Scalar>(beta1), b2 = static_cast<Scalar>(beta2);
    const auto oneMinusB1 = static_cast<Scalar>(1.0 - beta1), oneMinusB2 = static_cast<Scalar>(1.0 - beta2);
    const auto epsilon = static_cast<Scalar>(settings_.epsilon);
    // A plain loop, not Eigen arrays: Eigen's packet sqrt is an approximation (EIGEN_FAST_MATH)
    // while its scalar head uses std::sqrt, so the bits would depend on the vector's alignment.
    // The compiler vectorises this loop with the exact sqrt instruction.
    for (const TensorSlot& slot : parameters.tensors) {
        Scalar* __restrict p = parameters.values.data() + slot.offset;
        const Scalar* __restrict g = gradient.values.data() + slot.offset;
        Scalar* __restrict m = m_.data() + slot.offset;
        Scalar* __restrict v = v_.data() + slot.offset;
        const Scalar slotDecay = slot.decays ? decay : Scalar(1);
        for (std::size_t i = 0; i < slot.size(); ++i) {
            p[i] *= slotDecay;                                    // p <- p (1 - lr wd)
            m[i] = b1 * m[i] + oneMinusB1 * g[i];                 // m <- beta1 m + (1 - beta1) g
            v[i] = b2 * v[i] + oneMinusB2 * g[i] * g[i];          // v <- beta2 v + (1 - beta2) g^2
            p[i] -= stepSize * (m[i] / (std::sqrt(v[i]) / correction2Root + epsilon));
        }
    }
    return norm;
}

template class AdamW<float>;
template class AdamW<double>;

}  // namespace qkv
