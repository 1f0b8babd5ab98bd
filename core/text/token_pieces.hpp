#pragma once
// Token id -> the vocabulary's entry, byte for byte ("Ġcat", "##ing", "▁cat"), as Hugging
// Face's convert_ids_to_tokens gives it: how predictions and the decoder's start token are named.

#include <string>
#include <vector>

#include "core/common/matrix.hpp"
#include "core/text/subword_tokenizer.hpp"

namespace qkv {

// `rows` entries (the model's token table); "" for an id the tokenizer does not list.
std::vector<std::string> tokenPieceTable(const SubwordTokenizer& tokenizer, Index rows);

}  // namespace qkv
