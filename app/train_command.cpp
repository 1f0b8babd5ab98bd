#include "app/train_command.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include "app/train_arguments.hpp"
#include "app/train_progress.hpp"
#include "app/usage_text.hpp"
#include "core/io/atomic_file.hpp"
#include "core/io/atomic_folder.hpp"
#include "core/io/regular_file.hpp"
#include "core/io/temporary_files.hpp"
#include "core/session/trained_session.hpp"
#include "core/training/trained_model.hpp"
#include "core/training/training_loop.hpp"
#include "core/training/training_report.hpp"

namespace qkv::app {

namespace {

int fail(int status, const std::string& message)
{
    std::fprintf(stderr, "qkv-studio train: %s\n", message.c_str());
    return status;
}

// --out: absent, or an empty folder; anything else is refused before any training. The files
// go into a temporary folder beside it, swapped in whole once all are written (AtomicFolder).
Status openOutputFolder(const std::string& out, AtomicFolder& folder)
{
    const PathKind kind = pathKind(out, true);
    if (kind == PathKind::Regular) return Error{"--out: '" + out + "' is a file, not a folder"};
    if (kind == PathKind::Folder) {
        std::error_code error;
        const bool empty = std::filesystem::is_empty(out, error);
        if (error) return Error{"--out: cannot read the folder '" + out + "': " + error.message()};
        if (!empty)
            return Error{"--out: '" + out + "' is not empty; choose a new or empty folder (nothing was changed)"};
    }
    return folder.open(out, [](std::string_view) { return false; });
}

std::string_view variantName(const TrainingRun& run) { return nameOf(kScoreFormNames, run.settings().variant); }

double trainingSeconds(const TrainingRun& run) { return run.curve().empty() ? 0.0 : run.curve().back().seconds; }

// The command line's side of the one training loop: progress on stderr after each step.
class ProgressDriver : public TrainingDriver {
public:
    ProgressDriver(const TrainingRun& run, TrainingProgress& progress) : run_(run), progress_(progress) {}
    void stepped(long) override { progress_.stepped(variantName(run_), run_.curve().back()); }

private:
    const TrainingRun& run_;
    TrainingProgress& progress_;
};

// One variant after the other (each line of progress is about one of them).
void train(TrainingRun& run, TrainingProgress& progress)
{
    ProgressDriver driver(run, progress);
    TrainingLoop({&run}).run(driver);
    progress.finished(variantName(run), TrainedModel::snapshot(run)->provenance(), trainingSeconds(run));
}

Status writeText(AtomicFolder& folder, const std::string& name, const std::string& text)
{
    AtomicFile file;
    if (Status opened = file.open(folder.pathOf(name)); !opened) return Error{folder.inTermsOfPath(opened.error())};
    file.write(text);
    if (Status committed = file.commit(); !committed) return Error{folder.inTermsOfPath(committed.error())};
    folder.added(name);
    return {};
}

// DIR/<variant>.qkv.json for each run, DIR/log.csv, DIR/report.json; then the folder is swapped in.
Status writeOutputs(AtomicFolder& folder, const std::vector<std::unique_ptr<TrainingRun>>& runs)
{
    std::vector<const TrainingRun*> finished;
    for (const auto& run : runs) {
        const std::shared_ptr<const TrainedModel> model = TrainedModel::snapshot(*run);
        const Index layer = firstShownLayer(model->parameters.spec);
        const Session session = trainedModelSession(model, layer, run->data().heldOut().front());
        const std::string name = std::string(variantName(*run)) + ".qkv.json";
        if (Status written = writeSession(folder.pathOf(name), session); !written)
            return Error{folder.inTermsOfPath(written.error())};
        folder.added(name);
        finished.push_back(run.get());
    }
    if (Status written = writeText(folder, "log.csv", trainingLogCsv(finished)); !written) return written;
    if (Status written = writeText(folder, "report.json", trainingReportJson(finished)); !written) return written;
    return folder.commit();
}

}  // namespace

int runTrainCommand(int argc, char** argv)
{
    for (int i = 2; i < argc; ++i) {
        if (std::string_view(argv[i]) == "--help" || std::string_view(argv[i]) == "-h") {
            std::fputs(trainUsage(), stdout);
            return 0;
        }
    }
    TrainArguments args;
    std::vector<TrainingSettings> settings;
    try {
        args = parseTrainArguments(argc, argv);
        settings = trainingSettings(args);
    } catch (const ArgumentError& error) {
        return fail(2, error.message);
    }
    // From here on a SIGINT/SIGTERM removes the temporary folder before the process ends.
    removeTemporariesOnSignals();
    AtomicFolder folder;
    if (Status opened = openOutputFolder(args.out, folder); !opened) return fail(1, opened.error());

    // The data first: a pairs file that cannot be read is a file problem (1); whatever
    // TrainingRun still refuses then is a setting (2).
    if (Expected<TaskData> data = TaskData::create(settings.front().task); !data) return fail(1, data.error());
    std::vector<std::unique_ptr<TrainingRun>> runs;
    long totalSteps = 0;
    for (const TrainingSettings& s : settings) {
        Expected<std::unique_ptr<TrainingRun>> run = TrainingRun::create(s);
        if (!run) return fail(2, run.error());
        totalSteps += s.steps;
        runs.push_back(std::move(*run));
    }
    TrainingProgress progress(stderr, totalSteps, ::isatty(STDERR_FILENO) == 1);
    for (const auto& run : runs) train(*run, progress);
    if (Status written = writeOutputs(folder, runs); !written) return fail(1, written.error());
    std::string sessions;
    for (const auto& run : runs) sessions += std::string(variantName(*run)) + ".qkv.json, ";
    std::fprintf(stderr, "qkv-studio train: wrote %s (%slog.csv, report.json)\n", args.out.c_str(), sessions.c_str());
    return 0;
}

}  // namespace qkv::app
