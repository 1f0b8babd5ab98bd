// WordPiece and WordLevel as tokenizer.json describes them (Hugging Face tokenizers,
// models/wordpiece, models/wordlevel). WordPiece: each piece split greedily, the longest entry
// first, continuations written with the prefix ("##able"); a piece with a part no entry matches,
// or longer than max_input_chars_per_word characters, is unknown as a whole (Wu et al. 2016,
// section 4.1). WordLevel: a piece is an entry or unknown.
#include "core/text/tokenizer_json/vocabulary_table.hpp"

namespace qkv::tokenizer_json {

namespace {

class WordPieceModel final : public VocabularyModel {
public:
    VocabularyTable vocabulary;
    std::int32_t unknown = 0;
    std::string prefix = "##";
    std::size_t maxCharacters = 100;

    Status tokenize(const SpannedText& piece, std::vector<ModelToken>& out) const override
    {
        if (piece.empty()) return {};
        if (piece.size() > maxCharacters) {
            out.push_back({unknown, 0, piece.size()});
            return {};
        }
        std::vector<std::size_t> charAtByte;
        const std::string text = toUtf8(piece, &charAtByte);
        std::vector<std::size_t> byteOfChar;  // the first byte of each character, and the end
        for (std::size_t b = 0; b < text.size(); ++b)
            if (b == 0 || charAtByte[b] != charAtByte[b - 1]) byteOfChar.push_back(b);
        byteOfChar.push_back(text.size());
        std::vector<ModelToken> pieces;
        std::string candidate;
        for (std::size_t start = 0; start < piece.size();) {
            std::size_t end = piece.size();
            std::optional<std::int32_t> found;
            for (; end > start; --end) {
                candidate = start > 0 ? prefix : std::string();
                candidate.append(text, byteOfChar[start], byteOfChar[end] - byteOfChar[start]);
                if ((found = vocabulary.id(candidate))) break;
            }
            if (!found) {
                out.push_back({unknown, 0, piece.size()});
                return {};
            }
            pieces.push_back({*found, start, end});
            start = end;
        }
        out.insert(out.end(), pieces.begin(), pieces.end());
        return {};
    }
    std::optional<std::int32_t> id(std::string_view token) const override { return vocabulary.id(token); }
    std::string_view piece(std::int32_t id) const override { return vocabulary.piece(id); }
    std::size_t idCount() const override { return vocabulary.pieces.size(); }
    std::string_view type() const override { return "WordPiece"; }
    std::string name() const override { return "WordPiece, " + countText(vocabulary.ids.size()) + " tokens"; }
};

class WordLevelModel final : public VocabularyModel {
public:
    VocabularyTable vocabulary;
    std::optional<std::int32_t> unknown;

    Status tokenize(const SpannedText& piece, std::vector<ModelToken>& out) const override
    {
        if (piece.empty()) return {};
        if (const std::optional<std::int32_t> found = vocabulary.id(toUtf8(piece))) out.push_back({*found, 0, piece.size()});
        else if (unknown) out.push_back({*unknown, 0, piece.size()});
        else return Error{"model WordLevel has no unk_token, and " + quotedToken(toUtf8(piece)) + " is not in its vocab"};
        return {};
    }
    std::optional<std::int32_t> id(std::string_view token) const override { return vocabulary.id(token); }
    std::string_view piece(std::int32_t id) const override { return vocabulary.piece(id); }
    std::size_t idCount() const override { return vocabulary.pieces.size(); }
    std::string_view type() const override { return "WordLevel"; }
    std::string name() const override { return "WordLevel, " + countText(vocabulary.ids.size()) + " tokens"; }
};

// The fields WordPiece and WordLevel share: the vocab object and the unk_token's id.
template <class Model>
Status readVocabularyAndUnknown(const Json& spec, const std::string& what, Model& model,
                                std::optional<std::int32_t>& unknown)
{
    const auto vocab = spec.find("vocab");
    if (vocab == spec.end()) return Error{what + " has no vocab"};
    Expected<VocabularyTable> table = parseVocabularyObject(*vocab, what);
    if (!table) return Error{table.error()};
    model.vocabulary = std::move(*table);
    Expected<std::optional<std::int32_t>> id = namedTokenId(spec, "unk_token", model.vocabulary, what);
    if (!id) return Error{id.error()};
    unknown = *id;
    return {};
}

}  // namespace

Expected<std::shared_ptr<const VocabularyModel>> parseWordPieceModel(const Json& spec)
{
    const std::string what = "model WordPiece";
    auto model = std::make_shared<WordPieceModel>();
    std::optional<std::int32_t> unknown;
    if (Status s = readVocabularyAndUnknown(spec, what, *model, unknown); !s) return Error{s.error()};
    if (!unknown) return Error{what + " has no unk_token"};
    model->unknown = *unknown;
    Expected<std::string> prefix = stringField(spec, "continuing_subword_prefix", what, std::string("##"));
    if (!prefix) return Error{prefix.error()};
    model->prefix = *prefix;
    if (const auto max = spec.find("max_input_chars_per_word"); max != spec.end() && !max->is_null()) {
        if (!max->is_number_unsigned()) return Error{what + ": max_input_chars_per_word is not a whole number"};
        model->maxCharacters = max->get<std::size_t>();
    }
    return std::shared_ptr<const VocabularyModel>(std::move(model));
}

Expected<std::shared_ptr<const VocabularyModel>> parseWordLevelModel(const Json& spec)
{
    const std::string what = "model WordLevel";
    auto model = std::make_shared<WordLevelModel>();
    if (Status s = readVocabularyAndUnknown(spec, what, *model, model->unknown); !s) return Error{s.error()};
    return std::shared_ptr<const VocabularyModel>(std::move(model));
}

}  // namespace qkv::tokenizer_json
