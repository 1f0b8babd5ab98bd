// BPE as tokenizer.json describes it (Sennrich et al. 2016; Hugging Face tokenizers,
// models/bpe): a piece's characters become entries (or bytes, or unknown), then the adjacent
// pair with the lowest merge rank is joined until no listed pair is left.
#include <algorithm>
#include <queue>
#include <unordered_map>

#include "core/text/tokenizer_json/vocabulary_table.hpp"

namespace qkv::tokenizer_json {

namespace {

struct Merge {
    std::int32_t rank;
    std::int32_t result;
};

std::uint64_t pairKey(std::int32_t left, std::int32_t right)
{
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(left)) << 32) | static_cast<std::uint32_t>(right);
}

class BpeModel final : public VocabularyModel {
public:
    VocabularyTable vocabulary;
    std::unordered_map<std::uint64_t, Merge> merges;
    std::size_t mergeCount = 0;
    std::optional<std::int32_t> unknown;
    std::optional<std::vector<std::int32_t>> byteIds;  // byte_fallback: "<0x00>".."<0xFF>"
    bool fuseUnknown = false;
    bool ignoreMerges = false;
    std::string prefix;  // continuing_subword_prefix
    std::string suffix;  // end_of_word_suffix

    Status tokenize(const SpannedText& piece, std::vector<ModelToken>& out) const override;
    std::optional<std::int32_t> id(std::string_view token) const override { return vocabulary.id(token); }
    std::string_view piece(std::int32_t id) const override { return vocabulary.piece(id); }
    std::size_t idCount() const override { return vocabulary.pieces.size(); }
    std::string_view type() const override { return "BPE"; }
    std::string name() const override
    {
        return "BPE, " + countText(vocabulary.ids.size()) + " tokens, " + countText(mergeCount) + " merges" +
               (byteIds ? ", byte fallback" : "") + (ignoreMerges ? ", whole words first" : "");
    }
    bool byteFallback() const override { return byteIds.has_value(); }

private:
    struct Symbol {
        std::int32_t id;
        std::int32_t previous;
        std::int32_t next;
        std::size_t first;
        std::size_t last;
        bool alive;
    };
    void initialSymbols(const SpannedText& piece, std::vector<Symbol>& symbols) const;
    void mergeAll(std::vector<Symbol>& symbols) const;
};

void BpeModel::initialSymbols(const SpannedText& piece, std::vector<Symbol>& symbols) const
{
    std::string text;
    bool previousUnknown = false;
    for (std::size_t i = 0; i < piece.size(); ++i) {
        text.clear();
        if (i > 0) text = prefix;
        utf8::append(text, piece[i].codePoint);
        if (i + 1 == piece.size()) text += suffix;
        if (const std::optional<std::int32_t> found = vocabulary.id(text)) {
            symbols.push_back({*found, -1, -1, i, i + 1, true});
            previousUnknown = false;
            continue;
        }
        // byte_fallback: the entry's bytes as "<0xE6>" entries, when the vocab has every one.
        if (byteIds && std::all_of(text.begin(), text.end(), [&](char byte) { return (*byteIds)[static_cast<std::uint8_t>(byte)] >= 0; })) {
            for (const char byte : text)
                symbols.push_back({(*byteIds)[static_cast<std::uint8_t>(byte)], -1, -1, i, i + 1, true});
            previousUnknown = false;
            continue;
        }
        if (!unknown) continue;  // as the library does: no unk_token, the character has no token
        if (fuseUnknown && previousUnknown) symbols.back().last = i + 1;
        else symbols.push_back({*unknown, -1, -1, i, i + 1, true});
        previousUnknown = true;
    }
    for (std::size_t s = 0; s < symbols.size(); ++s) {
        symbols[s].previous = static_cast<std::int32_t>(s) - 1;
        symbols[s].next = s + 1 < symbols.size() ? static_cast<std::int32_t>(s + 1) : -1;
    }
}

void BpeModel::mergeAll(std::vector<Symbol>& symbols) const
{
    struct Candidate {
        std::int32_t rank;
        std::int32_t position;
        std::int32_t result;
        bool operator>(const Candidate& other) const
        {
            return rank != other.rank ? rank > other.rank : position > other.position;
        }
    };
    std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> queue;
    const auto consider = [&](std::int32_t left) {
        if (left < 0) return;
        const std::int32_t right = symbols[static_cast<std::size_t>(left)].next;
        if (right < 0) return;
        const auto it = merges.find(pairKey(symbols[static_cast<std::size_t>(left)].id, symbols[static_cast<std::size_t>(right)].id));
        if (it != merges.end()) queue.push({it->second.rank, left, it->second.result});
    };
    for (std::size_t s = 0; s + 1 < symbols.size(); ++s) consider(static_cast<std::int32_t>(s));
    while (!queue.empty()) {
        const Candidate top = queue.top();
        queue.pop();
        Symbol& left = symbols[static_cast<std::size_t>(top.position)];
        if (!left.alive || left.next < 0) continue;
        Symbol& right = symbols[static_cast<std::size_t>(left.next)];
        // The pair may have changed since it was queued.
        const auto it = merges.find(pairKey(left.id, right.id));
        if (it == merges.end() || it->second.result != top.result || it->second.rank != top.rank) continue;
        left.id = top.result;
        left.last = right.last;
        left.next = right.next;
        right.alive = false;
        if (left.next >= 0) symbols[static_cast<std::size_t>(left.next)].previous = top.position;
        consider(left.previous);
        consider(top.position);
    }
}

Status BpeModel::tokenize(const SpannedText& piece, std::vector<ModelToken>& out) const
{
    if (piece.empty()) return {};
    if (ignoreMerges) {
        // LLaMA 3: a piece that is an entry itself is that entry, whatever the merges would make.
        if (const std::optional<std::int32_t> whole = vocabulary.id(toUtf8(piece))) {
            out.push_back({*whole, 0, piece.size()});
            return {};
        }
    }
    std::vector<Symbol> symbols;
    symbols.reserve(piece.size());
    initialSymbols(piece, symbols);
    mergeAll(symbols);
    for (const Symbol& s : symbols)
        if (s.alive) out.push_back({s.id, s.first, s.last});
    return {};
}

// A merge as the file writes it: "left right" (one space) or ["left", "right"].
Expected<std::pair<std::string, std::string>> mergeParts(const Json& merge, std::size_t index)
{
    if (merge.is_string()) {
        const std::string& text = merge.get_ref<const std::string&>();
        const std::size_t space = text.find(' ');
        if (space == std::string::npos || text.find(' ', space + 1) != std::string::npos)
            return Error{"model BPE: merge " + std::to_string(index + 1) + " " + quotedToken(text) +
                         " is not two entries separated by one space"};
        return std::pair{text.substr(0, space), text.substr(space + 1)};
    }
    if (merge.is_array() && merge.size() == 2 && merge[0].is_string() && merge[1].is_string())
        return std::pair{merge[0].get<std::string>(), merge[1].get<std::string>()};
    return Error{"model BPE: merge " + std::to_string(index + 1) + " is neither \"a b\" nor [\"a\", \"b\"]"};
}

Status readMerges(const Json& list, BpeModel& model)
{
    if (list.size() > limits::maxVocabularyEntries)
        return Error{"model BPE has more than " + countText(limits::maxVocabularyEntries) + " merges"};
    model.merges.reserve(list.size());
    for (std::size_t i = 0; i < list.size(); ++i) {
        Expected<std::pair<std::string, std::string>> parts = mergeParts(list[i], i);
        if (!parts) return Error{parts.error()};
        const auto& [left, right] = *parts;
        // The vocabulary must hold both sides and their join: the library refuses such a file too.
        const std::optional<std::int32_t> leftId = model.vocabulary.id(left), rightId = model.vocabulary.id(right);
        std::string joined = left;
        joined += std::string_view(right).substr(right.rfind(model.prefix, 0) == 0 ? model.prefix.size() : 0);
        const std::optional<std::int32_t> result = model.vocabulary.id(joined);
        if (!leftId || !rightId || !result)
            return Error{"model BPE: merge " + std::to_string(i + 1) + " (" + quotedToken(left) + " + " +
                         quotedToken(right) + ") names " + quotedToken(!leftId ? left : !rightId ? right : joined) +
                         ", which is not in the vocab: the vocabulary does not match its merges"};
        model.merges.insert_or_assign(pairKey(*leftId, *rightId), Merge{static_cast<std::int32_t>(i), *result});
    }
    model.mergeCount = list.size();
    return {};
}

}  // namespace

Expected<std::shared_ptr<const VocabularyModel>> parseBpeModel(const Json& spec)
{
    const std::string what = "model BPE";
    if (const auto dropout = spec.find("dropout");
        dropout != spec.end() && !dropout->is_null() && !(dropout->is_number() && dropout->get<double>() == 0.0))
        return Error{"model BPE with dropout is not supported (it samples a different split each time)"};
    auto model = std::make_shared<BpeModel>();
    const auto vocab = spec.find("vocab");
    if (vocab == spec.end()) return Error{what + " has no vocab"};
    Expected<VocabularyTable> table = parseVocabularyObject(*vocab, what);
    if (!table) return Error{table.error()};
    model->vocabulary = std::move(*table);
    Expected<std::string> prefix = stringField(spec, "continuing_subword_prefix", what, std::string());
    Expected<std::string> suffix = stringField(spec, "end_of_word_suffix", what, std::string());
    Expected<bool> fuse = boolField(spec, "fuse_unk", what, false);
    Expected<bool> byteFallback = boolField(spec, "byte_fallback", what, false);
    Expected<bool> ignoreMerges = boolField(spec, "ignore_merges", what, false);
    for (const Status& s : {prefix ? Status{} : Status{Error{prefix.error()}}, suffix ? Status{} : Status{Error{suffix.error()}},
                            fuse ? Status{} : Status{Error{fuse.error()}},
                            byteFallback ? Status{} : Status{Error{byteFallback.error()}},
                            ignoreMerges ? Status{} : Status{Error{ignoreMerges.error()}}})
        if (!s) return Error{s.error()};
    model->prefix = *prefix;
    model->suffix = *suffix;
    model->fuseUnknown = *fuse;
    model->ignoreMerges = *ignoreMerges;
    Expected<std::optional<std::int32_t>> unknown = namedTokenId(spec, "unk_token", model->vocabulary, what);
    if (!unknown) return Error{unknown.error()};
    model->unknown = *unknown;
    if (*byteFallback) model->byteIds = model->vocabulary.byteFallbackIds();
    Expected<const Json*> merges = arrayField(spec, "merges", what);
    if (!merges) return Error{merges.error()};
    if (Status s = readMerges(**merges, *model); !s) return Error{s.error()};
    return std::shared_ptr<const VocabularyModel>(std::move(model));
}

}  // namespace qkv::tokenizer_json
