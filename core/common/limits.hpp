#pragma once
// Limits that keep memory bounded and the GUI responsive, written once: validation, messages,
// spin boxes and the command line's help read them here. Documented in docs/formats.md.

#include <cstddef>
#include <cstdint>

#include "core/common/matrix.hpp"

namespace qkv::limits {

inline constexpr Index maxDModel = 4096;
inline constexpr Index maxHeads = 256;
// A head's own width d_k, when it is set rather than d_model / h, and the width h d_k of W^Q's
// columns (Qwen3-0.6B: 16 x 128 = 2048 at d_model 1024; Gemma-3-270M: 4 x 256 at 640).
inline constexpr Index maxHeadDim = 4096;
inline constexpr Index maxQueryWidth = 4 * maxDModel;
// Tokens per sentence. Any sentence may have up to maxTokens: a long prompt, whose layer is
// streamed (each head's map kept pooled with its row statistics, streamed_layer.hpp). A layer
// whose every head's n_q x n_k map is held (what the app's views draw, and an export without
// --pool or --rows/--cols) takes up to maxFullMapTokens.
inline constexpr Index maxTokens = 32768;
inline constexpr Index maxFullMapTokens = 4096;
// A checkpoint's whole model runs on at most this many tokens (or its positions, if fewer).
inline constexpr Index maxModelTokens = 8192;
inline constexpr std::size_t maxSentenceBytes = 1 << 20;  // 1 MiB of text
// Estimated bytes of one Result (see estimateResultBytes) may not exceed this.
inline constexpr std::size_t maxResultBytes = std::size_t{3} << 30;  // 3 GiB
// A whole model's run, besides the weights it holds already (estimateModelRunMemory): every
// layer's inputs, projections and maps, the hidden states and logits. GPT-2 small streamed on
// 8,192 tokens needs 3.1 GiB; with full maps it would need 77 GiB, and is refused.
inline constexpr std::size_t maxModelRunBytes = std::size_t{6} << 30;  // 6 GiB

// A layer longer than maxFullMapTokens, when drawn (the app's views, `qkv-studio figure`), keeps
// each head's map pooled to at most this many blocks each way (prepareDrawnCompute): finer than a
// heatmap is drawn on screen; the views recompute exact cells where they look closer.
inline constexpr Index drawnPooledBlocks = 512;

// An exported figure (File > Export Figure, `qkv-studio figure`): each side in logical pixels
// (1/96 inch), and a PNG's side in pixels, from minFigureSide to maxFigureSide (a poster at
// 300 dpi; a larger request is a typo, not a figure); a PNG's resolution from minFigureDpi to
// maxFigureDpi dots per inch.
inline constexpr int minFigureSide = 16;
inline constexpr int maxFigureSide = 20000;
inline constexpr int minFigureDpi = 24;
inline constexpr int maxFigureDpi = 2400;

// The cost model (core/cost) counts parameters and FLOPs of layers larger than any the app
// computes (GPT-3's d_model 12288), so the shapes it accepts have limits of their own: within
// them every count fits a std::int64_t exactly.
inline constexpr std::int64_t maxCostDModel = 16384;  // d_model, and d_k when set
inline constexpr std::int64_t maxCostHeads = 16384;   // h and g (Unreduced heads need not divide d_model)
inline constexpr std::int64_t maxCostTokens = 65536;  // n_q and n_k

}  // namespace qkv::limits
