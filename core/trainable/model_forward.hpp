#pragma once
// Loss and gradients of a batch, and the trace of one example for the views (the llm.c way:
// each step is one function with its backward beside it, in model_steps.hpp).
//
// A batch packs its sequences' rows back to back (no padding): the dense steps (projections,
// MLP, norms, readout) run as one product over every row of the batch, attention per sequence.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/trainable/model_parameters.hpp"

namespace qkv {

// One training example as token ids (Vocabulary in core/training/vocabulary.hpp).
struct SequencePair {
    std::vector<std::int32_t> source;        // encoder input, n_s ids (empty for decoder-only models)
    std::vector<std::int32_t> targetInput;   // decoder input, n_t ids (begins with <bos> for seq2seq)
    std::vector<std::int32_t> targetOutput;  // the next token at each decoder position, n_t ids;
                                             // -1 where no loss is taken
};

struct BatchLoss {
    double loss = 0.0;          // mean cross-entropy over the scored target tokens (natural log)
    Index scoredTokens = 0;     // target positions with a label
    Index correctTokens = 0;    // ... whose argmax is the label
    Index sequences = 0;
    Index correctSequences = 0; // sequences with every scored token correct
    // Empty, or why the batch was not computed (batchProblem); then the numbers above are zero,
    // the loss NaN and the gradient untouched.
    std::string problem;
};

// Empty when `batch` fits `spec`; else what is wrong, naming the sequence. Every sequence needs
// 1..P decoder ids and as many targetOutput entries (each -1 or an id), and with an encoder
// 1..P source ids; ids lie in 0..V-1. A decoder-only model ignores `source`.
std::string batchProblem(const ModelSpec& spec, const std::vector<SequencePair>& batch);

// Scratch memory reused between steps (activations kept for the backward pass): a step whose
// batch has no more rows than an earlier one allocates nothing. One per thread; the overloads
// without one use a workspace of the calling thread.
template <typename Scalar>
class ForwardWorkspace {
public:
    ForwardWorkspace();
    ~ForwardWorkspace();
    ForwardWorkspace(ForwardWorkspace&&) noexcept;
    ForwardWorkspace& operator=(ForwardWorkspace&&) noexcept;

    struct State;  // model_workspace.hpp
    State& state() { return *state_; }

private:
    std::unique_ptr<State> state_;
};

// Forward and backward of the mean cross-entropy over the batch. `gradient` has the layout of
// `parameters` and is overwritten. Same inputs, same bits (single thread).
template <typename Scalar>
BatchLoss lossAndGradient(const ModelParameters<Scalar>& parameters, const std::vector<SequencePair>& batch,
                          ModelParameters<Scalar>& gradient);
template <typename Scalar>
BatchLoss lossAndGradient(const ModelParameters<Scalar>& parameters, const std::vector<SequencePair>& batch,
                          ModelParameters<Scalar>& gradient, ForwardWorkspace<Scalar>& workspace);
// Forward only (held-out evaluation).
template <typename Scalar>
BatchLoss evaluateLoss(const ModelParameters<Scalar>& parameters, const std::vector<SequencePair>& batch);
template <typename Scalar>
BatchLoss evaluateLoss(const ModelParameters<Scalar>& parameters, const std::vector<SequencePair>& batch,
                       ForwardWorkspace<Scalar>& workspace);

// What the views show of one example: every attention sublayer's inputs and weights.
struct AttentionLayerTrace {
    AttentionLayerInfo info;
    MatrixF queryInput;             // X_q, n_q x d_model: the normed residual stream the layer reads
    MatrixF keyValueInput;          // X_kv, n_k x d_model (the encoder output for cross-attention)
    std::vector<MatrixF> attention; // h entries, n_q x n_k, rows sum to 1
};
struct ModelTrace {
    std::vector<AttentionLayerTrace> layers;  // attentionLayers(spec) order
    MatrixF logits;                           // n_t x V
};
// An example that does not fit the model (batchProblem) gives an empty trace.
ModelTrace traceExample(const ModelParameters<float>& parameters, const SequencePair& example);

// Greedy decoding for seq2seq tasks: feeds <bos>, appends the argmax until <eos> or maxLength.
// Returns the written ids after <bos>, ending with <eos> when the model wrote it (so a correct
// answer equals the example's targetOutput); at most min(maxLength, P) ids. A source that does
// not fit the model gives an empty answer.
std::vector<std::int32_t> greedyDecode(const ModelParameters<float>& parameters,
                                       const std::vector<std::int32_t>& source, std::int32_t bos, std::int32_t eos,
                                       Index maxLength);

extern template class ForwardWorkspace<float>;
extern template class ForwardWorkspace<double>;
extern template BatchLoss lossAndGradient<float>(const ModelParameters<float>&, const std::vector<SequencePair>&,
                                                 ModelParameters<float>&);
extern template BatchLoss lossAndGradient<double>(const ModelParameters<double>&, const std::vector<SequencePair>&,
                                                  ModelParameters<double>&);
extern template BatchLoss lossAndGradient<float>(const ModelParameters<float>&, const std::vector<SequencePair>&,
                                                 ModelParameters<float>&, ForwardWorkspace<float>&);
extern template BatchLoss lossAndGradient<double>(const ModelParameters<double>&, const std::vector<SequencePair>&,
                                                  ModelParameters<double>&, ForwardWorkspace<double>&);
extern template BatchLoss evaluateLoss<float>(const ModelParameters<float>&, const std::vector<SequencePair>&);
extern template BatchLoss evaluateLoss<double>(const ModelParameters<double>&, const std::vector<SequencePair>&);
extern template BatchLoss evaluateLoss<float>(const ModelParameters<float>&, const std::vector<SequencePair>&,
                                              ForwardWorkspace<float>&);
extern template BatchLoss evaluateLoss<double>(const ModelParameters<double>&, const std::vector<SequencePair>&,
                                               ForwardWorkspace<double>&);

}  // namespace qkv
