#pragma once
// How config.json shapes each attention layer of a model, written once: the whole-model forward
// pass (core/pretrained/model_run.cpp) and a layer loaded alone (core/checkpoint/layer_loading.cpp,
// and with it the app's window and the export) both read these rules, with the quirks of the
// family model_type names (family_table.hpp).
//
//   window     a causal layer sees its `slidingWindow` latest keys (0: all). Which layers slide:
//              config.json's layer_types when it lists them; else the row's slidingLayers: Gemma 2's
//              even layers (0, 2, ...), Gemma 3's layers but every sliding_window_pattern-th
//              (default 6), or every layer, when sliding_window is set (Mistral, Phi-3).
//   rotary     rope_theta and rope_scaling; Gemma 3's sliding layers use rope_local_base_freq
//              unscaled instead. partial_rotary_factor / rotary_pct turn only the first
//              int(d_k * share) components of each head (GPT-NeoX, Phi).
//   scores     scaled by query_pre_attn_scalar^(-1/2) instead of d_k^(-1/2) (Gemma), and
//              soft-capped by attn_logit_softcapping (Gemma 2; Gemma 3's row does not read it).
//   norms      Gemma stores each RMSNorm's weight w zero-centred: its scale is 1 + w (the row's
//              normWeightOffset).

#include <string>
#include <string_view>

#include "core/common/expected.hpp"
#include "core/common/matrix.hpp"
#include "core/config/attention_conventions.hpp"
#include "core/modelfiles/checkpoint_config.hpp"

namespace qkv {

// The conventions of block `block` (counted from 0 in its stack) of a model whose heads are d_k
// wide. Refuses a layer_types entry of an unknown kind, a list shorter than the blocks, and a
// rotated share that leaves an odd number of components, naming the key.
Expected<AttentionConventions> layerAttentionConventions(const CheckpointConfig& config, Index block, Index d_k);

// The window of block `block` (counted from 0 in its stack): the latest keys each query of a causal
// layer sees, or 0 for a global layer (every earlier key). The one rule layerAttentionConventions
// applies, for the lists that mark each layer "sliding 4096" or "global". Refuses what
// layerAttentionConventions refuses of layer_types.
Expected<Index> layerWindow(const CheckpointConfig& config, Index block);

// Whether any layer of the model may slide: config.json sets a sliding window the app applies
// (Mistral's, Gemma's; not Qwen2's with use_sliding_window, which is not followed). Without one
// every layer is global and a list need not say so.
bool hasSlidingLayers(const CheckpointConfig& config);

// How a list marks block `block` of a causal stack: "sliding 4096" or "global"; empty when the
// model has no sliding layers (hasSlidingLayers) or config.json's layer_types cannot say.
std::string layerWindowLabel(const CheckpointConfig& config, Index block);

// The row's normWeightOffset for config.json's model_type: 1 for the Gemma families (the scale of
// each RMSNorm, q_norm and k_norm included, is 1 + w), else 0.
float normWeightOffset(const CheckpointConfig& config);

// The block a layer's module path names: its last number ("model.layers.12.self_attn" -> 12),
// or 0 when it has none.
Index blockNumberOf(std::string_view layerName);

}  // namespace qkv
