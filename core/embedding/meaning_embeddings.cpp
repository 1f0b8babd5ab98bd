// PLACEHOLDER until the lexicon lands (branch h/lexicon replaces this file).
#include "core/embedding/meaning_embeddings.hpp"

#include "core/embedding/embeddings.hpp"

namespace qkv {

MatrixF meaningEmbeddings(const std::vector<Token>& tokens, Index d_model, std::uint64_t seed)
{
    return tokenEmbeddings(tokens, d_model, seed);
}

}  // namespace qkv
