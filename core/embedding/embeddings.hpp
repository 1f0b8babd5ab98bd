#pragma once
// Token embeddings and the sinusoidal positional encoding (paper section 3.5).

#include <cstdint>
#include <vector>

#include "core/common/matrix.hpp"
#include "core/text/tokenizer.hpp"

namespace qkv {

// One generated vector per token, a deterministic function of (seed, lowerCase(text)): the
// same word in source and target gets the same vector. Entries ~ N(0, 1).
// Returns n x d_model.
MatrixF tokenEmbeddings(const std::vector<Token>& tokens, Index d_model, std::uint64_t seed);

// PE(pos, 2i) = sin(pos / 10000^(2i/d_model)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d_model)),
// pos from 0. Returns n x d_model. Computed in double, stored in float.
MatrixF positionalEncoding(Index n, Index d_model);

// X = tokenEmbeddings + (positional ? positionalEncoding : 0). n x d_model.
MatrixF embedSentence(const std::vector<Token>& tokens, Index d_model, std::uint64_t seed,
                      bool positional);

}  // namespace qkv
