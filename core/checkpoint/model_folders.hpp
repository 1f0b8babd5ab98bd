#pragma once
// Where people keep models, resolved to the file a checkpoint is read from:
//   - a Hugging Face model folder (config.json, model.safetensors or its shard index, tokenizer files);
//   - a snapshot of the Hugging Face cache, `.../hub/models--Org--Name/snapshots/<commit>/`, whose
//     files are symbolic links into `../../blobs/` (read through the links; the folder stays the
//     snapshot, so the files beside the checkpoint are the snapshot's);
//   - the cache's `models--Org--Name` folder: the snapshot its `refs/main` names, else its only one.
// Python pickles (pytorch_model.bin, *.pt) are refused with how to convert them, never read:
// unpickling runs code from the file.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/common/expected.hpp"
#include "core/common/matrix.hpp"

namespace qkv {

// The file openCheckpoint reads for `path`: a .safetensors file or shard index as given, or the
// one a folder (model folder, cache snapshot, `models--` folder) holds.
Expected<std::string> checkpointFileOf(const std::string& path);

// The snapshot folder of a cache's `models--Org--Name` folder (see above).
Expected<std::string> cachedModelSnapshot(const std::string& repositoryFolder);

// "Org/Name" for a `models--Org--Name` folder, else empty.
std::string cachedModelName(const std::string& repositoryFolder);
// "Org/Name" for a snapshot folder of the cache (`models--Org--Name/snapshots/<commit>`), whose own
// name is a commit hash; else empty.
std::string cachedSnapshotModelName(const std::string& snapshotFolder);

// The Hugging Face cache this machine uses, as huggingface_hub finds it: $HF_HUB_CACHE, else
// $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else $HOME/.cache/huggingface/hub; empty
// when none can be named. `environment` reads a variable (null when unset).
std::string huggingFaceCacheFolder(const std::function<const char*(const char*)>& environment);

// One model of the cache, as a list of models shows it.
struct CachedModel {
    std::string name;        // "Qwen/Qwen3-0.6B"
    std::string folder;      // the snapshot folder (what opens it), or the models-- folder when none
    std::string family;      // config.json's model_type ("qwen3"), or empty
    Index attentionLayers = 0;
    std::uint64_t bytes = 0;  // the snapshot's files, through their links
    bool readable = false;
    std::string whyNot;       // when not readable: openCheckpoint's message
    // Readable, but no tokenizer files the app reads beside it (vocab.txt, vocab.json and
    // merges.txt, a SentencePiece model): its layers open, the model's own input does not.
    bool withoutTokenizer = false;
};

// Every `models--*` folder of the cache, by name; the model's checkpoint headers are read (not
// its weights), so a model that cannot be opened says why. At most `limit` models.
std::vector<CachedModel> listCachedModels(const std::string& cacheFolder, std::size_t limit = 500);

}  // namespace qkv
