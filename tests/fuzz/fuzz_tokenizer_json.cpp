// libFuzzer harness: the tokenizer.json reader, and encoding with what it accepts. The input is
// the file's bytes, then optionally a NUL byte and the text to encode (else a fixed sentence).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/text/tokenizer_json/fast_tokenizer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const std::size_t nul = input.find('\0');
    const std::string_view file = input.substr(0, nul);
    const std::string_view text =
        nul == std::string_view::npos ? std::string_view("The cat sat on the mat,  1234 caf\u00e9 \u65e5\u672c \U0001F600!")
                                      : input.substr(nul + 1);
    auto tokenizer = qkv::FastTokenizer::parse(file, {});
    if (!tokenizer) {
        if (tokenizer.error().empty()) std::abort();
        return 0;
    }
    (void)tokenizer->description();
    auto tokens = tokenizer->encode(text);
    if (!tokens) {
        if (tokens.error().empty()) std::abort();
        return 0;
    }
    for (const qkv::SubwordToken& token : tokens->tokens) {
        if (token.byteBegin > token.byteEnd || token.byteEnd > text.size()) std::abort();
        if (token.id < 0) std::abort();
        (void)tokenizer->display(token.piece);
    }
    return 0;
}
