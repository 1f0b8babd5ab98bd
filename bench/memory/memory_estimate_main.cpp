// Prints estimateMemory(...) for a self-attention export of N tokens: the number the export's
// limit is checked against, term by term, for measure_export_peak.sh to set beside the peak RSS.
//   qkv_memory_estimate N D_MODEL HEADS json|npy
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/config/config.hpp"
#include "core/config/memory_estimate.hpp"
#include "core/export/result_export.hpp"

int main(int argc, char** argv)
{
    if (argc != 5) {
        std::fprintf(stderr, "usage: qkv_memory_estimate N D_MODEL HEADS json|npy\n");
        return 2;
    }
    const qkv::Index n = std::atoll(argv[1]);
    qkv::Config config;
    config.mode = qkv::AttentionMode::EncoderSelf;
    config.d_model = std::atoll(argv[2]);
    config.headCount = std::atoll(argv[3]);
    qkv::ExportFormat format = qkv::ExportFormat::Json;
    if (!qkv::parseExportFormat(argv[4], format)) {
        std::fprintf(stderr, "format: json or npy\n");
        return 2;
    }
    const qkv::MemoryEstimate e = qkv::estimateMemory(config, n, n, {}, qkv::exportAnalysisPlan(format, config));
    const auto mib = [](std::size_t bytes) { return static_cast<double>(bytes) / (1 << 20); };
    std::printf("peak %.1f MiB = program %.1f + inputs %.1f + weights %.1f + projections %.1f + maps %.1f + "
                "outputs %.1f + max(compute scratch %.1f, analysis %.1f)\n",
                mib(e.peak()), mib(e.program), mib(e.inputs), mib(e.weights), mib(e.projections), mib(e.maps),
                mib(e.outputs), mib(e.computeScratch), mib(e.analysis));
    return 0;
}
