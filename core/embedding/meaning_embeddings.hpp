#pragma once
// Meaning embeddings (issue 7, section 2): a word and its translations share a vector.

#include <cstdint>
#include <vector>

#include "core/common/matrix.hpp"
#include "core/text/tokenizer.hpp"

namespace qkv {

// One vector per token from the built-in lexicon's concept of the token (n x d_model); unknown
// words fall back to their own word vector (tokenEmbeddings).
MatrixF meaningEmbeddings(const std::vector<Token>& tokens, Index d_model, std::uint64_t seed);

}  // namespace qkv
