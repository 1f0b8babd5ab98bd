#include "core/io/safetensors.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "core/io/atomic_file.hpp"
#include "core/io/safetensors_header.hpp"

namespace qkv {

using safetensors_detail::kMetadataKey;
using safetensors_detail::writeU64;
using Json = nlohmann::json;

Status writeSafetensors(const std::string& path, const SafetensorsFile& file)
{
    std::vector<const Tensor*> sorted;
    for (const Tensor& tensor : file.tensors) sorted.push_back(&tensor);
    std::sort(sorted.begin(), sorted.end(), [](const Tensor* a, const Tensor* b) { return a->name < b->name; });

    Json header = Json::object();
    std::uint64_t offset = 0;
    for (std::size_t i = 0; i < sorted.size(); ++i) {
        const Tensor& tensor = *sorted[i];
        if (tensor.name == kMetadataKey)
            return Error{"cannot write '" + path + "': '__metadata__' cannot name a tensor"};
        if (i > 0 && sorted[i - 1]->name == tensor.name)
            return Error{"cannot write '" + path + "': two tensors are named '" + tensor.name + "'"};
        if (!tensor.consistent())
            return Error{"cannot write '" + path + "': tensor '" + tensor.name + "' has " +
                         std::to_string(tensor.data.size()) + " bytes, which does not match its shape"};
        header[tensor.name] = {{"dtype", std::string(tensorDtypeName(tensor.dtype))},
                               {"shape", tensor.shape},
                               {"data_offsets", {offset, offset + tensor.data.size()}}};
        offset += tensor.data.size();
    }
    if (!file.metadata.empty()) header[kMetadataKey] = file.metadata;

    std::string text;
    try {
        text = header.dump();
    } catch (const Json::exception&) {  // invalid UTF-8 in a name
        return Error{"cannot write '" + path +
                     "': a tensor name or metadata entry is not valid "
                     "UTF-8"};
    }
    // Pad with spaces so that the data buffer starts 8-byte aligned.
    text.append((8 - text.size() % 8) % 8, ' ');

    std::byte length[8];
    writeU64(text.size(), length);

    AtomicFile out;
    if (Status opened = out.open(path); !opened) return opened;
    out.write(length, 8);
    out.write(text);
    for (const Tensor* tensor : sorted) out.write(tensor->data.data(), tensor->data.size());
    return out.commit();
}

}  // namespace qkv
