#include "core/checkpoint/gguf_checkpoint.hpp"

#include <algorithm>

#include "core/families/gguf_names.hpp"
#include "core/gguf/gguf_types.hpp"
#include "core/modelfiles/gguf_config.hpp"
#include "core/text/embedded_vocabulary.hpp"

namespace qkv {
namespace {

CheckpointTensor checkpointTensor(const GgufFile& file, const GgufTensorInfo& info)
{
    CheckpointTensor tensor;
    tensor.file = file.path;
    tensor.dtype = "GGUF " + ggmlTypeName(info.type);
    // ggml's dims run from the row's values outwards; safetensors' from the outside in.
    for (auto dim = info.dims.rbegin(); dim != info.dims.rend(); ++dim) tensor.shape.push_back(static_cast<std::size_t>(*dim));
    tensor.gguf = info;
    tensor.fileOffset = info.offset;
    tensor.byteCount = info.byteCount;
    return tensor;
}

std::optional<bool> flag(const GgufFile& file, const std::string& key)
{
    const GgufValue* value = file.find(key);
    if (!value || value->type != GgufValueType::Bool) return std::nullopt;
    return value->unsignedValue != 0;
}

std::int32_t tokenId(const GgufFile& file, const std::string& key)
{
    const GgufValue* value = file.find(key);
    const std::optional<std::int64_t> id = value ? value->integer() : std::nullopt;
    return id && *id >= 0 && *id < (std::int64_t{1} << 30) ? static_cast<std::int32_t>(*id) : -1;
}

// The tokenizer.ggml.* keys (llama.cpp's names).
EmbeddedVocabulary embeddedVocabulary(const GgufFile& file)
{
    EmbeddedVocabulary v;
    v.source = file.path;
    const auto text = [&](const std::string& key) {
        const GgufValue* value = file.find(key);
        return value && value->type == GgufValueType::String ? value->text : std::string();
    };
    v.model = text("tokenizer.ggml.model");
    v.pre = text("tokenizer.ggml.pre");
    if (const GgufValue* tokens = file.find("tokenizer.ggml.tokens")) v.tokens = tokens->strings;
    if (const GgufValue* merges = file.find("tokenizer.ggml.merges")) v.merges = merges->strings;
    if (const GgufValue* scores = file.find("tokenizer.ggml.scores"))
        v.scores.assign(scores->numbers.begin(), scores->numbers.end());
    if (const GgufValue* types = file.find("tokenizer.ggml.token_type"))
        for (double type : types->numbers) v.tokenTypes.push_back(static_cast<std::int32_t>(type));
    v.bosId = tokenId(file, "tokenizer.ggml.bos_token_id");
    v.eosId = tokenId(file, "tokenizer.ggml.eos_token_id");
    v.unknownId = tokenId(file, "tokenizer.ggml.unknown_token_id");
    v.addBos = flag(file, "tokenizer.ggml.add_bos_token");
    v.addEos = flag(file, "tokenizer.ggml.add_eos_token");
    v.addSpacePrefix = flag(file, "tokenizer.ggml.add_space_prefix");
    v.removeExtraWhitespaces = flag(file, "tokenizer.ggml.remove_extra_whitespaces");
    return v;
}

}  // namespace

Expected<GgufCheckpointParts> readGgufCheckpoint(const GgufFile& file)
{
    const GgufValue* architecture = file.find("general.architecture");
    if (!architecture || architecture->type != GgufValueType::String)
        return Error{file.path + ": has no general.architecture, so its family is unknown"};
    const GgufArchitectureRow* row = ggufArchitectureRow(architecture->text);
    if (!row)
        return Error{file.path + ": architecture '" + architecture->text + "' is not one this program reads (" +
                     ggufArchitectureNames() + ")"};
    Expected<CheckpointConfig> config = ggufCheckpointConfig(file, row->architecture, row->modelType);
    if (!config) return Error{config.error()};
    GgufCheckpointParts parts;
    parts.config = std::move(*config);
    const Index heads = parts.config.headCount.value_or(0);
    const Index keyValueHeads = parts.config.keyValueHeadCount.value_or(heads);
    for (const GgufTensorInfo& info : file.tensors) {
        const std::optional<std::string> name = huggingFaceTensorName(*row, info.name);
        if (!name) continue;  // read by no layer (rope_freqs: gguf_config.hpp reads it)
        CheckpointTensor tensor = checkpointTensor(file, info);
        if (row->interleavedQueryKey && name->find(".self_attn.q_proj.") != std::string::npos) tensor.interleavedHeads = heads;
        if (row->interleavedQueryKey && name->find(".self_attn.k_proj.") != std::string::npos)
            tensor.interleavedHeads = keyValueHeads;
        if (row->normsStoreOnePlusW && isNormWeightName(*name)) tensor.storedOffset = 1.0f;
        parts.tensors.emplace(*name, std::move(tensor));
    }
    parts.tokenizer = embeddedVocabularyTokenizer(embeddedVocabulary(file));
    return parts;
}

}  // namespace qkv
