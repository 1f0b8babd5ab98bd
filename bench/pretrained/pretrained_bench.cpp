// The whole-model forward pass on checkpoints of real shape (synthetic_checkpoints.hpp), and the
// model view's numbers on top of it: every layer's attention (scores kept, as the app keeps
// them), the logits, then per-head statistics, value-weighted norms and rollout.
//
//   qkv_pretrained_bench --benchmark_min_time=1
//
// The checkpoints are written once under $QKV_BENCH_CHECKPOINTS (default: the temp directory's
// qkv_pretrained_bench/) and reused by later runs; a model is opened only by the benchmarks a
// filter keeps. Threads: computeThreads(), i.e. OMP_NUM_THREADS or every core (the app: one).
// Variants, each with argument bert-base (128 tokens) or gpt2-small (256 tokens), and for
// qwen3-0.6b and llama-3.2-1b (256 tokens each) BM_ForwardAt, BM_Forward and
//   BM_OpenAndRun         openPretrainedModel of the bf16 folder, then BM_ForwardAt's run
//                         (open_s: the opening's share)
//   BM_OpenAndFirstLayer  openPretrainedModel, then the run up to the first attention layer
//   BM_Forward            runPretrainedModel: every layer's attention and hidden states, logits
//   BM_ModelView          the same plus headStatistics of every head of every layer
//   BM_Attention          every layer's attention and hidden states, no readout (LogitRows::None)
//   BM_ForwardAt          with the readout at the position the app reads (LogitRows::Chosen):
//                         BERT's one [MASK] (position 64 is made [MASK]), GPT-2's next token
//                         (the last position); checks afterwards that the rows equal a whole readout's
//   BM_SwitchHeadOff/rerun|full   head 3 of layer 9 switched off, with the view's statistics of
//                         the recomputed layers: rerun passes the unablated run as
//                         RunOptions::previous (layers 9-11 recomputed), full recomputes all 12
//   BM_LongPrompt/gpt2-small-8k[/layer_maps]   8,192 tokens on GPT-2 small's blocks (8,192
//                         positions), streamed: every layer's pooled maps; with layer_maps also
//                         each layer's value-norm pool and the rollout, as export --pool does
//   BM_SwitchHeadOffNorms/rerun|full   the same plus value-weighted norms of the recomputed
//                         layers and the rollout through every layer
// Counters: peak_MiB is the process's peak resident set so far (getrusage; meaningful for a run
// filtered to one case), weights_MiB what the weights alone take, estimate_MiB the whole-model
// estimate (model_memory.hpp) of the run measured, peak_per_estimate their ratio.
// bench/pretrained/compare_pretrained_pytorch.py runs BM_Forward and BM_ModelView beside the same
// forward in PyTorch.

#include <sys/resource.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench/product_context.hpp"
#include "bench/pretrained/synthetic_checkpoints.hpp"
#include "core/analysis/attention_rollout.hpp"
#include "core/analysis/head_statistics.hpp"
#include "core/analysis/streamed_layer_maps.hpp"
#include "core/analysis/value_norms.hpp"
#include "core/common/memory.hpp"
#include "core/common/random.hpp"
#include "core/pipeline/generation.hpp"
#include "core/pipeline/model_overview.hpp"
#include "core/pretrained/model_memory.hpp"
#include "core/pretrained/model_run.hpp"

namespace {

using qkv::Index;
using qkv::bench::SyntheticShape;

constexpr qkv::ModelHead switchedOff{9, 3};

// `shape.tokens` ids drawn uniformly from the vocabulary (BERT: [CLS] ... [SEP] ids at the ends).
qkv::ModelTokens tokens(const SyntheticShape& shape)
{
    qkv::SplitMix64 random(7);
    qkv::ModelTokens t;
    for (Index i = 0; i < shape.tokens; ++i)
        t.ids.push_back(static_cast<std::int32_t>(random.next() % static_cast<std::uint64_t>(shape.vocabulary)));
    if (shape.family == qkv::bench::SyntheticFamily::Bert) t.ids.front() = 101, t.ids.back() = 102;
    return t;
}

// The model view's per-head table for layers first..L-1: every head's statistics.
double headStatisticsFrom(const qkv::ModelRun& run, Index first)
{
    double sink = 0.0;
    for (std::size_t l = static_cast<std::size_t>(first); l < run.layers.size(); ++l) {
        const qkv::AttentionResult& a = run.layers[l]->attention;
        for (Index head = 0; head < a.headCount(); ++head) {
            const qkv::Expected<qkv::HeadStatistics> s = qkv::headStatistics(a, head, true);
            sink += s ? s->summary.entropy : 0.0;
        }
    }
    return sink;
}

// Value-weighted norms of layers first..L-1 and the rollout through every layer.
double normsAndRollout(const qkv::PretrainedModel& m, const qkv::ModelRun& run, Index first)
{
    double sink = 0.0;
    std::vector<const qkv::AttentionResult*> layers;
    for (Index l = 0; l < static_cast<Index>(run.layers.size()); ++l) {
        layers.push_back(&run.layer(l).attention);
        if (l < first) continue;
        const qkv::Expected<qkv::ValueNorms> norms =
            qkv::valueWeightedNorms(run.layer(l).attention, m.sublayer(l).attention);
        sink += norms ? norms->layer(0, 0) : 0.0;
    }
    const qkv::Expected<qkv::MatrixD> rollout = qkv::attentionRollout(layers, static_cast<Index>(layers.size()) - 1);
    return sink + (rollout ? (*rollout)(0, 0) : 0.0);
}

void setCounters(benchmark::State& state, const SyntheticShape& shape, const qkv::PretrainedModel& m,
                 const qkv::ModelTokens& ids, const qkv::RunOptions& options = {})
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const double peak = static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss: KiB on Linux
    const double estimate = static_cast<double>(qkv::estimateModelRunMemory(m, ids, options).peak()) / 1048576.0;
    state.counters["peak_MiB"] = peak;
    state.counters["estimate_MiB"] = estimate;
    state.counters["peak_per_estimate"] = peak / estimate;
    state.counters["weights_MiB"] = static_cast<double>(qkv::bench::weightFloats(shape) * sizeof(float)) / 1048576.0;
    state.counters["tokens"] = static_cast<double>(shape.tokens);
}

// What each variant asks runPretrainedModel for.
enum class Readout { All, None, AppPosition };

constexpr Index kMaskPosition = 64;
constexpr std::int32_t kBertMaskId = 103;

qkv::RunOptions readoutOptions(const SyntheticShape& shape, Readout readout)
{
    qkv::RunOptions options;
    if (readout == Readout::None) options.logitRows = qkv::LogitRows::None;
    if (readout == Readout::AppPosition) {
        options.logitRows = qkv::LogitRows::Chosen;
        options.logitPositions = {shape.family == qkv::bench::SyntheticFamily::Bert ? kMaskPosition : shape.tokens - 1};
    }
    return options;
}

// The chosen rows must be the whole readout's rows, bit for bit, at this size too.
bool chosenRowsMatch(const qkv::PretrainedModel& m, const qkv::ModelTokens& ids, const qkv::RunOptions& options)
{
    const qkv::Expected<qkv::ModelRun> whole = qkv::runPretrainedModel(m, ids);
    const qkv::Expected<qkv::ModelRun> chosen = qkv::runPretrainedModel(m, ids, options);
    if (!whole || !chosen) return false;
    for (std::size_t r = 0; r < options.logitPositions.size(); ++r)
        if (!(chosen->logits.row(static_cast<Index>(r)) == whole->logits.row(options.logitPositions[r]))) return false;
    return true;
}

void runForward(benchmark::State& state, const SyntheticShape& shape, bool statistics, Readout readout)
{
    const qkv::PretrainedModel* m = qkv::bench::syntheticModel(shape);
    if (!m) return state.SkipWithError("could not write or open the synthetic checkpoint");
    qkv::ModelTokens ids = tokens(shape);
    if (shape.family == qkv::bench::SyntheticFamily::Bert) ids.ids[kMaskPosition] = kBertMaskId;
    const qkv::RunOptions options = readoutOptions(shape, readout);
    for (auto _ : state) {
        qkv::Expected<qkv::ModelRun> run = qkv::runPretrainedModel(*m, ids, options);
        if (!run) return state.SkipWithError(run.error().c_str());
        if (statistics) benchmark::DoNotOptimize(headStatisticsFrom(*run, 0));
        benchmark::DoNotOptimize(run->logits.data());
    }
    setCounters(state, shape, *m, ids, options);
    // After the peak is read: the check holds a whole run beside the chosen one.
    if (readout == Readout::AppPosition && !chosenRowsMatch(*m, ids, options))
        state.SkipWithError("the chosen logits differ from the whole readout's rows");
}

void BM_Forward(benchmark::State& state, const SyntheticShape& shape) { runForward(state, shape, false, Readout::All); }
void BM_ModelView(benchmark::State& state, const SyntheticShape& shape)
{
    runForward(state, shape, true, Readout::All);
}
void BM_Attention(benchmark::State& state, const SyntheticShape& shape)
{
    runForward(state, shape, false, Readout::None);
}
void BM_ForwardAt(benchmark::State& state, const SyntheticShape& shape)
{
    runForward(state, shape, false, Readout::AppPosition);
}

// openPretrainedModel of the shape's folder, then one run with `options`, every iteration (the
// system's page cache keeps the file); open_s is the opening's share, the memory counters are
// the last iteration's.
void runOpenThen(benchmark::State& state, const SyntheticShape& shape, const qkv::RunOptions& options)
{
    const qkv::Expected<std::string> folder = qkv::bench::syntheticCheckpoint(shape, qkv::bench::checkpointRoot());
    if (!folder) return state.SkipWithError(folder.error().c_str());
    const qkv::ModelTokens ids = tokens(shape);
    double openSeconds = 0;
    for (auto _ : state) {
        const auto start = std::chrono::steady_clock::now();
        qkv::Expected<qkv::PretrainedModel> opened = qkv::openPretrainedModel(*folder, {}, qkv::WeightResidency::Whole);
        openSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (!opened) return state.SkipWithError(opened.error().c_str());
        qkv::Expected<qkv::ModelRun> run = qkv::runPretrainedModel(*opened, ids, options);
        if (!run) return state.SkipWithError(run.error().c_str());
        benchmark::DoNotOptimize(run->layers.back()->attention.output.data());
        if (state.iterations() + 1 == state.max_iterations) setCounters(state, shape, *opened, ids, options);
    }
    state.counters["open_s"] = openSeconds / static_cast<double>(state.iterations());
}

// What a user waits for after File > Open: the checkpoint read and converted, then the whole
// model run on the prompt with the prediction at its last position (the app shows layer 1 from
// that run).
void BM_OpenAndRun(benchmark::State& state, const SyntheticShape& shape)
{
    runOpenThen(state, shape, readoutOptions(shape, Readout::AppPosition));
}

// What showing the first layer takes from nothing: open, then run the model up to its first
// attention layer (RunOptions::lastLayer = 0, no readout), as a layer view reads it.
void BM_OpenAndFirstLayer(benchmark::State& state, const SyntheticShape& shape)
{
    qkv::RunOptions options;
    options.lastLayer = 0;
    options.logitRows = qkv::LogitRows::None;
    runOpenThen(state, shape, options);
}

void runSwitchHeadOff(benchmark::State& state, const SyntheticShape& shape, bool rerun, bool norms)
{
    const qkv::PretrainedModel* m = qkv::bench::syntheticModel(shape);
    if (!m) return state.SkipWithError("could not write or open the synthetic checkpoint");
    const qkv::ModelTokens ids = tokens(shape);
    qkv::Expected<qkv::ModelRun> base = qkv::runPretrainedModel(*m, ids);
    if (!base) return state.SkipWithError(base.error().c_str());
    qkv::RunOptions options;
    options.ablatedHeads = {switchedOff};
    if (rerun) options.previous = std::make_shared<const qkv::ModelRun>(std::move(*base));
    for (auto _ : state) {
        qkv::Expected<qkv::ModelRun> run = qkv::runPretrainedModel(*m, ids, options);
        if (!run) return state.SkipWithError(run.error().c_str());
        if (run->firstRecomputedLayer != (rerun ? switchedOff.layer : 0))
            return state.SkipWithError("the run recomputed other layers than expected");
        benchmark::DoNotOptimize(headStatisticsFrom(*run, run->firstRecomputedLayer));
        if (norms) benchmark::DoNotOptimize(normsAndRollout(*m, *run, run->firstRecomputedLayer));
    }
    setCounters(state, shape, *m, ids, options);
}

// A long prompt on the whole model, streamed (RunOptions::pooledBlocks): every layer's pooled
// maps (means and maxima of the weights and of the value norms), row statistics and outputs, and
// the next token's logits; then, in `withLayerMaps`, every layer's value-norm pool and the
// rollout (streamed_layer_maps.hpp, foldRolloutLayer), as `export --layer all --pool 512` does.
void BM_LongPrompt(benchmark::State& state, const SyntheticShape& shape, bool withLayerMaps)
{
    const qkv::PretrainedModel* m = qkv::bench::syntheticModel(shape);
    if (!m) return state.SkipWithError("the checkpoint could not be written or opened");
    const qkv::ModelTokens ids = tokens(shape);
    qkv::RunOptions options;
    options.pooledBlocks = 512;
    options.pooledValueNorms = true;
    options.logitRows = qkv::LogitRows::Chosen;
    options.logitPositions = {shape.tokens - 1};
    for (auto _ : state) {
        qkv::Expected<qkv::ModelRun> run = qkv::runPretrainedModel(*m, ids, options);
        if (!run) return state.SkipWithError(run.error().c_str());
        if (!withLayerMaps) continue;
        qkv::MatrixD rollout;
        for (Index l = 0; l < static_cast<Index>(run->layers.size()); ++l) {
            const qkv::LayerRun& layer = run->layer(l);
            const qkv::PooledAttention& pooled = layer.streamedHeads.front().pooled;
            qkv::StreamedLayerMapsRequest request;
            request.rowEdges = &pooled.rowEdges;
            request.columnEdges = &pooled.columnEdges;
            request.headMean = true;
            qkv::Expected<qkv::StreamedLayerMaps> maps =
                qkv::streamedLayerMaps(layer.attention, layer.streamedHeads, m->sublayer(l).attention, request);
            if (!maps) return state.SkipWithError(maps.error().c_str());
            if (qkv::Status folded = qkv::foldRolloutLayer(rollout, std::move(maps->headMean), true); !folded)
                return state.SkipWithError(folded.error().c_str());
        }
        benchmark::DoNotOptimize(rollout.data());
    }
    setCounters(state, shape, *m, ids, options);
}

// GPT-2 small's checkpoint on a prompt of 1,024 tokens (its every position).
constexpr SyntheticShape gpt2Prompt1k{"gpt2-small", qkv::bench::SyntheticFamily::Gpt2, 12, 768, 12, 3072, 50257, 1024,
                                      1024};

// The sentence of `ids` as the model's tokenizer would give it (the synthetic checkpoints have
// no tokenizer files): a piece per id.
qkv::ModelSentences sentencesOf(const qkv::ModelTokens& ids)
{
    qkv::ModelSentences sentences;
    sentences.tokens = ids;
    for (const std::int32_t id : ids.ids) {
        qkv::SubwordToken token;
        token.id = id;
        token.piece = token.display = "t" + std::to_string(id);
        sentences.sequence.tokens.push_back(token);
    }
    return sentences;
}

// Typing at the end of the prompt: `added` more tokens after the first tokens - added, as the
// app's Model and Predict tabs compute it (computeModelOverview: every layer's maps without
// scores, the statistics grids of every head, the top 5 at every position). typed: the overview
// of the shorter prompt is the request's previous, so only the new positions are computed; else
// the whole prompt is.
void BM_TypeOn(benchmark::State& state, const SyntheticShape& shape, Index added, bool typed)
{
    const qkv::PretrainedModel* m = qkv::bench::syntheticModel(shape);
    if (!m) return state.SkipWithError("could not write or open the synthetic checkpoint");
    const std::shared_ptr<const qkv::PretrainedModel> shared(m, [](const qkv::PretrainedModel*) {});
    const qkv::ModelTokens ids = tokens(shape);
    qkv::ModelTokens before = ids;
    before.ids.resize(ids.ids.size() - static_cast<std::size_t>(added));
    qkv::ModelOverviewRequest request;
    if (typed) {
        qkv::Expected<qkv::ModelOverview> earlier = qkv::computeModelOverview(shared, sentencesOf(before), request);
        if (!earlier) return state.SkipWithError(earlier.error().c_str());
        request.previous = std::make_shared<const qkv::ModelOverview>(std::move(*earlier));
    }
    for (auto _ : state) {
        qkv::Expected<qkv::ModelOverview> overview = qkv::computeModelOverview(shared, sentencesOf(ids), request);
        if (!overview) return state.SkipWithError(overview.error().c_str());
        if (overview->run->firstRecomputedPosition != (typed ? static_cast<Index>(before.ids.size()) : 0))
            return state.SkipWithError("the run took other positions from the previous one than expected");
        benchmark::DoNotOptimize(overview->statistics.entropy.data());
    }
    state.counters["tokens"] = static_cast<double>(ids.ids.size());
}

// Generation after a prompt of shape.tokens: the time per generated token (each a run of every
// layer that computes the new position only), greedy.
void BM_Generate(benchmark::State& state, const SyntheticShape& shape)
{
    const qkv::PretrainedModel* m = qkv::bench::syntheticModel(shape);
    if (!m) return state.SkipWithError("could not write or open the synthetic checkpoint");
    const qkv::ModelTokens ids = tokens(shape);
    qkv::GenerationOptions options;
    options.newTokens = 16;
    // The prompt's own run first, as the app has it when Generate is pressed.
    qkv::RunOptions prompt = readoutOptions(shape, Readout::AppPosition);
    qkv::Expected<qkv::ModelRun> first = qkv::runPretrainedModel(*m, ids, prompt);
    if (!first) return state.SkipWithError(first.error().c_str());
    options.run.previous = std::make_shared<const qkv::ModelRun>(std::move(*first));
    double seconds = 0.0;
    for (auto _ : state) {
        const auto start = std::chrono::steady_clock::now();
        qkv::Expected<qkv::Generation> generation = qkv::generateTokens(*m, ids.ids, options);
        seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (!generation) return state.SkipWithError(generation.error().c_str());
        benchmark::DoNotOptimize(generation->ids.data());
    }
    state.counters["ms_per_token"] = 1000.0 * seconds / static_cast<double>(state.iterations() * options.newTokens);
}

void registerAll()
{
    std::vector<benchmark::internal::Benchmark*> all;
    for (const SyntheticShape* shape : {&qkv::bench::bertBase, &qkv::bench::gpt2Small}) {
        const std::string name = shape->name;
        all.push_back(benchmark::RegisterBenchmark(("BM_Forward/" + name).c_str(), BM_Forward, *shape));
        all.push_back(benchmark::RegisterBenchmark(("BM_ModelView/" + name).c_str(), BM_ModelView, *shape));
        all.push_back(benchmark::RegisterBenchmark(("BM_Attention/" + name).c_str(), BM_Attention, *shape));
        all.push_back(benchmark::RegisterBenchmark(("BM_ForwardAt/" + name).c_str(), BM_ForwardAt, *shape));
        for (const bool norms : {false, true})
            for (const bool rerun : {true, false})
                all.push_back(benchmark::RegisterBenchmark(
                    ((norms ? "BM_SwitchHeadOffNorms/" : "BM_SwitchHeadOff/") + name + (rerun ? "/rerun" : "/full"))
                        .c_str(),
                    runSwitchHeadOff, *shape, rerun, norms));
    }
    // 2026's small models at their real sizes (bf16 files of 1.2 and 2.5 GB, written on first use).
    for (const SyntheticShape* shape : {&qkv::bench::qwen3Small, &qkv::bench::llama32Small}) {
        const std::string name = shape->name;
        all.push_back(benchmark::RegisterBenchmark(("BM_ForwardAt/" + name).c_str(), BM_ForwardAt, *shape));
        all.push_back(benchmark::RegisterBenchmark(("BM_Forward/" + name).c_str(), BM_Forward, *shape));
        all.push_back(
            benchmark::RegisterBenchmark(("BM_OpenAndRun/" + name).c_str(), BM_OpenAndRun, *shape)->Iterations(2));
        all.push_back(
            benchmark::RegisterBenchmark(("BM_OpenAndFirstLayer/" + name).c_str(), BM_OpenAndFirstLayer, *shape)
                ->Iterations(3));
    }
    for (const Index added : {1, 3})
        for (const bool typed : {true, false})
            all.push_back(benchmark::RegisterBenchmark(
                ("BM_TypeOn/gpt2-small-1024/" + std::to_string(added) + (typed ? "/typed" : "/full")).c_str(),
                BM_TypeOn, gpt2Prompt1k, added, typed));
    all.push_back(benchmark::RegisterBenchmark("BM_Generate/gpt2-small-256", BM_Generate, qkv::bench::gpt2Small));
    all.push_back(
        benchmark::RegisterBenchmark("BM_LongPrompt/gpt2-small-8k", BM_LongPrompt, qkv::bench::gpt2Long, false)
            ->Iterations(1));
    all.push_back(benchmark::RegisterBenchmark("BM_LongPrompt/gpt2-small-8k/layer_maps", BM_LongPrompt,
                                               qkv::bench::gpt2Long, true)
                      ->Iterations(1));
    for (benchmark::internal::Benchmark* b : all) b->Unit(benchmark::kMillisecond)->UseRealTime();
}

}  // namespace

int main(int argc, char** argv)
{
    qkv::keepLargeAllocationsForReuse();
    registerAll();
    qkv::bench::addProductContext();
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
