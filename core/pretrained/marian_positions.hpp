#pragma once
// Marian's sinusoidal positions, laid out as Hugging Face's MarianSinusoidalPositionalEmbedding
// builds them (and as the converted OPUS-MT checkpoints were trained with): the paper's
// frequencies (section 3.5), but the sines and cosines side by side in two halves, not
// interleaved. With c = ceil(d_model / 2), for pos from 0:
//   PE(pos, j)     = sin(pos / 10000^(2j / d_model))    0 <= j < c
//   PE(pos, c + j) = cos(pos / 10000^(2j / d_model))    0 <= j < d_model - c
// where the paper's table has sin at column 2j and cos at 2j + 1. The table is not stored in
// the checkpoint (save_pretrained leaves it out), so the model computes it.
//
// Symbols: P positions, d_model.

#include "core/common/matrix.hpp"

namespace qkv {

// P x d_model, computed in double and rounded to float once (the values of the float
// nn.Embedding Hugging Face fills from a float64 NumPy table).
MatrixF marianSinusoidalPositions(Index positions, Index d_model);

}  // namespace qkv
