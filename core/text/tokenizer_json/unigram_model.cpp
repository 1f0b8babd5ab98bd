// Unigram as tokenizer.json describes it (Kudo 2018, "Subword Regularization"; Hugging Face
// tokenizers, models/unigram): every entry has a log probability, and a piece is split the way
// whose entries' scores sum highest (Viterbi over its characters). A character no entry starts
// with is unknown, scored 10 below the least likely entry, and runs of unknowns are one token;
// with byte_fallback an unknown becomes its "<0xE6>" bytes.
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/text/tokenizer_json/vocabulary_table.hpp"

namespace qkv::tokenizer_json {

namespace {

constexpr double kUnknownPenalty = 10.0;

class UnigramModel final : public VocabularyModel {
public:
    VocabularyTable vocabulary;
    std::vector<double> scores;                // by id
    std::vector<std::int32_t> sortedIds;       // ids in byte order of their entries: the prefix search
    std::optional<std::int32_t> unknown;
    std::vector<std::int32_t> byteIds;         // byte_fallback: "<0x00>".."<0xFF>", -1 where missing
    bool useByteFallback = false;
    double unknownScore = 0.0;

    Status tokenize(const SpannedText& piece, std::vector<ModelToken>& out) const override;
    std::optional<std::int32_t> id(std::string_view token) const override { return vocabulary.id(token); }
    std::string_view piece(std::int32_t id) const override { return vocabulary.piece(id); }
    std::size_t idCount() const override { return vocabulary.pieces.size(); }
    std::string_view type() const override { return "Unigram"; }
    std::string name() const override
    {
        return "Unigram, " + countText(vocabulary.ids.size()) + " pieces" + (useByteFallback ? ", byte fallback" : "");
    }
    bool byteFallback() const override { return useByteFallback; }

private:
    // Calls visit(id, byteLength) for every entry that text[at..] begins with.
    template <class Visit>
    void prefixesAt(std::string_view text, std::size_t at, Visit visit) const;
    void appendUnknown(const SpannedText& piece, std::size_t first, std::size_t last, const std::string& bytes,
                       std::vector<ModelToken>& out) const;
};

template <class Visit>
void UnigramModel::prefixesAt(std::string_view text, std::size_t at, Visit visit) const
{
    // sortedIds is in byte order, so the entries sharing a prefix are one range; each further
    // byte narrows it, and an entry exactly as long as the prefix comes first in it.
    auto lo = sortedIds.begin(), hi = sortedIds.end();
    for (std::size_t length = 1; at + length <= text.size() && lo != hi; ++length) {
        const auto byte = static_cast<unsigned char>(text[at + length - 1]);
        const auto key = [&](std::int32_t id) {
            const std::string_view entry = vocabulary.piece(id);
            return entry.size() < length ? -1 : static_cast<int>(static_cast<unsigned char>(entry[length - 1]));
        };
        lo = std::partition_point(lo, hi, [&](std::int32_t id) { return key(id) < static_cast<int>(byte); });
        hi = std::partition_point(lo, hi, [&](std::int32_t id) { return key(id) <= static_cast<int>(byte); });
        if (lo != hi && vocabulary.piece(*lo).size() == length) visit(*lo, length);
    }
}

void UnigramModel::appendUnknown(const SpannedText& piece, std::size_t first, std::size_t last, const std::string& bytes,
                                 std::vector<ModelToken>& out) const
{
    if (useByteFallback && std::all_of(bytes.begin(), bytes.end(), [&](char b) { return byteIds[static_cast<std::uint8_t>(b)] >= 0; })) {
        for (const char b : bytes) out.push_back({byteIds[static_cast<std::uint8_t>(b)], first, last});
        return;
    }
    (void)piece;
    out.push_back({*unknown, first, last});
}

Status UnigramModel::tokenize(const SpannedText& piece, std::vector<ModelToken>& out) const
{
    if (piece.empty()) return {};
    std::vector<std::size_t> charAtByte;
    const std::string text = toUtf8(piece, &charAtByte);
    struct Node {
        double score = -std::numeric_limits<double>::infinity();
        std::size_t start = 0;
        std::int32_t id = -1;
        bool reached = false;
    };
    std::vector<Node> best(text.size() + 1);
    best[0].reached = true;
    best[0].score = 0;
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t charBytes = utf8::decodeAt(text, at).bytes;
        const double here = best[at].score;
        bool singleCharacter = false;
        prefixesAt(text, at, [&](std::int32_t id, std::size_t length) {
            Node& target = best[at + length];
            const double candidate = here + scores[static_cast<std::size_t>(id)];
            if (!target.reached || candidate > target.score) target = {candidate, at, id, true};
            if (length == charBytes) singleCharacter = true;
        });
        if (!singleCharacter) {
            if (!unknown) return Error{"model Unigram has no unk_id, and the text has a character none of its pieces starts with"};
            Node& target = best[at + charBytes];
            const double candidate = here + unknownScore;
            if (!target.reached || candidate > target.score) target = {candidate, at, *unknown, true};
        }
        at += charBytes;
    }
    // Back from the end; runs of unknowns become one.
    std::vector<std::pair<std::size_t, std::size_t>> spans;  // byte ranges, last first
    std::vector<std::int32_t> ids;
    for (std::size_t end = text.size(); end > 0;) {
        const Node& node = best[end];
        if (!ids.empty() && unknown && node.id == *unknown && ids.back() == *unknown) spans.back().first = node.start;
        else {
            ids.push_back(node.id);
            spans.push_back({node.start, end});
        }
        end = node.start;
    }
    for (std::size_t k = ids.size(); k-- > 0;) {
        const std::size_t first = charAtByte[spans[k].first], last = charAtByte[spans[k].second];
        if (unknown && ids[k] == *unknown)
            appendUnknown(piece, first, last, text.substr(spans[k].first, spans[k].second - spans[k].first), out);
        else out.push_back({ids[k], first, last});
    }
    return {};
}

}  // namespace

Expected<std::shared_ptr<const VocabularyModel>> parseUnigramModel(const Json& spec)
{
    const std::string what = "model Unigram";
    Expected<const Json*> vocab = arrayField(spec, "vocab", what);
    if (!vocab) return Error{vocab.error()};
    if ((*vocab)->size() > limits::maxVocabularyEntries)
        return Error{what + " has more than " + countText(limits::maxVocabularyEntries) + " pieces"};
    auto model = std::make_shared<UnigramModel>();
    double lowest = std::numeric_limits<double>::infinity();
    for (const Json& entry : **vocab) {
        if (!entry.is_array() || entry.size() != 2 || !entry[0].is_string() || !entry[1].is_number())
            return Error{what + ": a vocab entry is not [\"piece\", score]"};
        const double score = entry[1].get<double>();
        if (!std::isfinite(score)) return Error{what + ": the piece " + quotedToken(entry[0].get<std::string>()) + " has no finite score"};
        const auto id = static_cast<std::int64_t>(model->scores.size());
        if (Status s = model->vocabulary.add(entry[0].get<std::string>(), id, what); !s) return Error{s.error()};
        model->scores.push_back(score);
        lowest = std::min(lowest, score);
    }
    if (model->scores.empty()) return Error{what + " has no pieces"};
    model->unknownScore = lowest - kUnknownPenalty;
    if (const auto unk = spec.find("unk_id"); unk != spec.end() && !unk->is_null()) {
        if (!unk->is_number_integer() || unk->get<std::int64_t>() < 0 ||
            unk->get<std::int64_t>() >= static_cast<std::int64_t>(model->scores.size()))
            return Error{what + ": unk_id is not the index of one of its pieces"};
        model->unknown = static_cast<std::int32_t>(unk->get<std::int64_t>());
    }
    Expected<bool> byteFallback = boolField(spec, "byte_fallback", what, false);
    if (!byteFallback) return Error{byteFallback.error()};
    model->useByteFallback = *byteFallback;
    if (model->useByteFallback) model->byteIds = model->vocabulary.byteFallbackIds();
    model->sortedIds.resize(model->scores.size());
    for (std::size_t i = 0; i < model->sortedIds.size(); ++i) model->sortedIds[i] = static_cast<std::int32_t>(i);
    std::sort(model->sortedIds.begin(), model->sortedIds.end(),
              [&](std::int32_t a, std::int32_t b) { return model->vocabulary.piece(a) < model->vocabulary.piece(b); });
    return std::shared_ptr<const VocabularyModel>(std::move(model));
}

}  // namespace qkv::tokenizer_json
