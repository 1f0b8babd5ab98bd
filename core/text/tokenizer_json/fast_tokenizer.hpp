#pragma once
// A tokenizer.json (Hugging Face's "fast" tokenizer file, the only tokenizer file LLaMA 3, Qwen3
// and Gemma 3 ship) read whole: added tokens, normalizer, pre-tokenizer, model, post-processor
// and decoder, each as the tokenizers library defines it (the files beside this one say which
// types; anything else the file asks for is refused by name, never skipped), plus
// tokenizer_config.json's add_bos_token / add_eos_token where the tokenizer class honours them.
//
// The file comes from the internet: it is read within the limits of every tokenizer file (size,
// entries, entry length), its JSON may nest at most kMaxJsonDepth deep and hold at most
// kMaxJsonValues values, a vocabulary that does
// not match its merges is refused, and its regexes run with PCRE2's match limits.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/common/expected.hpp"
#include "core/text/subword_tokens.hpp"

namespace qkv {

class FastTokenizer {
public:
    static constexpr int kMaxJsonDepth = 64;
    // Bounds the parsed file's memory: real files hold 0.5 to 2.4 million values.
    static constexpr std::size_t kMaxJsonValues = 10'000'000;

    // From the files' text; `configJson` may be empty (no tokenizer_config.json).
    static Expected<FastTokenizer> parse(std::string_view tokenizerJson, std::string_view configJson);
    // `folder`/tokenizer.json, and tokenizer_config.json beside it when present.
    static Expected<FastTokenizer> load(const std::string& folder);

    // The tokens of `text`, with the marks the post-processor puts around them. Fails when the
    // text is larger than limits::maxSentenceBytes, gives more than limits::maxTokens tokens, or
    // when a regex of the file cannot finish within its limits on it.
    Expected<SubwordTokenization> encode(std::string_view text) const;

    // The largest id of the model and the added tokens, + 1.
    std::size_t vocabularySize() const;
    // The entry with this id ("Ġcat", "<|im_start|>"), or empty.
    std::string piece(std::int32_t id) const;
    // How one piece is shown alone ("·cat").
    std::string display(std::string_view piece) const;
    std::string text(std::string_view piece) const;  // TokenDisplay::text
    // "BPE", "WordPiece", "Unigram" or "WordLevel" (also for older files that name no type).
    std::string_view modelType() const;
    // "tokenizer.json: BPE, 151,643 tokens, 151,387 merges; NFC; Sequence[Split regex ..., ByteLevel];
    // no marks added (post-processor ByteLevel)".
    std::string description() const;

    struct Pipeline;  // the parsed parts; defined where they are read

private:
    std::shared_ptr<const Pipeline> pipeline_;
};

}  // namespace qkv
