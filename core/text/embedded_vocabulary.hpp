#pragma once
// A tokenizer a model file carries inside it rather than beside it (a GGUF file's tokenizer.ggml.*
// keys, read by core/checkpoint/gguf_checkpoint.cpp), built into the tokenizers the app already runs:
//   "llama"  SentencePiece-style (LLaMA 2, Mistral, Gemma, Phi-3): pieces with scores and types
//            (1 normal, 2 unknown, 3 control, 4 user-defined, 5 unused, 6 byte). They are written
//            into a SentencePiece model (sentencepiece_model.proto: a BPE model, byte fallback when
//            it has byte pieces, a "▁" prefix unless add_space_prefix is false) that
//            libsentencepiece runs, as it runs tokenizer.model;
//   "gpt2"   byte-level BPE (LLaMA 3, Qwen 2 and 3): tokens and merges, with the pre-tokenizer
//            tokenizer.ggml.pre names ("llama-bpe", "qwen2", "gpt2"/"default"), written into the
//            tokenizer.json Hugging Face would ship, which the tokenizer.json reader runs.
// BOS is added first when add_bos_token says so (default: true for "llama", false for "gpt2"),
// EOS last when add_eos_token says so. Any other model or pre-tokenizer is refused by name.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/common/expected.hpp"
#include "core/text/subword_tokenizer.hpp"

namespace qkv {

struct EmbeddedVocabulary {
    std::string source;  // the file, for messages and the description
    std::string model;   // tokenizer.ggml.model
    std::string pre;     // tokenizer.ggml.pre (gpt2 only), or empty
    std::vector<std::string> tokens;
    std::vector<float> scores;              // llama: one per token (absent: 0)
    std::vector<std::int32_t> tokenTypes;   // one per token (absent: normal)
    std::vector<std::string> merges;        // gpt2: "left right", first merges first
    std::int32_t bosId = -1, eosId = -1, unknownId = -1;
    std::optional<bool> addBos, addEos, addSpacePrefix, removeExtraWhitespaces;
};

Expected<SubwordTokenizer> embeddedVocabularyTokenizer(const EmbeddedVocabulary& vocabulary);

}  // namespace qkv
