#include "core/text/tokenizer_json/fast_tokenizer.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>

#include "core/common/limits.hpp"
#include "core/io/file_bytes.hpp"
#include "core/io/json_depth.hpp"
#include "core/text/tokenizer_json/added_tokens.hpp"
#include "core/text/tokenizer_json/normalizers.hpp"
#include "core/text/tokenizer_json/post_processor.hpp"
#include "core/text/tokenizer_json/pre_tokenizers.hpp"
#include "core/text/tokenizer_json/token_display.hpp"
#include "core/text/tokenizer_json/vocabulary_models.hpp"
#include "core/text/vocabulary_files.hpp"

namespace qkv {

using namespace tokenizer_json;

struct FastTokenizer::Pipeline {
    std::vector<AddedToken> added;
    AddedTokenMatcher typedMatcher;       // added tokens looked for in the typed text
    AddedTokenMatcher normalizedMatcher;  // the others, in the normalised text
    std::shared_ptr<const Normalizer> normalizer;
    std::shared_ptr<const PreTokenizer> preTokenizer;
    std::shared_ptr<const VocabularyModel> model;
    SentenceMarks marks;
    TokenDisplay display;
    std::vector<std::string> addedPieces;  // by id, where an added token has the id

    std::optional<std::int32_t> idOf(const std::string& token) const
    {
        for (const AddedToken& a : added)
            if (a.content == token) return a.id;
        return model->id(token);
    }
};

namespace {

Expected<nlohmann::json> parseJson(std::string_view text, const std::string& name)
{
    if (text.size() > limits::maxTokenizerFileBytes)
        return Error{name + " is larger than " + std::to_string(limits::maxTokenizerFileBytes >> 20) + " MiB"};
    const JsonShape shape = jsonShape(text);
    if (shape.depth > FastTokenizer::kMaxJsonDepth)
        return Error{name + " nests deeper than " + std::to_string(FastTokenizer::kMaxJsonDepth) + " levels"};
    if (shape.values > FastTokenizer::kMaxJsonValues)
        return Error{name + " holds more than " + std::to_string(FastTokenizer::kMaxJsonValues) +
                     " JSON values (Gemma 3's, among the largest, holds about 2.4 million)"};
    nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
    if (json.is_discarded()) return Error{name + " is not valid JSON"};
    if (!json.is_object()) return Error{name + " is not a JSON object"};
    return json;
}

template <class T>
Status take(Expected<T>&& from, T& into, const std::string& prefix)
{
    if (!from) return Error{prefix + from.error()};
    into = std::move(*from);
    return {};
}

Status buildPipeline(const nlohmann::json& file, const nlohmann::json& config, FastTokenizer::Pipeline& p)
{
    const std::string where = "tokenizer.json: ";
    // "truncation" and "padding" are not read: transformers replaces them on every call with the
    // caller's own (none here: a sentence is never cut short, the token limit refuses it whole).
    if (!file.contains("model")) return Error{where + "it has no \"model\""};
    if (Status s = take(parseVocabularyModel(file["model"]), p.model, where); !s) return s;
    const auto field = [&](const char* key) -> const nlohmann::json& {
        static const nlohmann::json none;
        const auto it = file.find(key);
        return it == file.end() ? none : *it;
    };
    if (Status s = take(parseAddedTokens(field("added_tokens")), p.added, where); !s) return s;
    if (Status s = take(parseNormalizer(field("normalizer")), p.normalizer, where); !s) return s;
    std::vector<AddedToken> typed, normalized;
    for (const AddedToken& a : p.added) {
        if (!a.normalized) {
            typed.push_back(a);
            continue;
        }
        AddedToken token = a;
        if (p.normalizer) {
            SpannedText text = utf8::decodeWithSpans(a.content);
            if (Status s = p.normalizer->normalize(text); !s) return Error{where + s.error()};
            token.matched = toUtf8(text);
        }
        normalized.push_back(std::move(token));
    }
    p.typedMatcher = AddedTokenMatcher(std::move(typed));
    p.normalizedMatcher = AddedTokenMatcher(std::move(normalized));
    if (Status s = take(parsePreTokenizer(field("pre_tokenizer")), p.preTokenizer, where); !s) return s;
    if (Status s = take(parseDecoder(field("decoder")), p.display, where); !s) return s;
    const IdOf idOf = [&p](const std::string& token) { return p.idOf(token); };
    if (Status s = take(parsePostProcessor(field("post_processor")), p.marks, where); !s) return s;
    Expected<std::optional<SentenceMarks>> configured = configuredMarks(config, idOf);
    if (!configured) return Error{configured.error()};
    if (*configured) p.marks = std::move(**configured);
    for (const AddedToken& a : p.added) {
        const auto id = static_cast<std::size_t>(a.id);
        if (p.addedPieces.size() <= id) p.addedPieces.resize(id + 1);
        p.addedPieces[id] = a.content;
    }
    return {};
}

}  // namespace

Expected<FastTokenizer> FastTokenizer::parse(std::string_view tokenizerJson, std::string_view configJson)
{
    Expected<nlohmann::json> file = parseJson(tokenizerJson, "tokenizer.json");
    if (!file) return Error{file.error()};
    nlohmann::json config;
    if (!configJson.empty()) {
        Expected<nlohmann::json> parsed = parseJson(configJson, "tokenizer_config.json");
        if (!parsed) return Error{parsed.error()};
        config = std::move(*parsed);
    }
    auto pipeline = std::make_shared<Pipeline>();
    if (Status s = buildPipeline(*file, config, *pipeline); !s) return Error{s.error()};
    FastTokenizer tokenizer;
    tokenizer.pipeline_ = std::move(pipeline);
    return tokenizer;
}

Expected<FastTokenizer> FastTokenizer::load(const std::string& folder)
{
    const std::filesystem::path base(folder);
    Expected<std::string> file = readFileBytes((base / "tokenizer.json").string(), limits::maxTokenizerFileBytes, "a tokenizer");
    if (!file) return Error{file.error()};
    std::string config;
    std::error_code error;
    if (std::filesystem::exists(base / "tokenizer_config.json", error)) {
        Expected<std::string> text =
            readFileBytes((base / "tokenizer_config.json").string(), limits::maxTokenizerFileBytes, "a tokenizer configuration");
        if (!text) return Error{text.error()};
        config = std::move(*text);
    }
    Expected<FastTokenizer> tokenizer = parse(*file, config);
    if (!tokenizer) return Error{(base / "tokenizer.json").string() + ": " + tokenizer.error()};
    return tokenizer;
}

Expected<SubwordTokenization> FastTokenizer::encode(std::string_view text) const
{
    if (Status s = checkSentenceBytes(text); !s) return Error{s.error()};
    const Pipeline& p = *pipeline_;
    const std::size_t maxTokens = static_cast<std::size_t>(limits::maxTokens);
    SubwordTokenization result;
    std::vector<SubwordToken>& tokens = result.tokens;
    for (const MarkToken& mark : p.marks.before) tokens.push_back({mark.id, mark.piece, mark.piece, 0, 0, true});

    const SpannedText typed = utf8::decodeWithSpans(text);
    const auto addToken = [&](const AddedToken& token, std::size_t begin, std::size_t end) {
        tokens.push_back({token.id, token.content, token.content, begin, end, token.special});
    };
    std::vector<ModelToken> modelTokens;
    for (const TextStretch& stretch : p.typedMatcher.split(typed)) {
        if (stretch.token >= 0) {
            addToken(p.typedMatcher.token(stretch.token), typed[stretch.begin].byteBegin, typed[stretch.end - 1].byteEnd);
            continue;
        }
        SpannedText normalized(typed.begin() + static_cast<std::ptrdiff_t>(stretch.begin),
                               typed.begin() + static_cast<std::ptrdiff_t>(stretch.end));
        if (p.normalizer)
            if (Status s = p.normalizer->normalize(normalized); !s) return Error{s.error()};
        for (const TextStretch& inner : p.normalizedMatcher.split(normalized)) {
            if (inner.token >= 0) {
                addToken(p.normalizedMatcher.token(inner.token), normalized[inner.begin].byteBegin,
                         normalized[inner.end - 1].byteEnd);
                continue;
            }
            std::vector<SpannedText> pieces{SpannedText(normalized.begin() + static_cast<std::ptrdiff_t>(inner.begin),
                                                        normalized.begin() + static_cast<std::ptrdiff_t>(inner.end))};
            if (p.preTokenizer)
                if (Status s = p.preTokenizer->split(pieces); !s) return Error{s.error()};
            for (const SpannedText& piece : pieces) {
                modelTokens.clear();
                if (Status s = p.model->tokenize(piece, modelTokens); !s) return Error{s.error()};
                for (const ModelToken& m : modelTokens) {
                    const std::string_view entry = p.model->piece(m.id);
                    tokens.push_back({m.id, std::string(entry), std::string(), piece[m.first].byteBegin,
                                      piece[m.last - 1].byteEnd, false});
                }
                if (tokens.size() > maxTokens) return tooManyTokens();
            }
        }
        if (tokens.size() > maxTokens) return tooManyTokens();
    }
    for (const MarkToken& mark : p.marks.after) tokens.push_back({mark.id, mark.piece, mark.piece, text.size(), text.size(), true});
    if (tokens.size() > maxTokens) return tooManyTokens();

    // What each chip shows: the decoder's view of the model's entries; added tokens as themselves.
    std::vector<std::string_view> pieces;
    pieces.reserve(tokens.size());
    for (const SubwordToken& t : tokens) pieces.push_back(t.piece);
    std::vector<std::string> shown = p.display.showAll(pieces);
    for (std::size_t i = 0; i < tokens.size(); ++i)
        if (tokens[i].display.empty()) tokens[i].display = std::move(shown[i]);
    return result;
}

std::size_t FastTokenizer::vocabularySize() const
{
    return std::max(pipeline_->model->idCount(), pipeline_->addedPieces.size());
}

std::string FastTokenizer::piece(std::int32_t id) const
{
    const Pipeline& p = *pipeline_;
    if (id >= 0 && static_cast<std::size_t>(id) < p.addedPieces.size() && !p.addedPieces[static_cast<std::size_t>(id)].empty())
        return p.addedPieces[static_cast<std::size_t>(id)];
    return std::string(p.model->piece(id));
}

std::string FastTokenizer::display(std::string_view piece) const { return pipeline_->display.show(piece); }
std::string FastTokenizer::text(std::string_view piece) const { return pipeline_->display.text(piece); }

std::string_view FastTokenizer::modelType() const { return pipeline_->model->type(); }

std::string FastTokenizer::description() const
{
    const Pipeline& p = *pipeline_;
    std::string text = "tokenizer.json: " + p.model->name();
    if (p.normalizer) text += "; " + p.normalizer->name();
    if (p.preTokenizer) text += "; " + p.preTokenizer->name();
    std::string marks;
    for (const MarkToken& m : p.marks.before) marks += (marks.empty() ? "" : ", ") + m.piece + " first";
    for (const MarkToken& m : p.marks.after) marks += (marks.empty() ? "" : ", ") + m.piece + " last";
    text += "; " + (marks.empty() ? std::string("nothing added around the text") : marks) + " (" + p.marks.source + ")";
    return text;
}

}  // namespace qkv
