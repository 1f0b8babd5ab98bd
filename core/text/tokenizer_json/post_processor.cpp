#include "core/text/tokenizer_json/post_processor.hpp"

#include "core/text/tokenizer_json/json_fields.hpp"
#include "core/text/vocabulary_files.hpp"

namespace qkv::tokenizer_json {

namespace {

Expected<MarkToken> markNamed(const std::string& piece, const IdOf& idOf, const std::string& what)
{
    const std::optional<std::int32_t> id = idOf(piece);
    if (!id) return Error{what + " names " + quotedToken(piece) + ", which is neither in the vocab nor an added token"};
    return MarkToken{*id, piece};
}

// TemplateProcessing: the "single" template, special tokens before and after $A.
Expected<SentenceMarks> parseTemplate(const Json& spec)
{
    const std::string what = "post-processor TemplateProcessing";
    Expected<const Json*> single = arrayField(spec, "single", what);
    if (!single) return Error{single.error()};
    const auto specials = spec.find("special_tokens");
    SentenceMarks marks;
    marks.source = what;
    bool sequenceSeen = false;
    for (const Json& item : **single) {
        if (!item.is_object() || item.size() != 1) return Error{what + ": a template item is not {\"SpecialToken\": ...} or {\"Sequence\": ...}"};
        const std::string kind = item.begin().key();
        const Json& body = item.begin().value();
        if (kind == "Sequence") {
            if (sequenceSeen) return Error{what + ": the single template names more than one sequence"};
            sequenceSeen = true;
            continue;
        }
        if (kind != "SpecialToken" || !body.is_object()) return Error{what + ": template item '" + kind + "' is not supported"};
        Expected<std::string> name = stringField(body, "id", what);
        if (!name) return Error{name.error()};
        if (specials == spec.end() || !specials->is_object() || !specials->contains(*name))
            return Error{what + ": the special token " + quotedToken(*name) + " is not in its special_tokens"};
        const Json& entry = (*specials)[*name];
        Expected<const Json*> ids = arrayField(entry, "ids", what);
        Expected<const Json*> tokens = arrayField(entry, "tokens", what);
        if (!ids) return Error{ids.error()};
        if (!tokens) return Error{tokens.error()};
        if ((*ids)->size() != (*tokens)->size()) return Error{what + ": " + quotedToken(*name) + " has unequal ids and tokens"};
        for (std::size_t k = 0; k < (*ids)->size(); ++k) {
            const Json& id = (**ids)[k];
            const Json& token = (**tokens)[k];
            if (!id.is_number_integer() || id.get<std::int64_t>() < 0 || !token.is_string() ||
                id.get<std::int64_t>() >= static_cast<std::int64_t>(limits::maxVocabularyEntries))
                return Error{what + ": " + quotedToken(*name) + " has an id that is not a valid whole number"};
            (sequenceSeen ? marks.after : marks.before)
                .push_back({static_cast<std::int32_t>(id.get<std::int64_t>()), token.get<std::string>()});
        }
    }
    if (!sequenceSeen) return Error{what + ": the single template has no $A"};
    return marks;
}

// BertProcessing and RobertaProcessing: {"cls": ["[CLS]", 101], "sep": ["[SEP]", 102]}.
Expected<SentenceMarks> parseClassAndSeparator(const Json& spec, const std::string& what)
{
    SentenceMarks marks;
    marks.source = what;
    for (const char* key : {"cls", "sep"}) {
        const auto it = spec.find(key);
        if (it == spec.end() || !it->is_array() || it->size() != 2 || !(*it)[0].is_string() || !(*it)[1].is_number_integer() ||
            (*it)[1].get<std::int64_t>() < 0 || (*it)[1].get<std::int64_t>() >= static_cast<std::int64_t>(limits::maxVocabularyEntries))
            return Error{what + ": \"" + key + "\" is not [\"token\", id]"};
        MarkToken mark{static_cast<std::int32_t>((*it)[1].get<std::int64_t>()), (*it)[0].get<std::string>()};
        (std::string(key) == "cls" ? marks.before : marks.after).push_back(std::move(mark));
    }
    return marks;
}

// A special token in tokenizer_config.json: "<s>" or {"content": "<s>", ...}; null: none.
std::optional<std::string> configToken(const Json& config, const char* key)
{
    const auto it = config.find(key);
    if (it == config.end()) return std::nullopt;
    if (it->is_string()) return it->get<std::string>();
    if (it->is_object())
        if (const auto content = it->find("content"); content != it->end() && content->is_string())
            return content->get<std::string>();
    return std::nullopt;
}

}  // namespace

Expected<SentenceMarks> parsePostProcessor(const nlohmann::json& spec)
{
    if (spec.is_null()) return SentenceMarks{{}, {}, "no post_processor"};
    Expected<std::string> type = componentType(spec, "the post_processor");
    if (!type) return Error{type.error()};
    const std::string what = "post-processor " + *type;
    if (*type == "TemplateProcessing") return parseTemplate(spec);
    if (*type == "BertProcessing" || *type == "RobertaProcessing") return parseClassAndSeparator(spec, what);
    if (*type == "ByteLevel") return SentenceMarks{{}, {}, what};
    if (*type == "Sequence") {
        Expected<const Json*> list = arrayField(spec, "processors", what);
        if (!list) return Error{list.error()};
        SentenceMarks marks;
        marks.source = what;
        // Each processor wraps what the ones before it made.
        for (const Json& item : **list) {
            Expected<SentenceMarks> step = parsePostProcessor(item);
            if (!step) return Error{step.error()};
            marks.before.insert(marks.before.begin(), step->before.begin(), step->before.end());
            marks.after.insert(marks.after.end(), step->after.begin(), step->after.end());
            if (!step->before.empty() || !step->after.empty()) marks.source = step->source;
        }
        return marks;
    }
    return Error{"post-processor " + *type + " is not supported"};
}

Expected<std::optional<SentenceMarks>> configuredMarks(const nlohmann::json& config, const IdOf& idOf)
{
    if (!config.is_object()) return std::optional<SentenceMarks>{};
    // Only the tokenizer classes that rebuild their template from the flags (LlamaTokenizerFast,
    // GemmaTokenizerFast, CodeLlamaTokenizerFast, CohereTokenizerFast); for the others the flags
    // are stored and the file's post-processor holds.
    const auto tokenizerClass = config.find("tokenizer_class");
    const std::string className = tokenizerClass != config.end() && tokenizerClass->is_string() ? tokenizerClass->get<std::string>() : "";
    bool rebuilds = false;
    for (const char* family : {"LlamaTokenizer", "GemmaTokenizer", "CodeLlamaTokenizer", "CohereTokenizer"})
        rebuilds = rebuilds || className.rfind(family, 0) == 0;
    if (!rebuilds) return std::optional<SentenceMarks>{};
    const auto flag = [&](const char* key) -> std::optional<bool> {
        const auto it = config.find(key);
        if (it == config.end() || !it->is_boolean()) return std::nullopt;
        return it->get<bool>();
    };
    const std::optional<bool> bos = flag("add_bos_token"), eos = flag("add_eos_token");
    if (!bos && !eos) return std::optional<SentenceMarks>{};
    SentenceMarks marks;
    marks.source = "tokenizer_config.json add_bos_token / add_eos_token";
    // "bos" or "eos": the token tokenizer_config.json names, into `into`.
    const auto add = [&](const std::string& which, std::vector<MarkToken>& into) -> Status {
        const std::optional<std::string> name = configToken(config, (which + "_token").c_str());
        if (!name) return Error{"tokenizer_config.json asks for add_" + which + "_token but names no " + which + "_token"};
        Expected<MarkToken> mark = markNamed(*name, idOf, "tokenizer_config.json's " + which + "_token");
        if (!mark) return Error{mark.error()};
        into.push_back(std::move(*mark));
        return {};
    };
    if (bos.value_or(false))
        if (Status s = add("bos", marks.before); !s) return Error{s.error()};
    if (eos.value_or(false))
        if (Status s = add("eos", marks.after); !s) return Error{s.error()};
    return std::optional<SentenceMarks>{std::move(marks)};
}

}  // namespace qkv::tokenizer_json
