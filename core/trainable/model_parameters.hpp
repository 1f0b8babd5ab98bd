#pragma once
// Every learned number of a model in one flat array, with a table of named tensors into it.
// Flat, so that the optimiser, gradient clipping and the session file see one vector; named, so
// that a view or a file reads "decoder.0.cross_attention.W_Q" without knowing offsets.
//
// Tensor names (row vectors; docs/architecture.md, "Numerical conventions"), l from 0:
//   embedding.token                          V x d_model
//   embedding.position                       P x d_model        (PositionKind::Learned only)
//   encoder.l.self_attention.W_Q|W_K         d_model x d_model  (ScoreForm::Factored; head i owns
//                                                                columns [i d_k, (i+1) d_k))
//   encoder.l.self_attention.W_1 .. W_h      d_model x d_model  (ScoreForm::Full: the paper's W_i)
//   encoder.l.self_attention.W_V|W_O         d_model x d_model  (attention has no biases)
//   encoder.l.norm_attention.gamma|beta      1 x d_model        (NormKind::LayerNorm)
//   encoder.l.mlp.W_in, b_in                 d_model x d_ff, 1 x d_ff   (d_ff > 0)
//   encoder.l.mlp.W_out, b_out               d_ff x d_model, 1 x d_model
//   encoder.l.norm_mlp.gamma|beta
//   decoder.l.self_attention.*, decoder.l.norm_self.*,
//   decoder.l.cross_attention.*, decoder.l.norm_cross.*   (with an encoder)
//   decoder.l.mlp.*, decoder.l.norm_mlp.*
//   encoder.norm_final.*, decoder.norm_final.*  (pre-norm with LayerNorm)
//   readout.W                                d_model x V
//   readout.b                                1 x V

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "core/ops/attention_mask.hpp"
#include "core/config/config.hpp"
#include "core/trainable/model_spec.hpp"
#include "core/weights/attention_weights.hpp"

namespace qkv {

struct TensorSlot {
    std::string name;
    Index rows = 0, cols = 0;
    std::size_t offset = 0;  // into ModelParameters::values
    // AdamW's weight decay applies to matrices that multiply activations (projections, MLP,
    // readout), not to embeddings, norms or biases.
    bool decays = false;
    std::size_t size() const { return static_cast<std::size_t>(rows * cols); }
};

// The tensors of `spec`, in the order listed above, packed back to back; none when
// spec.problem() is not empty (then ModelParameters hold no values and every step reports it).
std::vector<TensorSlot> tensorLayout(const ModelSpec& spec);

// One attention sublayer of the model, in model order (encoder layers, then decoder layers;
// within a decoder layer self before cross).
struct AttentionLayerInfo {
    std::string name;    // "encoder.0.self_attention", "decoder.1.cross_attention"
    AttentionMode kind;  // EncoderSelf, DecoderCausal or Cross
    Index block = 0;     // layer index within its stack
};
std::vector<AttentionLayerInfo> attentionLayers(const ModelSpec& spec);

template <typename Scalar>
struct ModelParameters {
    using Matrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    using Map = Eigen::Map<Matrix>;
    using ConstMap = Eigen::Map<const Matrix>;

    ModelSpec spec;
    std::vector<TensorSlot> tensors;  // tensorLayout(spec)
    std::vector<Scalar> values;       // every tensor, back to back

    // Zeros in the layout of `spec` (a gradient buffer has this shape too).
    static ModelParameters zeros(const ModelSpec& spec);
    // Seeded initialisation; same seed, same bits. Projections, the MLP and the readout
    // Xavier-uniform (fan_in + fan_out); a full head's W_i uniform with the variance of the
    // product W_i^Q (W_i^K)^T of two such factors, d_k / d_model^2, so that both score forms
    // start with scores of the same spread; embeddings N(0, 1/d_model) when scaled by
    // sqrt(d_model) (so the scaled embedding has unit variance), else N(0, 1); learned positions
    // N(0, 0.02^2); LayerNorm gamma 1 and beta 0, biases 0. Each tensor draws from its own
    // stream keyed by its name.
    static ModelParameters initialised(const ModelSpec& spec, std::uint64_t seed);

    const TensorSlot* find(const std::string& name) const;
    // Preconditions: the tensor exists (asserted).
    Map tensor(const std::string& name);
    ConstMap tensor(const std::string& name) const;
    Map tensor(const TensorSlot& slot) { return Map(values.data() + slot.offset, slot.rows, slot.cols); }
    ConstMap tensor(const TensorSlot& slot) const
    {
        return ConstMap(values.data() + slot.offset, slot.rows, slot.cols);
    }
    std::size_t count() const { return values.size(); }

    template <typename Other>
    ModelParameters<Other> cast() const
    {
        ModelParameters<Other> out{spec, tensors, {}};
        out.values.assign(values.begin(), values.end());
        return out;
    }
};

// Parameters that form a head's scores (W_Q and W_K, or the W_i), summed over every attention
// layer: 2 d_model d_k or d_model^2 per head (the comparison the factored/full experiment reports).
std::size_t scoreParameterCount(const ModelSpec& spec);
// Every parameter of every attention sublayer (W_Q, W_K or W_i, W_V, W_O).
std::size_t attentionParameterCount(const ModelSpec& spec);

// The attention layer as the rest of the app computes it: W^Q, W^K, W^V, W^O, no biases; `layer`
// indexes attentionLayers(spec). A Full model's head i is shown as W_i^Q = W_i and W_i^K = I
// (d_model x d_model each, so d_k = d_model and Q_i K_i^T = X_q W_i X_kv^T, its scores before
// the scale) with its own values, d_v = d_model / h; its model scales the scores by
// 1/sqrt(d_model / h) (AttentionOptions::scoreDim). For a layer that does not exist nothing:
// std::nullopt.
std::optional<AttentionWeights> attentionLayerWeights(const ModelParameters<float>& parameters, Index layer);
// Head `head`'s W_i of layer `layer` in double, d_model x d_model: W_i^Q (W_i^K)^T for factored
// models, the learned matrix for full ones; empty for a layer or head that does not exist.
MatrixD headBilinearForm(const ModelParameters<float>& parameters, Index layer, Index head);

extern template struct ModelParameters<float>;
extern template struct ModelParameters<double>;

}  // namespace qkv
