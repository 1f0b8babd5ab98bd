#include "app/export_command.hpp"

#include <cstdio>
#include <string>
#include <string_view>

#include "app/export_arguments.hpp"
#include "core/config/validation.hpp"
#include "core/export/result_export.hpp"
#include "core/io/temporary_files.hpp"
#include "core/pipeline/compute.hpp"
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
    if (!session.weightsProvenance.file.empty()) provenance.weights = session.weightsProvenance.file;
    else if (session.weights) provenance.weights = "session";
    provenance.weightsLayer = session.weightsProvenance.layer;
    provenance.sourceEmbeddings = session.sourceEmbeddings ? session.sourceEmbeddingsFile : std::string();
    provenance.targetEmbeddings = session.targetEmbeddings ? session.targetEmbeddingsFile : std::string();
    if (session.sourceEmbeddings && provenance.sourceEmbeddings.empty()) provenance.sourceEmbeddings = "session";
    if (session.targetEmbeddings && provenance.targetEmbeddings.empty()) provenance.targetEmbeddings = "session";
    return provenance;
}

}  // namespace

const char* exportUsage()
{
    return "Usage: qkv-studio export [options] --format json|csv|npy|session --out PATH\n"
           "       qkv-studio export --weights FILE --list-layers\n"
           "\n"
           "Computes multi-head attention without a display and writes it for other tools.\n"
           "Defaults are the built-in example (an English source, its French target, cross mode).\n"
           "\n"
           "  --source TEXT              source sentence (keys and values in cross mode)\n"
           "  --target TEXT              target sentence (queries in cross mode)\n"
           "  --mode self|causal|cross   self: source to source; causal: target to target, masked;\n"
           "                             cross: queries from the target, keys/values from the source\n"
           "  --d-model N                model width (default 64)\n"
           "  --heads H                  number of heads h; must divide d_model (default 4)\n"
           "  --kv-heads G               key/value heads g, dividing h (default h; 1: multi-query)\n"
           "  --seed S                   seed of generated embeddings and weights (default 2017)\n"
           "  --init xavier|normal       weight initialisation (default xavier)\n"
           "  --bias                     add (zero-initialised) biases\n"
           "  --scale-q/-k/-v/-o X       multiply W^Q, W^K, W^V or W^O by X\n"
           "  --positional KIND          sinusoidal (added to X, the paper), rotary, rotary-interleaved\n"
           "                             (q and k turned by position) or none (--no-positional)\n"
           "  --rope-base B              rotary base (default 10000)\n"
           "  --embeddings word|meaning|model\n"
           "                             a vector per word, per meaning shared by translations, or\n"
           "                             the model's own input (a BERT or GPT-2 checkpoint's first\n"
           "                             layer with its tokenizer files beside it: subword tokens)\n"
           "  --token-scale X            multiply the token embeddings by X (the paper: 1)\n"
           "  --preset NAME              every head: uniform, same-token, previous-token, next-token,\n"
           "                             same-position, same-meaning, low-rank, random\n"
           "  --preset 1=NAME,3=NAME     chosen heads only (numbered from 1); the others keep theirs\n"
           "  --preset-sharpness X       multiply the presets' scores by X (default 1)\n"
           "  --low-rank R               the rank of low-rank presets, 1 <= R < d_k (default 1)\n"
           "  --ablate 2,3               switch heads off (from 1): their Concat blocks are zeroed\n"
           "  --session FILE             start from a saved session (.qkv.json); options given\n"
           "                             with it change that session\n"
           "  --weights FILE             safetensors: W_Q W_K W_V W_O [b_Q ...] or PyTorch\n"
           "                             nn.MultiheadAttention names (in_proj_weight, ...)\n"
           "                             or a Hugging Face checkpoint (.safetensors or\n"
           "                             model.safetensors.index.json; docs/checkpoints.md)\n"
           "  --layer NAME|INDEX         the checkpoint layer (module path, or index from 0); what\n"
           "                             the checkpoint fixes (the layer's shape and kind, what\n"
           "                             config.json says) wins over --mode, --d-model, --heads,\n"
           "                             --kv-heads, --bias, --positional, --rope-base, with a note;\n"
           "                             an option it leaves open (e.g. --positional without\n"
           "                             config.json) stands\n"
           "  --list-layers              print the checkpoint's layers, one per line:\n"
           "                             index<TAB>name<TAB>kind<TAB>h<TAB>g<TAB>d_model\n"
           "                             (without config.json h is --heads, else d_model/64)\n"
           "  --source-embeddings FILE   .npy (n x d_model) replacing the generated source X\n"
           "  --target-embeddings FILE   .npy (n x d_model) replacing the generated target X\n"
           "  --format FORMAT            json: one document (docs/formats.md); csv: one row per\n"
           "                             head, query and key; npy: a folder of arrays; session:\n"
           "                             a .qkv.json session the app opens\n"
           "  --out PATH                 output file (folder for npy), replaced atomically\n"
           "  --spectrum                 singular values of every W_i even when d_k > 1024\n"
           "                             (d_k = 4096: ~35 s and ~1.1 GiB more)\n"
           "\n"
           "Exit status: 0 written, 1 a file could not be read, computed or written, 2 bad argument;\n"
           "interrupted (SIGINT, SIGTERM): its temporary files are removed, nothing is left at --out.\n";
}

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
            std::fputs(checkpointLayerListing(args).c_str(), stdout);
            return 0;
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
    const AnalysisPlan plan = exportAnalysisPlan(format, session.config, args.options);
    if (const std::string problem = configurationProblem(session, plan); !problem.empty()) return fail(2, problem);

    if (args.format == "session") {
        if (Status written = writeSession(args.out, session); !written) return fail(1, written.error());
        return 0;
    }
    const Expected<std::shared_ptr<const Result>> result = compute(session.config, session.inputs());
    if (!result) return fail(1, result.error());
    if (Status written = exportResult(**result, format, args.out, provenanceOf(session), args.options); !written)
        return fail(1, written.error());
    return 0;
}

}  // namespace qkv::app
