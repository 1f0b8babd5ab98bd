// Models where people keep them (core/checkpoint/model_folders.hpp): the Hugging Face cache's
// layout (models--Org--Name/{blobs,refs/main,snapshots/<commit>/} with the snapshot's files as
// symbolic links into blobs/), and pickles refused with how to convert them, never read.
#include <filesystem>
#include <fstream>
#include <map>

#include <gtest/gtest.h>

#include "core/checkpoint/checkpoint.hpp"
#include "core/checkpoint/model_folders.hpp"
#include "core/checkpoint/model_input_loading.hpp"
#include "support/test_paths.hpp"
#include "support/test_folder.hpp"

namespace qkv {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kBertFiles = {"config.json", "model.safetensors", "tokenizer_config.json", "vocab.txt"};

class CacheTest : public ::testing::Test {
protected:
    // models--Org--Name as huggingface_hub writes it: each file once in blobs/ (named by a hash),
    // the snapshot's files relative links to them, refs/main naming the snapshot when `withRef`.
    fs::path addModel(const std::string& repository, const std::string& commit, bool withRef = true)
    {
        const fs::path folder = hub_ / repository;
        const fs::path snapshot = folder / "snapshots" / commit;
        fs::create_directories(folder / "blobs");
        fs::create_directories(snapshot);
        const fs::path source = fs::path(testDataDir()) / "checkpoint" / "bert_input";
        int blob = 0;
        for (const std::string& name : kBertFiles) {
            const std::string hash = commit + "blob" + std::to_string(blob++);
            fs::copy_file(source / name, folder / "blobs" / hash, fs::copy_options::overwrite_existing);
            fs::create_symlink(fs::path("..") / ".." / "blobs" / hash, snapshot / name);
        }
        if (withRef) {
            fs::create_directories(folder / "refs");
            std::ofstream(folder / "refs" / "main") << commit;  // no newline, as the hub writes it
        }
        return folder;
    }
    TestFolder scratch_{"hub"};
    fs::path hub_ = scratch_.path();
};

TEST_F(CacheTest, AModelOpensByItsRepositoryFolderOrItsSnapshotThroughTheLinks)
{
    const fs::path repository = addModel("models--tiny--bert-input", "0123abcd");
    const fs::path snapshot = repository / "snapshots" / "0123abcd";
    EXPECT_EQ(cachedModelName(repository.string()), "tiny/bert-input");
    // A snapshot folder is named by its commit: the model is named by the repository above it.
    EXPECT_EQ(cachedSnapshotModelName(snapshot.string()), "tiny/bert-input");
    EXPECT_EQ(cachedSnapshotModelName(snapshot.string() + "/"), "tiny/bert-input");
    EXPECT_EQ(cachedSnapshotModelName(repository.string()), "");
    EXPECT_EQ(cachedSnapshotModelName((hub_ / "elsewhere" / "snapshots" / "0123abcd").string()), "");

    Expected<Checkpoint> byRepository = openCheckpoint(repository.string());
    ASSERT_TRUE(byRepository.ok()) << byRepository.error();
    // The file is the snapshot's (the link), so config.json and the tokenizer are the snapshot's too.
    EXPECT_EQ(byRepository->path, (snapshot / "model.safetensors").string());
    EXPECT_EQ(byRepository->configPath, (snapshot / "config.json").string());
    ASSERT_FALSE(byRepository->layers.empty());

    Expected<Checkpoint> bySnapshot = openCheckpoint(snapshot.string());
    ASSERT_TRUE(bySnapshot.ok()) << bySnapshot.error();
    EXPECT_EQ(bySnapshot->layers.size(), byRepository->layers.size());

    // The layer and the model's own input load through the links, with the same numbers as the
    // fixture's own folder.
    const std::string original = std::string(testDataDir()) + "/checkpoint/bert_input/model.safetensors";
    Expected<CheckpointLayerWeights> cached = loadCheckpointLayer(repository.string(), "0");
    Expected<CheckpointLayerWeights> direct = loadCheckpointLayer(original, "0");
    ASSERT_TRUE(cached.ok()) << cached.error();
    ASSERT_TRUE(direct.ok()) << direct.error();
    EXPECT_EQ(cached->weights.queryProjection, direct->weights.queryProjection);
    Expected<std::shared_ptr<const ModelInput>> input = loadModelInput(repository.string(), "0", {});
    ASSERT_TRUE(input.ok()) << input.error();
}

TEST_F(CacheTest, RefsMainChoosesAmongSnapshotsAndASingleSnapshotNeedsNone)
{
    const fs::path repository = addModel("models--tiny--two", "older");
    addModel("models--tiny--two", "newer");  // refs/main now says "newer"
    Expected<std::string> chosen = cachedModelSnapshot(repository.string());
    ASSERT_TRUE(chosen.ok()) << chosen.error();
    EXPECT_EQ(fs::path(*chosen).filename(), "newer");

    fs::remove(repository / "refs" / "main");
    Expected<std::string> ambiguous = cachedModelSnapshot(repository.string());
    ASSERT_FALSE(ambiguous.ok());
    EXPECT_NE(ambiguous.error().find("2 snapshots ('newer', 'older')"), std::string::npos) << ambiguous.error();

    const fs::path single = addModel("models--tiny--one", "only", /*withRef=*/false);
    Expected<std::string> only = cachedModelSnapshot(single.string());
    ASSERT_TRUE(only.ok()) << only.error();
    EXPECT_EQ(fs::path(*only).filename(), "only");
}

TEST_F(CacheTest, ABrokenOrHostileRefIsAMessage)
{
    const fs::path repository = addModel("models--tiny--broken", "abc");
    std::ofstream(repository / "refs" / "main") << "deadbeef\n";
    Expected<Checkpoint> missing = openCheckpoint(repository.string());
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().find("refs/main names snapshot 'deadbeef', which is not in snapshots/"), std::string::npos)
        << missing.error();

    std::ofstream(repository / "refs" / "main") << "../../../etc";
    Expected<Checkpoint> escaping = openCheckpoint(repository.string());
    ASSERT_FALSE(escaping.ok());
    EXPECT_NE(escaping.error().find("not a snapshot's name"), std::string::npos) << escaping.error();

    // A link whose blob is gone (a pruned cache): the reader names the file.
    const fs::path snapshot = repository / "snapshots" / "abc";
    std::ofstream(repository / "refs" / "main") << "abc";
    fs::remove_all(repository / "blobs");
    Expected<Checkpoint> pruned = openCheckpoint(repository.string());
    ASSERT_FALSE(pruned.ok());
    EXPECT_NE(pruned.error().find((snapshot / "model.safetensors").string()), std::string::npos) << pruned.error();
}

TEST_F(CacheTest, PicklesAreRefusedWithHowToConvertThemNeverRead)
{
    const fs::path folder = hub_ / "old-model";
    fs::create_directories(folder);
    fs::copy_file(fs::path(testDataDir()) / "checkpoint" / "bert_input" / "config.json", folder / "config.json");
    // Not even a real pickle: it is refused by what it is, before any byte is read.
    std::ofstream(folder / "pytorch_model.bin") << "\x80\x02 not read";
    for (const fs::path& path : {folder, folder / "pytorch_model.bin"}) {
        Expected<Checkpoint> refused = openCheckpoint(path.string());
        ASSERT_FALSE(refused.ok()) << path;
        EXPECT_NE(refused.error().find("never loads pickles"), std::string::npos) << refused.error();
        EXPECT_NE(refused.error().find("save_pretrained(new_folder, safe_serialization=True)"), std::string::npos)
            << refused.error();
    }
}

TEST_F(CacheTest, TheCacheItselfSaysWhichModelsItHolds)
{
    addModel("models--tiny--a", "c1");
    addModel("models--tiny--b", "c2");
    Expected<Checkpoint> refused = openCheckpoint(hub_.string());
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().find("a Hugging Face cache of 2 models"), std::string::npos) << refused.error();
    EXPECT_NE(refused.error().find("'models--tiny--a', 'models--tiny--b'"), std::string::npos) << refused.error();
}

TEST_F(CacheTest, TheListNamesEachModelWithItsFamilyLayersSizeAndWhyNot)
{
    addModel("models--tiny--bert-input", "c1");
    const fs::path pickled = hub_ / "models--old--pickled" / "snapshots" / "c9";
    fs::create_directories(pickled);
    std::ofstream(pickled / "pytorch_model.bin") << "pickle";
    fs::create_directories(hub_ / "datasets--some--data");  // not a model

    const std::vector<CachedModel> models = listCachedModels(hub_.string());
    ASSERT_EQ(models.size(), 2u);
    const CachedModel& pickle = models[0];  // "models--old--pickled" sorts first
    EXPECT_EQ(pickle.name, "old/pickled");
    EXPECT_FALSE(pickle.readable);
    EXPECT_NE(pickle.whyNot.find("never loads pickles"), std::string::npos) << pickle.whyNot;

    const CachedModel& bert = models[1];
    EXPECT_EQ(bert.name, "tiny/bert-input");
    EXPECT_TRUE(bert.readable) << bert.whyNot;
    EXPECT_EQ(bert.folder, (hub_ / "models--tiny--bert-input" / "snapshots" / "c1").string());
    Expected<Checkpoint> checkpoint = openCheckpoint(bert.folder);
    ASSERT_TRUE(checkpoint.ok()) << checkpoint.error();
    EXPECT_EQ(bert.attentionLayers, static_cast<Index>(checkpoint->layers.size()));
    std::uintmax_t bytes = 0;
    for (const std::string& name : kBertFiles)
        bytes += fs::file_size(fs::path(testDataDir()) / "checkpoint" / "bert_input" / name);
    EXPECT_EQ(bert.bytes, bytes);  // the blobs' sizes, through the links
    EXPECT_EQ(bert.family, "bert");
    EXPECT_FALSE(bert.withoutTokenizer);

    // Without its vocabulary the layers still open; the model's own input would not.
    fs::remove(hub_ / "models--tiny--bert-input" / "snapshots" / "c1" / "vocab.txt");
    const std::vector<CachedModel> again = listCachedModels(hub_.string());
    ASSERT_EQ(again.size(), 2u);
    EXPECT_TRUE(again[1].readable) << again[1].whyNot;
    EXPECT_TRUE(again[1].withoutTokenizer);
}

TEST(HuggingFaceCache, IsFoundAsHuggingFaceHubFindsIt)
{
    const auto from = [](std::map<std::string, std::string> variables) {
        return huggingFaceCacheFolder([variables](const char* name) -> const char* {
            const auto it = variables.find(name);
            return it == variables.end() ? nullptr : it->second.c_str();
        });
    };
    EXPECT_EQ(from({{"HF_HUB_CACHE", "/a/hub"}, {"HF_HOME", "/b"}, {"HOME", "/h"}}), "/a/hub");
    EXPECT_EQ(from({{"HF_HOME", "/b"}, {"XDG_CACHE_HOME", "/x"}, {"HOME", "/h"}}), "/b/hub");
    EXPECT_EQ(from({{"XDG_CACHE_HOME", "/x"}, {"HOME", "/h"}}), "/x/huggingface/hub");
    EXPECT_EQ(from({{"HOME", "/h"}}), "/h/.cache/huggingface/hub");
    EXPECT_EQ(from({}), "");
}

}  // namespace
}  // namespace qkv
