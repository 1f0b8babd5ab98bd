#pragma once
// tokenizer.json's "pre_tokenizer": how the normalised text is cut into the pieces the model
// sees one at a time (Hugging Face tokenizers, pre_tokenizers/): Split (a string or a regex,
// with its behaviour and invert), ByteLevel (GPT-2's bytes as symbols, its regex and prefix
// space), Metaspace ("▁" for spaces, its prepend scheme and split), Digits, Punctuation,
// Whitespace, WhitespaceSplit, BertPreTokenizer and Sequence. Any other type is refused by name.

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/common/expected.hpp"
#include "core/text/tokenizer_json/spanned_text.hpp"

namespace qkv::tokenizer_json {

class PreTokenizer {
public:
    virtual ~PreTokenizer() = default;
    // Cuts each piece further (or rewrites it: ByteLevel, Metaspace); pieces keep their order.
    virtual Status split(std::vector<SpannedText>& pieces) const = 0;
    virtual std::string name() const = 0;
    // ByteLevel turns characters into GPT-2's byte symbols ("Ġ" for a space); the vocabulary is
    // then written in them.
    virtual bool writesByteSymbols() const { return false; }
};

// null (no pre-tokenizer: the whole text is one piece) gives nullptr.
Expected<std::shared_ptr<const PreTokenizer>> parsePreTokenizer(const nlohmann::json& spec);

// GPT-2's byte symbols for each byte of each character; each symbol keeps its character's span.
SpannedText toByteSymbols(const SpannedText& text);

}  // namespace qkv::tokenizer_json
