// Listing a BERT-base-sized checkpoint's layers and loading one (targets: list < 1 s, load one
// layer < 0.5 s for a ~500 MB file), and its first layer's own input: loading the tables and
// the 30522-token vocab.txt, and building X for a sentence.
// The files are written once, into a temporary folder removed at exit: BERT-base names and
// shapes (12 layers, d_model 768, a 30522 x 768 word embedding and its tied decoder copy), F32,
// every value 0.01, and a vocab.txt of 30522 lines.
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
#include "core/checkpoint/model_input_loading.hpp"

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
                                  {"bert.embeddings.LayerNorm.weight", {d}},
                                  {"bert.embeddings.LayerNorm.bias", {d}},
                                  {"bert.pooler.dense.weight", {d, d}},
                                  {"cls.predictions.decoder.weight", {vocab, d}}};
    for (int layer = 0; layer < 12; ++layer) {
        const std::string p = "bert.encoder.layer." + std::to_string(layer) + ".";
        for (const char* stem :
             {"attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"}) {
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

// BERT-base's vocabulary size: the specials, the words of kSentence, then "w5" ... and "##w5" ...
constexpr const char* kSentence =
    "the quick brown fox jumps over the lazy dog while the cat sat on the mat and watched the birds "
    "fly over the river , because attention is all you need and every head reads a different part "
    "of the sentence before the output projection mixes them together .";

void writeVocabulary(const std::string& path)
{
    std::ofstream out(path);
    std::vector<std::string> tokens = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};
    for (const char* word :
         {"the",      "quick",  "brown",  "fox",        "jumps",     "over",      "lazy",     "dog",
          "while",    "cat",    "sat",    "on",         "mat",       "and",       "watched",  "birds",
          "fly",      "river",  ",",      "because",    "attention", "is",        "all",      "you",
          "need",     "every",  "head",   "reads",      "a",         "different", "part",     "of",
          "sentence", "before", "output", "projection", "mixes",     "them",      "together", "."})
        tokens.emplace_back(word);
    for (int i = 0; tokens.size() < 30522; ++i) tokens.push_back((i % 2 ? "##w" : "w") + std::to_string(i));
    for (const std::string& token : tokens) out << token << "\n";
}

struct TemporaryCheckpoint {
    fs::path folder = fs::temp_directory_path() / ("qkv_checkpoint_bench_" + std::to_string(::getpid()));
    std::string file = (folder / "model.safetensors").string();
    std::uintmax_t bytes = 0;
    TemporaryCheckpoint()
    {
        fs::create_directories(folder);
        bytes = writeCheckpoint(file);
        std::ofstream(folder / "config.json")
            << R"({"model_type": "bert", "hidden_size": 768, "num_attention_heads": 12})";
        writeVocabulary((folder / "vocab.txt").string());
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

// The tables (a 30522 x 768 word table, 512 positions, 2 types, the LayerNorm) and the
// tokenizer, as File > Open Checkpoint reads them beside layer 0.
void BM_LoadModelInput(benchmark::State& state)
{
    const std::string& file = checkpointFile().file;
    for (auto _ : state) {
        qkv::Expected<std::shared_ptr<const qkv::ModelInput>> input = qkv::loadModelInput(file, "0");
        if (!input) state.SkipWithError(input.error().c_str());
        benchmark::DoNotOptimize(input);
    }
}
BENCHMARK(BM_LoadModelInput)->Unit(benchmark::kMillisecond);

// What each keystroke costs with the model's own input: WordPiece and X for a 50-token sentence.
void BM_EmbedSentence(benchmark::State& state)
{
    qkv::Expected<std::shared_ptr<const qkv::ModelInput>> input = qkv::loadModelInput(checkpointFile().file, "0");
    if (!input) {
        state.SkipWithError(input.error().c_str());
        return;
    }
    for (auto _ : state) {
        qkv::Expected<qkv::ModelSentence> sentence = (*input)->embed(kSentence);
        if (!sentence) state.SkipWithError(sentence.error().c_str());
        benchmark::DoNotOptimize(sentence);
        state.counters["tokens"] = sentence ? static_cast<double>(sentence->input.rows()) : 0.0;
    }
}
BENCHMARK(BM_EmbedSentence)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
