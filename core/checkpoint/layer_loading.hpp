#pragma once
// One recognised layer's tensors, read and turned into our layout (docs/checkpoints.md):
//   nn.Linear families (BERT, DistilBERT, BART, T5, LLaMA): weight is out x in (column-vector
//     convention), so W^Q = q.weight^T (d_model x h d_k), W^K = k.weight^T (d_model x g d_k), ...
//   GPT-2 Conv1D: c_attn.weight is d_model x 3 d_model already in x W form: W^Q, W^K, W^V are
//     its column blocks [0, d), [d, 2d), [2d, 3d); W^O = c_proj.weight.
// Internal to core/checkpoint; checkpoint.hpp's loadCheckpointLayer calls it.

#include "core/checkpoint/checkpoint.hpp"

namespace qkv::checkpoint_detail {

Expected<CheckpointLayerWeights> loadLayer(const Checkpoint& checkpoint, const CheckpointLayer& layer);

}  // namespace qkv::checkpoint_detail
