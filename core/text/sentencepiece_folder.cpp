#include "core/text/sentencepiece_folder.hpp"

#include <filesystem>
#include <optional>

#include <nlohmann/json.hpp>

#include "core/common/path_exists.hpp"
#include "core/io/file_bytes.hpp"
#include "core/io/json_depth.hpp"

namespace qkv {

namespace {

namespace fs = std::filesystem;

// tokenizer_config.json when the folder has one (null when it has none).
Expected<nlohmann::json> readTokenizerConfig(const fs::path& folder)
{
    const fs::path path = folder / "tokenizer_config.json";
    if (!pathExists(path)) return nlohmann::json();
    auto text = readFileBytes(path.string(), limits::maxTokenizerFileBytes, "a tokenizer configuration");
    if (!text) return Error{text.error()};
    if (jsonDepth(*text, 64) > 64) return Error{path.string() + ": nests too deeply"};
    nlohmann::json config = nlohmann::json::parse(*text, nullptr, false);
    if (config.is_discarded() || !config.is_object()) return Error{path.string() + ": is not a JSON object"};
    return config;
}

// A true/false switch of the configuration; unset when absent or null.
Expected<std::optional<bool>> configFlag(const nlohmann::json& config, const fs::path& folder, const char* key)
{
    if (!config.is_object()) return std::optional<bool>();
    const auto it = config.find(key);
    if (it == config.end() || it->is_null()) return std::optional<bool>();
    if (!it->is_boolean())
        return Error{(folder / "tokenizer_config.json").string() + ": \"" + key + "\" must be true or false"};
    return std::optional<bool>(it->get<bool>());
}

std::string piecesText(const SentencePieceModel& model, const char* file)
{
    return "SentencePiece (" + model.kind() + "), " + std::to_string(model.pieceCount()) + " pieces, " + file;
}

}  // namespace

Expected<DescribedSentencePiece> loadLlamaSentencePiece(const std::string& folder)
{
    const fs::path dir(folder);
    auto config = readTokenizerConfig(dir);
    if (!config) return Error{config.error()};
    auto bos = configFlag(*config, dir, "add_bos_token");
    if (!bos) return Error{bos.error()};
    auto eos = configFlag(*config, dir, "add_eos_token");
    if (!eos) return Error{eos.error()};
    auto model = SentencePieceModel::load((dir / "tokenizer.model").string());
    if (!model) return Error{model.error()};

    // LlamaTokenizer's defaults: add_bos_token true, add_eos_token false.
    SentencePieceOptions options;
    options.addBos = bos->value_or(true);
    options.addEos = eos->value_or(false);
    std::string description = piecesText(*model, "tokenizer.model");
    if (options.addBos) description += ", <s> first";
    if (options.addEos) description += ", </s> last";
    if (!bos->has_value() && !eos->has_value()) description += " (LLaMA's defaults)";
    return DescribedSentencePiece{SentencePieceTokenizer{std::move(*model), options, nullptr}, description};
}

Expected<DescribedSentencePiece> loadT5SentencePiece(const std::string& folder)
{
    const fs::path dir(folder);
    auto config = readTokenizerConfig(dir);
    if (!config) return Error{config.error()};
    const std::string configPath = (dir / "tokenizer_config.json").string();
    SentencePieceOptions options;
    options.addEos = true;
    options.extraIds = 100;  // T5Tokenizer's default
    if (config->is_object()) {
        if (const auto it = config->find("tokenizer_class"); it != config->end() && it->is_string()) {
            const std::string name = it->get<std::string>();
            if (!name.starts_with("T5Tokenizer"))
                return Error{configPath + ": names " + name + "; spiece.model is read as T5's tokenizer only"};
        }
        if (const auto it = config->find("extra_ids"); it != config->end() && !it->is_null()) {
            if (!it->is_number_unsigned() || it->get<std::uint64_t>() > 10000)
                return Error{configPath + ": \"extra_ids\" must be a whole number from 0 to 10000"};
            options.extraIds = static_cast<std::int32_t>(it->get<std::uint64_t>());
        }
    }
    auto model = SentencePieceModel::load((dir / "spiece.model").string());
    if (!model) return Error{model.error()};
    std::string description = piecesText(*model, "spiece.model") + ", </s> last";
    if (options.extraIds > 0) description += ", " + std::to_string(options.extraIds) + " extra ids";
    return DescribedSentencePiece{SentencePieceTokenizer{std::move(*model), options, nullptr}, description};
}

Expected<DescribedSentencePiece> loadMarianSentencePiece(const std::string& folder, MarianSide side)
{
    const fs::path dir(folder);
    const char* file = side == MarianSide::Source ? "source.spm" : "target.spm";
    // MarianTokenizer's separate_vocabs: the target side's ids from target_vocab.json.
    const char* vocabFile =
        side == MarianSide::Target && pathExists(dir / "target_vocab.json") ? "target_vocab.json" : "vocab.json";
    if (!pathExists(dir / vocabFile))
        return Error{folder + ": has " + file + " but no " + vocabFile +
                     " beside it (Marian's ids come from that vocabulary, not from the .spm files)"};
    auto vocab = loadSentencePieceVocab((dir / vocabFile).string());
    if (!vocab) return Error{vocab.error()};
    auto model = SentencePieceModel::load((dir / file).string());
    if (!model) return Error{model.error()};
    SentencePieceOptions options;
    options.addEos = true;
    options.languageCode = true;
    const std::string description = piecesText(*model, file) + ", ids from " + vocabFile + " (" +
                                    std::to_string(vocab->ids.size()) + " entries), </s> last";
    return DescribedSentencePiece{
        SentencePieceTokenizer{std::move(*model), options,
                               std::make_shared<const SentencePieceVocab>(std::move(*vocab))},
        description};
}

}  // namespace qkv
