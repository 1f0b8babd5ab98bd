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

// A model of the cache: its headers were read by listCachedModels; its memory and dtype now.
void describeCached(ListedModel& model, std::size_t available)
{
    if (!model.readable) return;
    if (const qkv::Expected<qkv::Checkpoint> checkpoint = qkv::openCheckpoint(model.path)) {
        model.memory = qkv::estimateModelLoadMemory(*checkpoint, available);
        model.storedAs = storedDtype(*checkpoint);
    }
}

// A GGUF file: its header read (the quantization), then opened as a checkpoint (family, layers,
// memory); a file core refuses is listed with core's message.
void describeGguf(ListedModel& model, std::size_t available)
{
    const qkv::Expected<qkv::GgufFile> file = qkv::readGgufFile(model.path);
    if (!file) {
        model.whyNot = file.error();
        return;
    }
    model.storedAs = qkv::ggufQuantizationName(*file);
    if (const qkv::GgufValue* architecture = file->find("general.architecture")) model.family = architecture->text;
    const qkv::Expected<qkv::Checkpoint> checkpoint = qkv::openCheckpoint(model.path);
    if (!checkpoint) {
        model.whyNot = checkpoint.error();
        return;
    }
    model.attentionLayers = static_cast<Index>(checkpoint->layers.size());
    model.memory = qkv::estimateModelLoadMemory(*checkpoint, available);
    model.readable = true;
    model.withoutTokenizer = !checkpoint->fileTokenizer.has_value();
}

ListedModel named(const qkv::LocalGgufModel& found)
{
    ListedModel model;
    model.name = found.name;
    model.source = found.source;
    model.path = found.path;
    model.bytes = found.bytes;
    model.described = false;
    return model;
}

}  // namespace

std::vector<ListedModel> listModelNames(const ModelSources& sources)
{
    std::vector<ListedModel> models;
    if (!sources.huggingFaceCache.empty())
        for (const qkv::CachedModel& found : qkv::listCachedModels(sources.huggingFaceCache))
            models.push_back({found.name, kHuggingFaceSource, found.folder, found.family, {}, found.attentionLayers,
                              found.bytes, std::nullopt, found.readable, found.whyNot, found.withoutTokenizer, false});
    if (!sources.ollamaModels.empty())
        for (const qkv::LocalGgufModel& found : qkv::listOllamaModels(sources.ollamaModels)) models.push_back(named(found));
    if (!sources.lmStudioModels.empty())
        for (const qkv::LocalGgufModel& found : qkv::listLmStudioModels(sources.lmStudioModels))
            models.push_back(named(found));
    return models;
}

ListedModel describeModel(ListedModel model, std::size_t available)
{
    if (model.source == kHuggingFaceSource) describeCached(model, available);
    else describeGguf(model, available);
    model.described = true;
    // Readable, but it would not fit: not readable, with both figures.
    if (model.readable && model.memory && !model.memory->fits()) {
        model.readable = false;
        model.whyNot = memoryRefusal(*model.memory);
    }
    return model;
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
