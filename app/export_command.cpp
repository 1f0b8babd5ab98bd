#include "app/export_command.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>

#include "app/export_arguments.hpp"
#include "app/model_export_command.hpp"
#include "app/usage_text.hpp"
#include "core/config/validation.hpp"
#include "core/export/result_export.hpp"
#include "core/io/temporary_files.hpp"
#include "core/pipeline/compute.hpp"
#include "core/pipeline/trained_layer.hpp"
#include "core/session/session.hpp"

namespace qkv::app {

namespace {

int fail(int status, const std::string& message)
{
    std::fprintf(stderr, "qkv-studio export: %s\n", message.c_str());
    return status;
}

ExportProvenance provenanceOf(const Session& session)
{
    ExportProvenance provenance;
    if (session.model && !session.weights) {
        // X is the hidden state the model computes, the weights the layer's own.
        provenance.weights = "trained";
        provenance.weightsLayer =
            attentionLayers(session.model->parameters.spec).at(static_cast<std::size_t>(session.modelLayer)).name;
        provenance.sourceEmbeddings = provenance.targetEmbeddings = "model";
        return provenance;
    }
    if (!session.weightsProvenance.file.empty())
        provenance.weights = session.weightsProvenance.file;
    else if (session.weights)
        provenance.weights = "session";
    provenance.weightsLayer = session.weightsProvenance.layer;
    provenance.sourceEmbeddings = session.sourceEmbeddings ? session.sourceEmbeddingsFile : std::string();
    provenance.targetEmbeddings = session.targetEmbeddings ? session.targetEmbeddingsFile : std::string();
    if (session.sourceEmbeddings && provenance.sourceEmbeddings.empty()) provenance.sourceEmbeddings = "session";
    if (session.targetEmbeddings && provenance.targetEmbeddings.empty()) provenance.targetEmbeddings = "session";
    return provenance;
}

}  // namespace

int runExportCommand(int argc, char** argv)
{
    for (int i = 2; i < argc; ++i) {
        if (std::string_view(argv[i]) == "--help" || std::string_view(argv[i]) == "-h") {
            std::fputs(exportUsage(), stdout);
            return 0;
        }
    }
    ExportArguments args;
    Session session;
    try {
        args = parseExportArguments(argc, argv);
        if (args.listLayers) {
            std::fputs((args.weightsFile ? checkpointLayerListing(args) : trainedLayerListing(args)).c_str(), stdout);
            return 0;
        }
        if (wantsWholeModel(args)) {
            ExportFormat format = ExportFormat::Json;
            parseExportFormat(args.format, format);
            if (Status writable = checkExportTarget(format, args.out); !writable) return fail(1, writable.error());
            removeTemporariesOnSignals();
            if (const std::optional<int> status = runWholeModelExport(args)) return *status;
        }
        session = sessionFromArguments(args);
    } catch (const ArgumentError& error) {
        return fail(2, error.message);
    } catch (const ReadError& error) {
        return fail(1, error.message);
    }
    // From here on a SIGINT/SIGTERM removes this export's temporaries before the process ends.
    removeTemporariesOnSignals();
    // A device, FIFO or foreign folder at --out is refused before minutes of computing.
    // A session is one JSON file: the same rule as a JSON export.
    ExportFormat format = ExportFormat::Json;
    parseExportFormat(args.format, format);
    if (Status writable = checkExportTarget(format, args.out); !writable) return fail(1, writable.error());

    // Configuration problems are argument problems: name the option.
    AnalysisPlan plan = exportAnalysisPlan(format, session.config, args.options);
    if (args.format == kSessionFormatName) {
        // Held to the limits a session file is read with (a long prompt stays a session).
        const ComputeRequest request = prepareCompute(session.config, session.inputs(), streamedPlan());
        if (const std::string problem = configurationProblem(session, request.issues); !problem.empty())
            return fail(2, problem);
        if (Status written = writeSession(args.out, session); !written) return fail(1, written.error());
        return 0;
    }
    // Cut and validated first at the limits of a streamed layer, so that what the sentences are
    // decides how the maps are held (exportPlanForSize), then again under that plan; the second
    // reuses the first's cuts.
    ComputeRequest request =
        prepareCompute(session.config, session.inputs(), streamedPlan(plan, std::max<Index>(args.options.pool, 1)));
    if (const std::string problem = configurationProblem(session, request.issues); !problem.empty())
        return fail(2, problem);
    const Expected<AnalysisPlan> sized =
        exportPlanForSize(format, session.config, args.options, request.queryTokenCount(), request.keyTokenCount());
    if (!sized) return fail(2, sized.error());
    plan = *sized;
    request = prepareCompute(session.config, session.inputs(), plan, &request);
    if (const std::string problem = configurationProblem(session, request.issues); !problem.empty())
        return fail(2, problem);

    const Expected<std::shared_ptr<const Result>> result = compute(request);
    if (!result) return fail(1, result.error());
    if (Status written = exportResult(**result, format, args.out, provenanceOf(session), args.options); !written)
        return fail(1, written.error());
    return 0;
}

}  // namespace qkv::app
