#include "ui/checkpoint/model_listing.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

#include "core/checkpoint/checkpoint.hpp"
#include "core/checkpoint/model_folders.hpp"
#include "core/gguf/gguf_file.hpp"
#include "core/gguf/gguf_file_type.hpp"
#include "core/gguf/local_models.hpp"

namespace qkv::ui {
namespace {

// A model that is readable but would not fit: not readable, with both figures.
void holdAgainstMemory(ListedModel& model)
{
    if (model.readable && model.memory && !model.memory->fits()) {
        model.readable = false;
        model.whyNot = memoryRefusal(*model.memory);
    }
}

// The dtype of most of a safetensors checkpoint's values ("BF16"; "mostly BF16" when others are there too).
std::string storedDtype(const qkv::Checkpoint& checkpoint)
{
    std::map<std::string, std::size_t> values;
    for (const auto& [name, tensor] : checkpoint.tensors) {
        std::size_t n = 1;
        for (const std::size_t extent : tensor.shape) n *= extent;
        values[tensor.dtype] += n;
    }
    const auto most = std::max_element(values.begin(), values.end(),
                                       [](const auto& a, const auto& b) { return a.second < b.second; });
    if (most == values.end()) return {};
    return values.size() == 1 ? most->first : "mostly " + most->first;
}

ListedModel cached(const qkv::CachedModel& found, std::size_t available)
{
    ListedModel model{found.name, kHuggingFaceSource, found.folder, found.family, {}, found.attentionLayers,
                      found.bytes, std::nullopt, found.readable, found.whyNot, found.withoutTokenizer};
    if (model.readable)
        if (const qkv::Expected<qkv::Checkpoint> checkpoint = qkv::openCheckpoint(found.folder)) {
            model.memory = qkv::estimateModelLoadMemory(*checkpoint, available);
            model.storedAs = storedDtype(*checkpoint);
        }
    return model;
}

// A GGUF file: its header read (the quantization), then opened as a checkpoint (family, layers,
// memory); a file core refuses is listed with core's message.
ListedModel gguf(const qkv::LocalGgufModel& found, std::size_t available)
{
    ListedModel model;
    model.name = found.name;
    model.source = found.source;
    model.path = found.path;
    model.bytes = found.bytes;
    const qkv::Expected<qkv::GgufFile> file = qkv::readGgufFile(found.path);
    if (!file) {
        model.whyNot = file.error();
        return model;
    }
    model.storedAs = qkv::ggufQuantizationName(*file);
    if (const qkv::GgufValue* architecture = file->find("general.architecture")) model.family = architecture->text;
    const qkv::Expected<qkv::Checkpoint> checkpoint = qkv::openCheckpoint(found.path);
    if (!checkpoint) {
        model.whyNot = checkpoint.error();
        return model;
    }
    model.attentionLayers = static_cast<Index>(checkpoint->layers.size());
    model.memory = qkv::estimateModelLoadMemory(*checkpoint, available);
    model.readable = true;
    model.withoutTokenizer = !checkpoint->fileTokenizer.has_value();
    return model;
}

}  // namespace

std::vector<ListedModel> listModels(const ModelSources& sources)
{
    const std::size_t available = sources.availableMemory ? sources.availableMemory() : 0;
    std::vector<ListedModel> models;
    if (!sources.huggingFaceCache.empty())
        for (const qkv::CachedModel& found : qkv::listCachedModels(sources.huggingFaceCache))
            models.push_back(cached(found, available));
    if (!sources.ollamaModels.empty())
        for (const qkv::LocalGgufModel& found : qkv::listOllamaModels(sources.ollamaModels))
            models.push_back(gguf(found, available));
    if (!sources.lmStudioModels.empty())
        for (const qkv::LocalGgufModel& found : qkv::listLmStudioModels(sources.lmStudioModels))
            models.push_back(gguf(found, available));
    for (ListedModel& model : models) holdAgainstMemory(model);
    return models;
}

std::string memoryFigure(std::size_t bytes)
{
    char text[32];
    if (bytes < (std::size_t{1} << 20))
        std::snprintf(text, sizeof text, "%.0f KiB", static_cast<double>(bytes) / 1024.0);
    else if (bytes < (std::size_t{1} << 30))
        std::snprintf(text, sizeof text, "%.0f MiB", static_cast<double>(bytes) / double(1ull << 20));
    else
        std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / double(1ull << 30));
    return text;
}

std::string memoryRefusal(const qkv::ModelLoadMemory& estimate)
{
    const bool oneBlock = estimate.residency == qkv::WeightResidency::OneBlockAtATime;
    return "needs " + memoryFigure(estimate.bytes()) + (oneBlock ? " even one block at a time" : "") +
           " (weights in float32); this machine has " + memoryFigure(estimate.availableBytes) + " available";
}

}  // namespace qkv::ui
