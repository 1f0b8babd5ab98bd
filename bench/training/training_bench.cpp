// One training step at the reverse task's defaults (issue 17's speed target): d_model 64, h 4,
// one encoder and one decoder layer, d_ff 256, pre-norm LayerNorm, sinusoidal positions, a
// vocabulary of 20 (<pad> <bos> <eos> and 17 symbols), batches of 32 pairs: 4-12 source symbols,
// the decoder reads <bos> and the reversed source (5-13 tokens).
//
//   qkv_training_bench --benchmark_min_time=1
//
// Variants:
//   BM_TrainingStep/factored|full   lossAndGradient + AdamW (clipping, weight decay): one step
//   BM_LossAndGradient/...          the forward and backward pass alone
//   BM_EvaluateLoss/...             the forward pass alone (held-out evaluation)
// One thread, as the engine always runs. bench/training/compare_training_pytorch.py runs
// BM_TrainingStep beside the same model and batches in PyTorch.

#include <cstdint>
#include <vector>

#include <benchmark/benchmark.h>

#include "core/common/memory.hpp"
#include "core/common/random.hpp"
#include "core/trainable/adamw.hpp"
#include "core/trainable/model_forward.hpp"

namespace {

using qkv::SequencePair;

constexpr std::int32_t bos = 1, eos = 2, firstSymbol = 3, vocabulary = 20;

// `count` reverse-task pairs: source x_1..x_n, decoder input <bos> x_n..x_1, output x_n..x_1 <eos>.
std::vector<SequencePair> reverseBatch(qkv::SplitMix64& random, int count)
{
    std::vector<SequencePair> batch(static_cast<std::size_t>(count));
    for (SequencePair& pair : batch) {
        const auto n = static_cast<int>(4 + random.next() % 9);
        for (int i = 0; i < n; ++i)
            pair.source.push_back(firstSymbol + static_cast<std::int32_t>(random.next() % (vocabulary - firstSymbol)));
        pair.targetInput = {bos};
        pair.targetInput.insert(pair.targetInput.end(), pair.source.rbegin(), pair.source.rend());
        pair.targetOutput.assign(pair.source.rbegin(), pair.source.rend());
        pair.targetOutput.push_back(eos);
    }
    return batch;
}

qkv::ModelSpec reverseSpec(qkv::ScoreForm form)
{
    qkv::ModelSpec spec;  // the defaults: d_model 64, h 4, 1 + 1 layers, d_ff 256, pre-norm LayerNorm
    spec.vocabularySize = vocabulary;
    spec.scoreForm = form;
    return spec;
}

struct Fixture {
    qkv::ModelParameters<float> parameters, gradient;
    std::vector<std::vector<SequencePair>> batches;
    qkv::ForwardWorkspace<float> workspace;
    explicit Fixture(qkv::ScoreForm form)
        : parameters(qkv::ModelParameters<float>::initialised(reverseSpec(form), 1)),
          gradient(qkv::ModelParameters<float>::zeros(parameters.spec))
    {
        qkv::keepLargeAllocationsForReuse();
        qkv::SplitMix64 random(5);
        for (int i = 0; i < 64; ++i) batches.push_back(reverseBatch(random, 32));
    }
    const std::vector<SequencePair>& batch(std::size_t step) const { return batches[step % batches.size()]; }
};

void BM_TrainingStep(benchmark::State& state, qkv::ScoreForm form)
{
    Fixture f(form);
    qkv::AdamW<float> optimizer(f.parameters.spec, qkv::AdamWSettings{});
    std::size_t step = 0;
    for (auto _ : state) {
        const qkv::BatchLoss loss = qkv::lossAndGradient(f.parameters, f.batch(step++), f.gradient, f.workspace);
        optimizer.step(f.parameters, f.gradient);
        benchmark::DoNotOptimize(loss.loss);
    }
    state.counters["steps/s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_LossAndGradient(benchmark::State& state, qkv::ScoreForm form)
{
    Fixture f(form);
    std::size_t step = 0;
    for (auto _ : state)
        benchmark::DoNotOptimize(qkv::lossAndGradient(f.parameters, f.batch(step++), f.gradient, f.workspace).loss);
}

void BM_EvaluateLoss(benchmark::State& state, qkv::ScoreForm form)
{
    Fixture f(form);
    std::size_t step = 0;
    for (auto _ : state) benchmark::DoNotOptimize(qkv::evaluateLoss(f.parameters, f.batch(step++), f.workspace).loss);
}

}  // namespace

BENCHMARK_CAPTURE(BM_TrainingStep, factored, qkv::ScoreForm::Factored)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_TrainingStep, full, qkv::ScoreForm::Full)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_LossAndGradient, factored, qkv::ScoreForm::Factored)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_LossAndGradient, full, qkv::ScoreForm::Full)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_EvaluateLoss, factored, qkv::ScoreForm::Factored)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_EvaluateLoss, full, qkv::ScoreForm::Full)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_MAIN();
