#pragma once
// The memory a whole-model run holds at its peak, term by term (core/config/memory_estimate.hpp
// does the same for one layer), so that a run can be held against the measured peak
// (docs/benchmarks.md) and refused before it starts when it would not fit.
//
// Symbols: n the tokens of the one sequence (an encoder-decoder's source), m the decoder's
// tokens (encoder-decoder), d = d_model, h query heads and kv = g d_k the width of K and V (each
// layer's own: BART's decoder may have fewer heads than its encoder), d_ff the MLP's inner width, V the vocabulary, k the logit rows asked
// (RunOptions::logitRows: n, or m, for all; the chosen count; 0 for none or a stopped run).
// Floats are 4 bytes; the weights are converted to float32 on loading.
//
//   weights  every tensor the model holds (counted: the loaded PretrainedModel)
//   layers   per attention layer run (LayerRun), with n_q, n_k its query and key/value rows:
//              X_q, X_kv                       (n_q + n_k) d
//              Q; K, V                         n_q d + 2 n_k kv
//              rotary: Q, K before rotation    n_q d + n_k kv
//              scores (keepScores), A          2 h n_q n_k  (h n_q n_k without scores or weights)
//              Concat(head_i), output          2 n_q d
//   hidden   h_0..h_b of each stack reached: (L + 1) n d for a whole stack, (b + 1) n d when
//            the run stopped in block b
//   logits   k V
//   scratch  alive only inside one step, the largest of: a block's MLP (the residual stream h,
//            the norm's x, the hidden n d_ff, SwiGLU's gate n d_ff, the output) and the readout
//            (t, a masked LM's transform, the gathered chosen rows and their padded product)
//   program  code, libraries, the heap's bookkeeping and Eigen's GEMM blocks
// peak = program + weights + layers + hidden + logits + scratch.

#include <cstddef>

#include "core/pretrained/model_run.hpp"
#include "core/pretrained/pretrained_model.hpp"

namespace qkv {

struct ModelMemoryEstimate {
    std::size_t weights = 0;
    std::size_t layers = 0;
    std::size_t hiddenStates = 0;
    std::size_t logits = 0;
    std::size_t scratch = 0;
    std::size_t program = 0;

    // What the model and one ModelRun hold once the run returns.
    std::size_t held() const { return weights + layers + hiddenStates + logits; }
    std::size_t peak() const { return program + held() + scratch; }
};

// Bytes of every weight the loaded model holds (matrices and vectors, float32).
std::size_t modelWeightBytes(const PretrainedModel& model);

// The estimate of runPretrainedModel(model, tokens, options) (options.previous is not counted:
// a shared layer is held once, by both runs). Tokens and options are taken as valid.
ModelMemoryEstimate estimateModelRunMemory(const PretrainedModel& model, const ModelTokens& tokens,
                                           const RunOptions& options = {});

// What a run holds besides the weights the model holds already, and whether that fits
// limits::maxModelRunBytes (runPretrainedModel refuses a run that does not, before it starts).
std::size_t modelRunBytes(const ModelMemoryEstimate& estimate);
bool modelRunFits(const PretrainedModel& model, const ModelTokens& tokens, const RunOptions& options = {});

// ---- Before loading: what a model will take, from its checkpoint's headers alone ----------------
// (openCheckpoint reads headers, never weights.) The weights are counted in float32, as loading
// converts them today whatever the file stores (bf16, f16, GGUF's quantized blocks):
//   whole      program + every stored tensor                                  (WeightResidency::Whole)
//   one block  program + the tensors outside the blocks (tables, readout, final norm)
//              + the largest block (the one a run converts while it runs it)  (OneBlockAtATime)
// each plus the run of a short prompt (kLoadEstimateTokens tokens; the legend above, every layer's
// maps and the logits of every position kept): a longer prompt takes more.

// The memory the system could give now (Linux: /proc/meminfo's MemAvailable), or 0 when unknown.
std::size_t availableMemoryBytes();

// What loadPretrainedModel's WeightResidency::Automatic chooses: Whole unless the weights in
// float32 would take over half the available memory (0: unknown, Whole).
WeightResidency automaticResidency(std::size_t float32WeightBytes, std::size_t availableBytes);

inline constexpr std::size_t kLoadEstimateTokens = 128;

struct ModelLoadMemory {
    std::size_t wholeBytes = 0;     // see above
    std::size_t oneBlockBytes = 0;  // equals wholeBytes for a model whose blocks are not known
    WeightResidency residency = WeightResidency::Whole;  // automaticResidency's choice
    std::size_t availableBytes = 0;                      // what it was held against (0: unknown)

    std::size_t bytes() const { return residency == WeightResidency::OneBlockAtATime ? oneBlockBytes : wholeBytes; }
    // Whether even the smaller way fits what is available (an unknown amount: yes).
    bool fits() const { return availableBytes == 0 || bytes() <= availableBytes; }
};

// The estimate for `checkpoint` against `availableBytes` (availableMemoryBytes() in the app; a
// test's own figure). A checkpoint whose family is not run whole (only its layers open) counts
// every tensor as one block.
ModelLoadMemory estimateModelLoadMemory(const Checkpoint& checkpoint, std::size_t availableBytes);

}  // namespace qkv
