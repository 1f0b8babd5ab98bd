// Listing a BERT-base-sized checkpoint's layers and loading one (issue 11 section 3 targets:
// list < 1 s, load one layer < 0.5 s for a ~500 MB file). The file is written once, into a
// temporary folder removed at exit: BERT-base names and shapes (12 layers, d_model 768, a
// 30522 x 768 word embedding and its tied decoder copy), F32, every value 0.01.
//
//   build/bench/checkpoint/qkv_checkpoint_benchmark

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>
#include <unistd.h>

#include "core/checkpoint/checkpoint.hpp"

namespace {

namespace fs = std::filesystem;

struct Entry {
    std::string name;
    std::vector<std::size_t> shape;
};

std::vector<Entry> bertBaseTensors()
{
    const std::size_t d = 768, ff = 3072, vocab = 30522;
    std::vector<Entry> entries = {{"bert.embeddings.word_embeddings.weight", {vocab, d}},
                                  {"bert.embeddings.position_embeddings.weight", {512, d}},
                                  {"bert.embeddings.token_type_embeddings.weight", {2, d}},
                                  {"bert.pooler.dense.weight", {d, d}},
                                  {"cls.predictions.decoder.weight", {vocab, d}}};
    for (int layer = 0; layer < 12; ++layer) {
        const std::string p = "bert.encoder.layer." + std::to_string(layer) + ".";
        for (const char* stem : {"attention.self.query", "attention.self.key", "attention.self.value",
                                 "attention.output.dense"}) {
            entries.push_back({p + stem + ".weight", {d, d}});
            entries.push_back({p + stem + ".bias", {d}});
        }
        entries.push_back({p + "intermediate.dense.weight", {ff, d}});
        entries.push_back({p + "intermediate.dense.bias", {ff}});
        entries.push_back({p + "output.dense.weight", {d, ff}});
        entries.push_back({p + "output.dense.bias", {d}});
    }
    return entries;
}

// A safetensors file streamed in 1 MiB blocks (it never sits in memory whole).
std::uintmax_t writeCheckpoint(const std::string& path)
{
    const std::vector<Entry> entries = bertBaseTensors();
    std::string header = "{";
    std::size_t offset = 0;
    for (const Entry& e : entries) {
        std::size_t bytes = 4;
        std::string shape;
        for (std::size_t dim : e.shape) {
            bytes *= dim;
            shape += (shape.empty() ? "" : ",") + std::to_string(dim);
        }
        header += (header.size() > 1 ? "," : "") + std::string("\"") + e.name + "\":{\"dtype\":\"F32\",\"shape\":[" +
                  shape + "],\"data_offsets\":[" + std::to_string(offset) + "," + std::to_string(offset + bytes) + "]}";
        offset += bytes;
    }
    header += "}";
    header.append((8 - header.size() % 8) % 8, ' ');
    std::ofstream out(path, std::ios::binary);
    const std::uint64_t length = header.size();
    out.write(reinterpret_cast<const char*>(&length), 8);
    out << header;
    const std::vector<float> block(1 << 18, 0.01f);
    for (std::size_t left = offset; left > 0;) {
        const std::size_t n = std::min(left, block.size() * 4);
        out.write(reinterpret_cast<const char*>(block.data()), static_cast<std::streamsize>(n));
        left -= n;
    }
    out.close();
    return fs::file_size(path);
}

struct TemporaryCheckpoint {
    fs::path folder = fs::temp_directory_path() / ("qkv_checkpoint_bench_" + std::to_string(::getpid()));
    std::string file = (folder / "model.safetensors").string();
    std::uintmax_t bytes = 0;
    TemporaryCheckpoint()
    {
        fs::create_directories(folder);
        bytes = writeCheckpoint(file);
        std::ofstream(folder / "config.json") << R"({"model_type": "bert", "hidden_size": 768, "num_attention_heads": 12})";
    }
    ~TemporaryCheckpoint() { fs::remove_all(folder); }
};

TemporaryCheckpoint& checkpointFile()
{
    static TemporaryCheckpoint checkpoint;
    return checkpoint;
}

void BM_ListLayers(benchmark::State& state)
{
    const std::string& file = checkpointFile().file;
    for (auto _ : state) {
        qkv::Expected<qkv::Checkpoint> opened = qkv::openCheckpoint(file);
        if (!opened || opened->layers.size() != 12) state.SkipWithError("listing failed");
        benchmark::DoNotOptimize(opened);
    }
    state.counters["file_MB"] = static_cast<double>(checkpointFile().bytes) / 1e6;
}
BENCHMARK(BM_ListLayers)->Unit(benchmark::kMillisecond);

void BM_LoadOneLayer(benchmark::State& state)
{
    const std::string& file = checkpointFile().file;
    for (auto _ : state) {
        qkv::Expected<qkv::CheckpointLayerWeights> loaded = qkv::loadCheckpointLayer(file, "6");
        if (!loaded) state.SkipWithError("loading failed");
        benchmark::DoNotOptimize(loaded);
    }
}
BENCHMARK(BM_LoadOneLayer)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
