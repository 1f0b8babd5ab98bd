#include "core/text/embedded_vocabulary.hpp"

#include <cstring>

#include <nlohmann/json.hpp>

#include "core/text/sentencepiece_tokenizer.hpp"
#include "core/text/tokenizer_json/fast_tokenizer.hpp"

namespace qkv {
namespace {

// Protocol-buffer wire format, enough for sentencepiece_model.proto: varints (wire type 0),
// 32-bit floats (5) and length-delimited strings and messages (2).
class Proto {
public:
    Proto& varint(int field, std::uint64_t value)
    {
        key(field, 0);
        raw(value);
        return *this;
    }
    Proto& number(int field, float value)
    {
        key(field, 5);
        char bytes[4];
        std::memcpy(bytes, &value, 4);
        text_.append(bytes, 4);
        return *this;
    }
    Proto& bytes(int field, const std::string& value)
    {
        key(field, 2);
        raw(value.size());
        text_ += value;
        return *this;
    }
    const std::string& text() const { return text_; }

private:
    void key(int field, int wire) { raw(static_cast<std::uint64_t>(field) << 3 | static_cast<std::uint64_t>(wire)); }
    void raw(std::uint64_t value)
    {
        while (value >= 0x80) {
            text_ += static_cast<char>((value & 0x7f) | 0x80);
            value >>= 7;
        }
        text_ += static_cast<char>(value);
    }
    std::string text_;
};

constexpr std::int32_t kNormal = 1, kControl = 3, kUserDefined = 4, kByte = 6;

std::int32_t typeOf(const EmbeddedVocabulary& v, std::size_t i)
{
    return i < v.tokenTypes.size() ? v.tokenTypes[i] : kNormal;
}

// ModelProto: pieces = 1 {piece = 1, score = 2, type = 3}; trainer_spec = 2 {model_type = 3 (BPE
// = 2), vocab_size = 4, byte_fallback = 35, unk_id = 40, bos_id = 41, eos_id = 42, pad_id = 43};
// normalizer_spec = 3 {name = 1, add_dummy_prefix = 3, remove_extra_whitespaces = 4,
// escape_whitespaces = 5}.
std::string sentencePieceModelProto(const EmbeddedVocabulary& v)
{
    Proto model;
    bool bytePieces = false;
    for (std::size_t i = 0; i < v.tokens.size(); ++i) {
        const std::int32_t type = typeOf(v, i);
        bytePieces = bytePieces || type == kByte;
        Proto piece;
        piece.bytes(1, v.tokens[i]).number(2, i < v.scores.size() ? v.scores[i] : 0.0f);
        piece.varint(3, static_cast<std::uint64_t>(type >= 1 && type <= 6 ? type : kNormal));
        model.bytes(1, piece.text());
    }
    const auto id = [](std::int32_t value) { return static_cast<std::uint64_t>(static_cast<std::int64_t>(value)); };
    Proto trainer;
    trainer.varint(3, 2).varint(4, v.tokens.size()).varint(35, bytePieces ? 1 : 0);
    trainer.varint(40, id(v.unknownId >= 0 ? v.unknownId : 0)).varint(41, id(v.bosId)).varint(42, id(v.eosId)).varint(43, id(-1));
    model.bytes(2, trainer.text());
    Proto normalizer;
    normalizer.bytes(1, "identity").varint(3, v.addSpacePrefix.value_or(true) ? 1 : 0);
    normalizer.varint(4, v.removeExtraWhitespaces.value_or(false) ? 1 : 0).varint(5, 1);
    model.bytes(3, normalizer.text());
    return model.text();
}

Expected<SubwordTokenizer> sentencePieceTokenizer(const EmbeddedVocabulary& v)
{
    const std::string name = v.source + " (tokenizer.ggml.tokens)";
    Expected<SentencePieceModel> model = SentencePieceModel::fromBytes(sentencePieceModelProto(v), name);
    if (!model) return Error{model.error()};
    SentencePieceOptions options;
    options.addBos = v.addBos.value_or(true) && v.bosId >= 0;
    options.addEos = v.addEos.value_or(false) && v.eosId >= 0;
    SubwordTokenizer tokenizer(SentencePieceTokenizer{std::move(*model), options, nullptr});
    tokenizer.setDescription("SentencePiece (BPE), " + std::to_string(v.tokens.size()) + " pieces, from the GGUF file" +
                             (options.addBos ? ", " + v.tokens[static_cast<std::size_t>(v.bosId)] + " first" : ""));
    return tokenizer;
}

// The pre-tokenizer tokenizer.json spells for tokenizer.ggml.pre (the regexes of LLaMA 3's and
// Qwen 2's tokenizer.json), or null when it is not one of these.
std::optional<nlohmann::json> preTokenizer(const std::string& pre)
{
    using Json = nlohmann::json;
    const Json byteLevel = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", true}, {"use_regex", false}};
    const auto split = [&](const std::string& regex) {
        return Json{{"type", "Sequence"},
                    {"pretokenizers", Json::array({Json{{"type", "Split"}, {"pattern", {{"Regex", regex}}},
                                                        {"behavior", "Isolated"}, {"invert", false}},
                                                   byteLevel})}};
    };
    if (pre == "llama-bpe" || pre == "llama3")
        return split("(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
                     "\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+");
    if (pre == "qwen2")
        return split("(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
                     "\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+");
    if (pre.empty() || pre == "gpt2" || pre == "default")
        return Json{{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", true}, {"use_regex", true}};
    return std::nullopt;
}

Expected<SubwordTokenizer> byteLevelTokenizer(const EmbeddedVocabulary& v)
{
    using Json = nlohmann::json;
    const std::optional<Json> pre = preTokenizer(v.pre);
    if (!pre)
        return Error{v.source + ": tokenizer.ggml.pre '" + v.pre + "' is not a pre-tokenizer this program knows "
                     "(llama-bpe, qwen2, gpt2, default)"};
    Json vocab = Json::object(), added = Json::array();
    for (std::size_t i = 0; i < v.tokens.size(); ++i) {
        vocab[v.tokens[i]] = i;
        const std::int32_t type = typeOf(v, i);
        if (type == kControl || type == kUserDefined)
            added.push_back({{"id", i}, {"content", v.tokens[i]}, {"single_word", false}, {"lstrip", false},
                             {"rstrip", false}, {"normalized", type == kUserDefined}, {"special", type == kControl}});
    }
    const Json file = {{"version", "1.0"}, {"added_tokens", added}, {"normalizer", nullptr}, {"pre_tokenizer", *pre},
                       {"post_processor", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", false}, {"use_regex", false}}},
                       {"decoder", {{"type", "ByteLevel"}, {"add_prefix_space", true}, {"trim_offsets", true}, {"use_regex", true}}},
                       {"model", {{"type", "BPE"}, {"dropout", nullptr}, {"unk_token", nullptr},
                                  {"continuing_subword_prefix", nullptr}, {"end_of_word_suffix", nullptr},
                                  {"fuse_unk", false}, {"byte_fallback", false}, {"ignore_merges", v.pre == "llama-bpe"},
                                  {"vocab", vocab}, {"merges", v.merges}}}};
    // BOS and EOS as LlamaTokenizerFast rebuilds its template from add_bos_token / add_eos_token.
    Json config = {{"tokenizer_class", "LlamaTokenizerFast"},
                   {"add_bos_token", v.addBos.value_or(false) && v.bosId >= 0},
                   {"add_eos_token", v.addEos.value_or(false) && v.eosId >= 0}};
    if (v.bosId >= 0 && static_cast<std::size_t>(v.bosId) < v.tokens.size()) config["bos_token"] = v.tokens[static_cast<std::size_t>(v.bosId)];
    if (v.eosId >= 0 && static_cast<std::size_t>(v.eosId) < v.tokens.size()) config["eos_token"] = v.tokens[static_cast<std::size_t>(v.eosId)];
    Expected<FastTokenizer> fast = FastTokenizer::parse(file.dump(), config.dump());
    if (!fast) return Error{v.source + " (tokenizer.ggml.*): " + fast.error()};
    SubwordTokenizer tokenizer(std::move(*fast));
    tokenizer.setDescription("byte-level BPE (" + (v.pre.empty() ? std::string("gpt2") : v.pre) + "), " +
                             std::to_string(v.tokens.size()) + " tokens, " + std::to_string(v.merges.size()) +
                             " merges, from the GGUF file");
    return tokenizer;
}

}  // namespace

Expected<SubwordTokenizer> embeddedVocabularyTokenizer(const EmbeddedVocabulary& vocabulary)
{
    if (vocabulary.tokens.empty()) return Error{vocabulary.source + ": tokenizer.ggml.tokens is missing or empty"};
    const auto outside = [&](std::int32_t id) { return id >= static_cast<std::int32_t>(vocabulary.tokens.size()); };
    if (outside(vocabulary.bosId) || outside(vocabulary.eosId) || outside(vocabulary.unknownId))
        return Error{vocabulary.source + ": a BOS, EOS or unknown token id is outside tokenizer.ggml.tokens (" +
                     std::to_string(vocabulary.tokens.size()) + " tokens)"};
    try {
        if (vocabulary.model == "llama") return sentencePieceTokenizer(vocabulary);
        if (vocabulary.model == "gpt2") return byteLevelTokenizer(vocabulary);
    } catch (const std::exception& e) {  // nlohmann: a token that is not UTF-8
        return Error{vocabulary.source + ": its tokenizer cannot be built (" + std::string(e.what()) + ")"};
    }
    return Error{vocabulary.source + ": tokenizer.ggml.model '" + vocabulary.model +
                 "' is not one this program reads (llama, gpt2)"};
}

}  // namespace qkv
