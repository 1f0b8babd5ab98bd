#include "core/text/sentencepiece_tokenizer.hpp"

#include <algorithm>
#include <new>
#include <vector>

#include <nlohmann/json.hpp>
#include <sentencepiece_processor.h>

#include "core/common/limits.hpp"
#include "core/io/file_bytes.hpp"
#include "core/io/json_depth.hpp"
#include "core/text/sentencepiece_model_check.hpp"

namespace qkv {

namespace {

// The library's reason without its source location: its messages read
// "./src/x.cc(12) [condition] reason", and the reason is often empty.
std::string libraryReason(const sentencepiece::util::Status& status)
{
    std::string message = status.error_message() ? status.error_message() : "";
    if (message.find("ParseFromArray") != std::string::npos)
        return "its bytes do not parse as a SentencePiece model";
    const std::size_t open = message.find(") [");
    const std::size_t close = message.find("] ", open == std::string::npos ? 0 : open);
    if (message.starts_with("./") && open != std::string::npos && close != std::string::npos) {
        std::string reason = message.substr(close + 2);
        while (!reason.empty() && reason.back() == ' ') reason.pop_back();
        message = reason.empty() ? "the check " + message.substr(open + 3, close - open - 3) + " failed" : reason;
    }
    return message.empty() ? status.ToString() : message;
}

// Marian's language code: Python's re.match(">>.+<<", text), greedy, '.' not matching a
// newline. The length of the match at the start of the text, 0 when there is none.
std::size_t languageCodeLength(std::string_view text)
{
    if (!text.starts_with(">>")) return 0;
    const std::size_t lineEnd = std::min(text.find('\n', 2), text.size());
    if (lineEnd < 5) return 0;  // ">>" + at least one character + "<<"
    for (std::size_t at = lineEnd - 2; at >= 3; --at)
        if (text.substr(at, 2) == "<<") return at + 2;
    return 0;
}

// A special piece's id: through vocab.json (Marian), T5's sentinels, or the model's own.
std::int32_t specialId(const SentencePieceTokenizer& t, const std::string& piece)
{
    if (t.vocab) {
        const auto it = t.vocab->ids.find(piece);
        return it != t.vocab->ids.end() ? it->second : t.vocab->ids.find("<unk>")->second;
    }
    const std::int32_t own = t.model.id(piece);
    if (own >= 0 || t.options.extraIds <= 0 || !piece.starts_with("<extra_id_")) return own;
    // "<extra_id_N>", N < extraIds (typedSpecials lists no other).
    const std::int32_t n = std::stoi(piece.substr(10));
    return static_cast<std::int32_t>(t.model.pieceCount()) + t.options.extraIds - 1 - n;
}

// What typed text is split on: Marian's own specials (MarianTokenizer's eos, unk and pad
// tokens, when vocab.json has them), or the model's control pieces and <unk>, plus T5's
// sentinels.
std::vector<std::string> typedSpecials(const SentencePieceTokenizer& t)
{
    std::vector<std::string> specials;
    if (t.vocab) {
        for (const char* piece : {"</s>", "<unk>", "<pad>"})
            if (t.vocab->ids.contains(std::string_view(piece))) specials.emplace_back(piece);
        return specials;
    }
    specials = t.model.specialPieces();
    for (std::int32_t n = 0; n < t.options.extraIds; ++n) specials.push_back("<extra_id_" + std::to_string(n) + ">");
    return specials;
}

// Step 2: the library's pieces of one stretch of plain text [begin, end), appended with their
// ids and byte spans in the whole text.
Status appendPieces(const SentencePieceTokenizer& t, std::string_view text, std::size_t begin, std::size_t end,
                    std::vector<SubwordToken>& tokens)
{
    sentencepiece::ImmutableSentencePieceText encoded;
    const auto status = t.model.processor().Encode(text.substr(begin, end - begin), encoded.mutable_proto());
    if (!status.ok()) return Error{t.model.path() + ": SentencePiece cannot encode the text: " + libraryReason(status)};
    const std::size_t count = encoded.pieces_size();
    if (tokens.size() + count > static_cast<std::size_t>(limits::maxTokens)) return tooManyTokens();
    for (std::size_t i = 0; i < count; ++i) {
        const auto piece = encoded.pieces(static_cast<int>(i));
        std::int32_t id = static_cast<std::int32_t>(piece.id());
        if (t.vocab) {
            const auto it = t.vocab->ids.find(piece.piece());
            id = it != t.vocab->ids.end() ? it->second : t.vocab->ids.find("<unk>")->second;
        }
        tokens.push_back({id, piece.piece(), piece.piece(), begin + piece.begin(), begin + piece.end(), false});
    }
    return {};
}

// vocab.json as a flat object of "piece": id pairs.
Status readVocabEntries(const nlohmann::json& json, SentencePieceVocab& vocab)
{
    if (!json.is_object()) return Error{vocab.path + ": must be one object of \"piece\": id pairs"};
    if (json.size() > limits::maxVocabularyEntries)
        return Error{vocab.path + ": has more than " + std::to_string(limits::maxVocabularyEntries) + " entries"};
    std::vector<bool> taken;
    for (const auto& [piece, value] : json.items()) {
        if (!value.is_number_unsigned())
            return Error{vocab.path + ": the id of " + quotedToken(piece) + " is not a whole number >= 0"};
        const auto id = value.get<std::uint64_t>();
        if (id >= limits::maxVocabularyEntries)
            return Error{vocab.path + ": the id of " + quotedToken(piece) + " is " + std::to_string(id) +
                         "; ids must be below " + std::to_string(limits::maxVocabularyEntries)};
        if (taken.size() <= id) taken.resize(id + 1, false);
        if (taken[id]) return Error{vocab.path + ": gives the id " + std::to_string(id) + " to two pieces"};
        taken[id] = true;
        vocab.ids.emplace(piece, static_cast<std::int32_t>(id));
        vocab.idCount = std::max<std::size_t>(vocab.idCount, id + 1);
    }
    for (const char* needed : {"</s>", "<unk>"})
        if (!vocab.ids.contains(std::string_view(needed)))
            return Error{vocab.path + ": has no \"" + needed + "\" (Marian's vocabulary has </s> and <unk>)"};
    return {};
}

}  // namespace

Expected<SentencePieceModel> SentencePieceModel::load(const std::string& path)
{
    Expected<std::string> bytes = readFileBytes(path, limits::maxTokenizerFileBytes, "a SentencePiece model");
    if (!bytes) return Error{bytes.error()};
    return fromBytes(*bytes, path);
}

Expected<SentencePieceModel> SentencePieceModel::fromBytes(std::string_view bytes, const std::string& path)
{
    if (bytes.empty()) return Error{path + ": is empty, not a SentencePiece model"};
    // The library would read past a corrupt normalisation table (sentencepiece_model_check.hpp).
    if (Status s = checkSentencePieceTables(bytes); !s)
        return Error{path + ": is not a SentencePiece model the library can read safely (" + s.error() + ")"};
    SentencePieceModel model;
    try {
        auto processor = std::make_shared<sentencepiece::SentencePieceProcessor>();
        const auto status = processor->LoadFromSerializedProto(bytes);
        if (!status.ok())
            return Error{path + ": is not a SentencePiece model the library can read (" + libraryReason(status) + ")"};
        if (processor->GetPieceSize() <= 0) return Error{path + ": is a SentencePiece model without pieces"};
        model.processor_ = std::move(processor);
    } catch (const std::bad_alloc&) {
        return Error{path + ": not enough memory to load the SentencePiece model"};
    } catch (const std::exception& e) {  // the library reports through its Status; a backstop
        return Error{path + ": cannot be loaded as a SentencePiece model (" + e.what() + ")"};
    }
    model.path_ = path;
    model.kind_ = sentencePieceModelKind(bytes);
    return model;
}

std::size_t SentencePieceModel::pieceCount() const { return static_cast<std::size_t>(processor_->GetPieceSize()); }

std::int32_t SentencePieceModel::id(std::string_view piece) const
{
    // PieceToId answers <unk>'s id for a piece it does not know: check that the id spells it.
    const int found = processor_->PieceToId(piece);
    return found >= 0 && processor_->IdToPiece(found) == piece ? found : -1;
}

std::string SentencePieceModel::piece(std::int32_t id) const
{
    if (id < 0 || id >= processor_->GetPieceSize()) return {};
    return processor_->IdToPiece(id);
}

std::int32_t SentencePieceModel::bosId() const { return processor_->bos_id(); }
std::int32_t SentencePieceModel::eosId() const { return processor_->eos_id(); }

std::vector<std::string> SentencePieceModel::specialPieces() const
{
    std::vector<std::string> pieces;
    for (int id = 0; id < processor_->GetPieceSize(); ++id)
        if (processor_->IsControl(id) || processor_->IsUnknown(id)) pieces.push_back(processor_->IdToPiece(id));
    return pieces;
}

Expected<SentencePieceVocab> loadSentencePieceVocab(const std::string& path)
{
    Expected<std::string> text = readFileBytes(path, limits::maxTokenizerFileBytes, "a vocabulary");
    if (!text) return Error{text.error()};
    if (jsonDepth(*text, 8) > 8) return Error{path + ": nests too deeply; vocab.json is one flat object"};
    const nlohmann::json json = nlohmann::json::parse(*text, nullptr, false);
    if (json.is_discarded()) return Error{path + ": is not valid JSON"};
    SentencePieceVocab vocab;
    vocab.path = path;
    if (Status s = readVocabEntries(json, vocab); !s) return Error{s.error()};
    return vocab;
}

Expected<SubwordTokenization> sentencePieceTokenize(const SentencePieceTokenizer& tokenizer, std::string_view text)
{
    if (Status s = checkSentenceBytes(text); !s) return Error{s.error()};
    SubwordTokenization result;
    std::vector<SubwordToken>& tokens = result.tokens;
    const SentencePieceOptions& options = tokenizer.options;

    // Step 1: Marian's language code, then LLaMA's <s>.
    std::size_t start = options.languageCode ? languageCodeLength(text) : 0;
    if (start > 0) {
        const std::string code(text.substr(0, start));
        tokens.push_back({specialId(tokenizer, code), code, code, 0, start, true});
    }
    if (options.addBos) {
        if (tokenizer.model.bosId() < 0) return Error{tokenizer.model.path() + ": the model has no <s> to put first"};
        const std::string bos = tokenizer.model.piece(tokenizer.model.bosId());
        tokens.push_back({specialId(tokenizer, bos), bos, bos, 0, 0, true});
    }
    // Step 2: typed special tokens stay whole; the text between them goes to the library.
    const std::vector<std::string> specials = typedSpecials(tokenizer);
    for (TextSegment segment : splitOnSpecialTokens(text.substr(start), specials)) {
        segment.begin += start;
        segment.end += start;
        if (segment.specialIndex < 0) {
            if (Status s = appendPieces(tokenizer, text, segment.begin, segment.end, tokens); !s) return Error{s.error()};
            continue;
        }
        const std::string& special = specials[static_cast<std::size_t>(segment.specialIndex)];
        tokens.push_back({specialId(tokenizer, special), special, special, segment.begin, segment.end, true});
    }
    // Step 3: T5's and Marian's </s>.
    if (options.addEos) {
        const std::string eos = tokenizer.vocab ? "</s>" : tokenizer.model.piece(tokenizer.model.eosId());
        if (eos.empty()) return Error{tokenizer.model.path() + ": the model has no </s> to put last"};
        tokens.push_back({specialId(tokenizer, eos), eos, eos, text.size(), text.size(), true});
    }
    if (tokens.size() > static_cast<std::size_t>(limits::maxTokens)) return tooManyTokens();
    return result;
}

std::size_t sentencePieceVocabularySize(const SentencePieceTokenizer& tokenizer)
{
    if (tokenizer.vocab) return tokenizer.vocab->idCount;
    return tokenizer.model.pieceCount() + static_cast<std::size_t>(std::max(tokenizer.options.extraIds, 0));
}

}  // namespace qkv
