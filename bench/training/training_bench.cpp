// One training step (forward, loss, backward, clipping, AdamW) at the reverse task's defaults,
// on the fixed batch bench/compare_training_pytorch.py gives PyTorch: 32 pairs, pair i with a
// source of 4 + (i mod 9) symbols and a decoder of one more. Single-threaded, as training runs.
//
//   build/bench/training/qkv_training_bench [--benchmark_filter=BM_TrainingStep]

#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "core/model/adamw.hpp"
#include "core/model/model_forward.hpp"
#include "core/model/model_parameters.hpp"

namespace {

constexpr std::int32_t kSymbols = 16, kBos = 1, kEos = 2;

std::vector<qkv::SequencePair> fixedBatch()
{
    std::vector<qkv::SequencePair> batch;
    for (int i = 0; i < 32; ++i) {
        const int n = 4 + i % 9;
        qkv::SequencePair pair;
        for (int t = 0; t < n; ++t) pair.source.push_back(3 + (7 * i + 3 * t) % kSymbols);
        pair.targetInput.push_back(kBos);
        for (int t = n - 1; t >= 0; --t) {
            pair.targetInput.push_back(pair.source[static_cast<std::size_t>(t)]);
            pair.targetOutput.push_back(pair.source[static_cast<std::size_t>(t)]);
        }
        pair.targetOutput.push_back(kEos);
        batch.push_back(std::move(pair));
    }
    return batch;
}

qkv::ModelSpec reverseSpec(qkv::ScoreForm form)
{
    qkv::ModelSpec spec;
    spec.vocabularySize = kSymbols + 3;
    spec.maxPositions = 16;
    spec.scoreForm = form;  // the rest: d_model 64, h 4, 1 + 1 layers, d_ff 256, pre-norm
    return spec;
}

void trainingStep(benchmark::State& state, qkv::ScoreForm form)
{
    const qkv::ModelSpec spec = reverseSpec(form);
    auto parameters = qkv::ModelParameters<float>::initialised(spec, 1);
    auto gradient = qkv::ModelParameters<float>::zeros(spec);
    qkv::AdamW<float> optimizer(spec, qkv::AdamWSettings{});
    const std::vector<qkv::SequencePair> batch = fixedBatch();
    for (auto _ : state) {
        const qkv::BatchLoss loss = qkv::lossAndGradient(parameters, batch, gradient);
        optimizer.step(parameters, gradient);
        benchmark::DoNotOptimize(loss.loss);
    }
    std::size_t labels = 0;
    for (const qkv::SequencePair& pair : batch) labels += pair.targetOutput.size();
    state.counters["labels/s"] = benchmark::Counter(static_cast<double>(labels) * static_cast<double>(state.iterations()),
                                                    benchmark::Counter::kIsRate);
}

void BM_TrainingStep_Factored(benchmark::State& state) { trainingStep(state, qkv::ScoreForm::Factored); }
void BM_TrainingStep_Full(benchmark::State& state) { trainingStep(state, qkv::ScoreForm::Full); }

}  // namespace

BENCHMARK(BM_TrainingStep_Factored)->Name("BM_TrainingStep/factored")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TrainingStep_Full)->Name("BM_TrainingStep/full")->UseRealTime()->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
