#pragma once
// What is read of a SentencePiece .model file here, before and beside the library: the library
// (libsentencepiece 0.1.97) trusts the normalisation table stored in the file, a Darts
// double-array trie plus the strings it maps to, and reads past its end when the table is
// corrupt (a flipped bit in a model crashed Encode). So the tables are checked first, walking
// every node of the trie a text could reach; the library then does all the tokenizing.
//
// The file is a protobuf ModelProto (sentencepiece_model.proto): trainer_spec = 2 (model_type
// = 3), normalizer_spec = 3 and denormalizer_spec = 5 (precompiled_charsmap = 2 in both).

#include <string>
#include <string_view>

#include "core/common/expected.hpp"

namespace qkv {

// Every normalisation table of the serialized model is safe for the library to read: its trie
// size fits the blob, every node a text can reach reads inside the trie, every string it maps
// to starts inside the string block and ends with a NUL there. Tables larger than 16 MiB are
// refused (real ones are a few hundred KiB). The message says what is wrong, without the path.
Status checkSentencePieceTables(std::string_view modelProto);

// The trainer's model_type: "unigram" (also when not recorded, the proto's default), "BPE",
// "word" or "char". Only a label: the library reads the model itself.
std::string sentencePieceModelKind(std::string_view modelProto);

}  // namespace qkv
