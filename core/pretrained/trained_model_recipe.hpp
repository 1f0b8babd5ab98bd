#pragma once
// A model trained in the app (core/training/trained_model.hpp) described as a PretrainedModel, so
// that the one forward pass (model_run.hpp) runs it whole and every whole-model view, the
// predictions, switching heads off, generation and the whole-model export read it as they read a
// checkpoint: no second copy of the forward pass (docs/architecture.md, "Model").
//
// What the description says of a trained model (ModelSpec, core/trainable/model_spec.hpp):
//   stacks      encoder-decoder (the sequence tasks), or decoder only (induction: no encoder)
//   blocks      LayerNorm or none, pre or post; pre-norm adds a final norm to each stack
//               (the paper's section 3.1 is post, without one); d_ff = 0: attention-only blocks
//   MLP         ReLU or GELU (the erf form), W_in + b_in, W_out + b_out
//   attention   no biases; a factored head as the paper's W_i^Q, W_i^K; a full head's W_i shown as
//               W_i^Q = W_i, W_i^K = I with its scores scaled by 1/sqrt(d_model / h), as the
//               model was trained (config.json's query_pre_attn_scalar, attention_rules.hpp)
//   input       the token table times sqrt(d_model) (when the spec says so) plus a position table:
//               the learned one, or the paper's sinusoids in the trainable's layout (sine in
//               column 2i, cosine in 2i + 1, core/trainable/model_steps.hpp), held as a table
//   readout     logits = x W_out + b_out, untied (ReadoutWeights::decoder = W_out^T, V x d_model)
//   words       the model's Vocabulary as a word-level tokenizer (whitespace split, no unknown
//               word): a decoder-only model reads <bos> and the words; an encoder-decoder's
//               encoder reads the source words, its decoder <bos> and the target words (the
//               target cut with <eos> after it, teacher-forced: teacher_forcing.hpp)
//   layers      one CheckpointLayer per attention layer, named as attentionLayers names them
//               ("decoder.0.cross_attention"), listed in model order (index = model order)

#include <memory>

#include "core/common/expected.hpp"
#include "core/families/family_recipe.hpp"
#include "core/pretrained/pretrained_model.hpp"

namespace qkv {

struct TrainedModel;  // core/training/trained_model.hpp

// The recipe of a trained model of shape `spec` (Family::Trained).
FamilyRecipe trainedModelRecipe(const ModelSpec& spec);

// The whole model, its weights copied into the PretrainedModel's layout. Fails only when the
// parameters do not fit their spec.
Expected<PretrainedModel> pretrainedModelOf(const TrainedModel& model);

// pretrainedModelOf once per TrainedModel (it is immutable): the same object for the same model
// while anything holds it, so the views' runs and caches see one model; null when it cannot be
// converted. Thread-safe.
std::shared_ptr<const PretrainedModel> wholeTrainedModel(const std::shared_ptr<const TrainedModel>& model);

}  // namespace qkv
