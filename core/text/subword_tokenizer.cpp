#include "core/text/subword_tokenizer.hpp"

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/common/path_exists.hpp"
#include "core/io/file_bytes.hpp"
#include "core/text/sentencepiece_folder.hpp"
#include "core/text/tokenizer.hpp"
#include "core/text/vocabulary_files.hpp"

namespace qkv {

namespace {

namespace fs = std::filesystem;

// True when some token outside [brackets] has an ASCII or Latin-1 upper-case letter.
bool hasUpperCaseTokens(const WordPieceVocab& vocab)
{
    for (const std::string& token : vocab.tokens) {
        if (token.starts_with('[') && token.ends_with(']')) continue;
        for (std::size_t i = 0; i < token.size(); ++i) {
            const auto c = static_cast<unsigned char>(token[i]);
            if (c >= 'A' && c <= 'Z') return true;
            // U+00C0..U+00DE (less U+00D7) are C3 80..C3 9E in UTF-8.
            if (c == 0xC3 && i + 1 < token.size()) {
                const auto next = static_cast<unsigned char>(token[i + 1]);
                if (next >= 0x80 && next <= 0x9E && next != 0x97) return true;
            }
        }
    }
    return false;
}

// Reads the WordPiece switches from tokenizer_config.json.
Status readTokenizerConfig(const std::string& path, WordPieceOptions& options)
{
    auto text = readFileBytes(path, limits::maxTokenizerFileBytes, "a tokenizer configuration");
    if (!text) return Error{text.error()};
    const nlohmann::json config = nlohmann::json::parse(*text, nullptr, false);
    if (config.is_discarded() || !config.is_object()) return Error{path + ": is not a JSON object"};
    const auto flag = [&](const char* key, bool& into) -> Status {
        const auto it = config.find(key);
        if (it == config.end() || it->is_null()) return {};
        if (!it->is_boolean()) return Error{path + ": \"" + key + "\" must be true or false"};
        into = it->get<bool>();
        return {};
    };
    if (Status s = flag("do_lower_case", options.lowerCase); !s) return s;
    if (Status s = flag("tokenize_chinese_chars", options.splitCjkIdeographs); !s) return s;
    if (const auto it = config.find("strip_accents"); it != config.end() && !it->is_null()) {
        if (!it->is_boolean()) return Error{path + ": \"strip_accents\" must be true, false or null"};
        options.stripAccents = it->get<bool>();
    }
    return {};
}

Expected<SubwordTokenizer> loadWordPiece(const fs::path& folder)
{
    const fs::path vocabPath = folder / "vocab.txt";
    auto vocab = loadWordPieceVocab(vocabPath.string());
    if (!vocab) return Error{vocab.error()};
    WordPieceOptions options;
    std::string casing;
    const fs::path configPath = folder / "tokenizer_config.json";
    if (pathExists(configPath)) {
        if (Status s = readTokenizerConfig(configPath.string(), options); !s) return Error{s.error()};
        casing = options.lowerCase ? "lower-cased (tokenizer_config.json)" : "cased (tokenizer_config.json)";
    } else {
        options.lowerCase = !hasUpperCaseTokens(*vocab);
        casing = options.lowerCase ? "lower-cased (guessed: the vocabulary has no capitals)"
                                   : "cased (guessed: the vocabulary has capitals)";
    }
    const std::size_t size = vocab->tokens.size();
    SubwordTokenizer tokenizer(WordPieceTokenizer{std::move(*vocab), options});
    tokenizer.setDescription("WordPiece, " + std::to_string(size) + " tokens, " + casing);
    return tokenizer;
}

// The model types whose byte-level BPE tokenizer frames a sentence as <s> ... </s>
// (RobertaTokenizer, BartTokenizer); GPT-2's adds nothing.
bool framesWithSentenceMarks(const std::string& modelType) { return modelType == "roberta" || modelType == "bart"; }

// Which family the folder's config.json (model_type) or tokenizer_config.json (tokenizer_class)
// names decides whether <s> ... </s> are added; both absent: nothing is (GPT-2's behaviour).
Expected<ByteLevelBpeOptions> byteLevelBpeOptions(const fs::path& folder, const ByteLevelBpe& bpe)
{
    std::string family;
    for (const auto& [file, key] : {std::pair{"config.json", "model_type"}, std::pair{"tokenizer_config.json",
                                                                                      "tokenizer_class"}}) {
        if (!family.empty() || !pathExists(folder / file)) continue;
        auto text = readFileBytes((folder / file).string(), limits::maxTokenizerFileBytes, "a model configuration");
        if (!text) return Error{text.error()};
        const nlohmann::json config = nlohmann::json::parse(*text, nullptr, false);
        if (config.is_discarded() || !config.is_object()) continue;  // the model's loader reports it
        if (const auto it = config.find(key); it != config.end() && it->is_string()) family = it->get<std::string>();
    }
    for (char& c : family) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (family.ends_with("tokenizerfast")) family.resize(family.size() - 13);
    if (family.ends_with("tokenizer")) family.resize(family.size() - 9);
    ByteLevelBpeOptions options;
    if (!framesWithSentenceMarks(family)) return options;
    const std::optional<std::int32_t> begin = bpe.id("<s>");
    const std::optional<std::int32_t> end = bpe.id("</s>");
    if (!begin || !end)
        return Error{(folder / "vocab.json").string() + ": a " + family + " tokenizer frames sentences as <s> ... </s>, "
                     "but vocab.json lacks " + (!begin ? "<s>" : "</s>")};
    options.beginId = *begin;
    options.endId = *end;
    return options;
}

SubwordTokenizer describedTokenizer(DescribedSentencePiece loaded)
{
    SubwordTokenizer tokenizer(std::move(loaded.tokenizer));
    tokenizer.setDescription(std::move(loaded.description));
    return tokenizer;
}

Expected<SubwordTokenizer> loadSentencePiece(const Expected<DescribedSentencePiece>& loaded)
{
    if (!loaded) return Error{loaded.error()};
    return describedTokenizer(*loaded);
}

}  // namespace

Expected<SubwordTokenization> SubwordTokenizer::encode(std::string_view text) const
{
    countSentenceCut();
    if (const auto* f = fast()) return f->encode(text);
    if (const auto* w = wordPiece()) return wordPieceTokenize(w->vocab, text, w->options);
    if (const auto* s = sentencePiece()) return sentencePieceTokenize(*s, text);
    const auto* b = byteLevelBpe();
    return byteLevelBpeTokenize(b->bpe, text, b->options);
}

std::string SubwordTokenizer::displayPiece(std::string_view piece) const
{
    if (const auto* f = fast()) return f->display(piece);
    if (byteLevelBpe()) return qkv::displayPiece(piece);
    return std::string(piece);
}

std::string SubwordTokenizer::decodePieces(const std::vector<std::string>& pieces) const
{
    std::string text;
    for (const std::string& piece : pieces) {
        if (readsWordPieces()) {
            text += piece.rfind("##", 0) == 0 ? piece.substr(2) : " " + piece;
        } else if (const auto* f = fast(); f && f->modelType() == "WordLevel") {
            text += " " + f->text(piece);  // whole words (a model trained in the app): a space before each
        } else if (const auto* f = fast()) {
            text += f->text(piece);
        } else if (byteLevelBpe()) {
            text += pieceBytes(piece);
        } else {  // SentencePiece: "▁" is a space, "<0xXX>" a byte
            std::string out = piece;
            if (out.size() == 6 && out.rfind("<0x", 0) == 0 && out.back() == '>' &&
                std::isxdigit(static_cast<unsigned char>(out[3])) && std::isxdigit(static_cast<unsigned char>(out[4]))) {
                text += static_cast<char>(std::strtol(out.substr(3, 2).c_str(), nullptr, 16));
                continue;
            }
            for (std::size_t at = out.find("\u2581"); at != std::string::npos; at = out.find("\u2581", at + 1))
                out.replace(at, std::string("\u2581").size(), " ");
            text += out;
        }
    }
    return text;
}

std::size_t SubwordTokenizer::vocabularySize() const
{
    if (const auto* f = fast()) return f->vocabularySize();
    if (const auto* w = wordPiece()) return w->vocab.tokens.size();
    if (const auto* s = sentencePiece()) return sentencePieceVocabularySize(*s);
    return byteLevelBpe()->bpe.idCount;
}

namespace {

// The folder's other files, read as before tokenizer.json was.
Expected<SubwordTokenizer> loadClassicTokenizer(const std::string& folder);

bool hasClassicTokenizerFiles(const fs::path& dir)
{
    for (const char* file : {"vocab.txt", "vocab.json", "merges.txt", "source.spm", "target.spm", "tokenizer.model",
                             "spiece.model"})
        if (pathExists(dir / file)) return true;
    return false;
}

}  // namespace

bool hasSubwordTokenizerFiles(const std::string& folder)
{
    const fs::path dir(folder);
    return pathExists(dir / "tokenizer.json") || hasClassicTokenizerFiles(dir);
}

Expected<SubwordTokenizer> loadSubwordTokenizer(const std::string& folder)
{
    const fs::path dir(folder);
    if (!pathExists(dir / "tokenizer.json")) return loadClassicTokenizer(folder);
    Expected<FastTokenizer> fast = FastTokenizer::load(folder);
    if (fast) {
        SubwordTokenizer tokenizer(std::move(*fast));
        tokenizer.setDescription(tokenizer.fast()->description());
        return tokenizer;
    }
    if (!hasClassicTokenizerFiles(dir)) return Error{fast.error()};
    Expected<SubwordTokenizer> classic = loadClassicTokenizer(folder);
    if (!classic) return Error{fast.error() + "; and " + classic.error()};
    classic->setDescription(classic->description() + " (tokenizer.json not used: " + fast.error() + ")");
    return classic;
}

namespace {

Expected<SubwordTokenizer> loadClassicTokenizer(const std::string& folder)
{
    const fs::path dir(folder);
    const bool json = pathExists(dir / "vocab.json");
    const bool merges = pathExists(dir / "merges.txt");
    // Marian before byte-level BPE: its folder has vocab.json without merges.txt.
    if (!merges && pathExists(dir / "source.spm"))
        return loadSentencePiece(loadMarianSentencePiece(folder, MarianSide::Source));
    if (json || merges) {
        if (!json) return Error{folder + ": has merges.txt but no vocab.json beside it"};
        if (!merges) return Error{folder + ": has vocab.json but no merges.txt beside it"};
        auto bpe = loadByteLevelBpe((dir / "vocab.json").string(), (dir / "merges.txt").string());
        if (!bpe) return Error{bpe.error()};
        Expected<ByteLevelBpeOptions> options = byteLevelBpeOptions(dir, *bpe);
        if (!options) return Error{options.error()};
        const std::string description = "byte-level BPE, " + std::to_string(bpe->ids.size()) + " tokens, " +
                                        std::to_string(bpe->mergeLines) + " merges" +
                                        (options->beginId >= 0 ? ", <s> ... </s> added" : "");
        SubwordTokenizer tokenizer(ByteLevelBpeTokenizer{std::move(*bpe), *options});
        tokenizer.setDescription(description);
        return tokenizer;
    }
    if (pathExists(dir / "vocab.txt")) return loadWordPiece(dir);
    if (pathExists(dir / "tokenizer.model")) return loadSentencePiece(loadLlamaSentencePiece(folder));
    if (pathExists(dir / "spiece.model")) return loadSentencePiece(loadT5SentencePiece(folder));
    return Error{folder +
                 ": has no tokenizer files (tokenizer.json, vocab.txt for WordPiece, vocab.json and merges.txt "
                 "for byte-level BPE, tokenizer.model or spiece.model for SentencePiece, source.spm "
                 "and target.spm with vocab.json for Marian)"};
}

}  // namespace

Expected<SourceTargetTokenizers> loadSourceTargetTokenizers(const std::string& folder)
{
    const fs::path dir(folder);
    if (!pathExists(dir / "source.spm") || pathExists(dir / "merges.txt")) {
        Expected<SubwordTokenizer> shared = loadSubwordTokenizer(folder);
        if (!shared) return Error{shared.error()};
        return SourceTargetTokenizers{*shared, *shared};
    }
    if (!pathExists(dir / "target.spm"))
        return Error{folder + ": has source.spm but no target.spm beside it (Marian reads the target sentence with it)"};
    auto source = loadMarianSentencePiece(folder, MarianSide::Source);
    if (!source) return Error{source.error()};
    auto target = loadMarianSentencePiece(folder, MarianSide::Target);
    if (!target) return Error{target.error()};
    return SourceTargetTokenizers{describedTokenizer(std::move(*source)), describedTokenizer(std::move(*target))};
}

}  // namespace qkv
