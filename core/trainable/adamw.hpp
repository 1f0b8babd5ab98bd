#pragma once
// AdamW (Loshchilov & Hutter, 2019) with global gradient-norm clipping, as PyTorch's
// torch.optim.AdamW and torch.nn.utils.clip_grad_norm_ compute them:
//   g <- g * min(1, clipNorm / (||g||_2 + 1e-6))            (skipped when clipNorm <= 0)
//   p <- p - lr * weightDecay * p                          (tensors with TensorSlot::decays)
//   m <- beta1 m + (1 - beta1) g;  v <- beta2 v + (1 - beta2) g^2
//   p <- p - lr * (m / (1 - beta1^t)) / (sqrt(v / (1 - beta2^t)) + epsilon)
// with lr at step t (from 1) = learningRate * min(1, t / warmupSteps). Computed in PyTorch's order
// of operations (the bias corrections in double, the update in Scalar), so float runs follow
// torch.optim.AdamW closely.

#include <vector>

#include "core/trainable/model_parameters.hpp"

namespace qkv {

struct AdamWSettings {
    double learningRate = 3e-3;
    double beta1 = 0.9, beta2 = 0.98;
    double epsilon = 1e-8;
    double weightDecay = 0.01;
    double clipNorm = 1.0;
    // Linear warm-up over this many steps, then constant.
    long warmupSteps = 0;
};

template <typename Scalar>
class AdamW {
public:
    AdamW(const ModelSpec& spec, AdamWSettings settings);
    // Clips `gradient` in place, then updates `parameters`. Returns the norm before clipping;
    // NaN, changing nothing, when either does not have one value per parameter of the spec.
    double step(ModelParameters<Scalar>& parameters, ModelParameters<Scalar>& gradient);
    long steps() const { return step_; }
    const AdamWSettings& settings() const { return settings_; }
    // The learning rate step t (from 1) uses, after the warm-up.
    double learningRate(long step) const;
    // The moments, for saving and restoring a paused run bit for bit.
    const std::vector<Scalar>& firstMoment() const { return m_; }
    const std::vector<Scalar>& secondMoment() const { return v_; }
    // Puts back a saved state (steps done and both moments); false, changing nothing, when the
    // moments do not have one entry per parameter or steps is negative.
    bool restore(long steps, std::vector<Scalar> firstMoment, std::vector<Scalar> secondMoment);

private:
    AdamWSettings settings_;
    std::vector<Scalar> m_, v_;
    long step_ = 0;
};

extern template class AdamW<float>;
extern template class AdamW<double>;

}  // namespace qkv
