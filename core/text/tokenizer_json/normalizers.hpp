#pragma once
// tokenizer.json's "normalizer": what is done to the typed text before it is cut (Hugging Face
// tokenizers, normalizers/): NFC, NFD, NFKC, NFKD (utf8proc), Lowercase, StripAccents, Strip,
// Replace, Prepend, BertNormalizer and Sequence. Any other type is refused by name.

#include <memory>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "core/common/expected.hpp"
#include "core/text/tokenizer_json/spanned_text.hpp"

namespace qkv::tokenizer_json {

class Normalizer {
public:
    virtual ~Normalizer() = default;
    virtual Status normalize(SpannedText& text) const = 0;
    // "NFC", "Sequence[NFC, Lowercase]": for the tokenizer's description.
    virtual std::string name() const = 0;
};

// null (no normalizer) gives nullptr.
Expected<std::shared_ptr<const Normalizer>> parseNormalizer(const nlohmann::json& spec);

}  // namespace qkv::tokenizer_json
