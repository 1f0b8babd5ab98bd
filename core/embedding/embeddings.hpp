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

// How a sentence becomes X (the Config's embedding choices, without the Config).
struct EmbeddingOptions {
    Index d_model = 64;
    std::uint64_t seed = 0;
    bool byMeaning = false;         // meaning embeddings (meaning_embeddings.hpp) instead of words
    float tokenScale = 1.0f;        // multiplies the token part
    bool addPositional = true;      // + the sinusoidal encoding
};

// X = tokenScale * (word or meaning embeddings) + (addPositional ? positionalEncoding : 0).
// n x d_model.
MatrixF embedSentence(const std::vector<Token>& tokens, const EmbeddingOptions& options);
inline MatrixF embedSentence(const std::vector<Token>& tokens, Index d_model, std::uint64_t seed, bool positional)
{
    return embedSentence(tokens, EmbeddingOptions{d_model, seed, false, 1.0f, positional});
}

}  // namespace qkv
