// The desktop app's recomputes as one whole process, for bench/contention: a main window on the
// offscreen platform, one thread per computation (as the app runs), taking a fixed list of
// edits (seeds, presets, sizes, modes) and waiting for each result before the next. Exits 0.
//
//   qkv_recompute_workload [EDITS]   (default 40)
#include <QApplication>
#include <QSettings>
#include <QTemporaryDir>

#include <cstdlib>
#include <string>

#include "core/common/memory.hpp"
#include "core/presets/head_presets.hpp"
#include "ui/document/compute_threads.hpp"
#include "ui/document/document.hpp"
#include "ui/mainwindow/main_window.hpp"

namespace {

// Edit `step` of the list: every fourth brings a positional preset at a new token scale (a fit),
// the others change the seed, the size or the mode as a user dragging controls would.
qkv::Config editNumber(int step)
{
    static const char* words[] = {"the", "cat", "sat", "on", "mat", "because", "it", "was", "tired", "and", "warm"};
    qkv::Config config;
    const int tokens = 12 + 4 * (step % 8);
    for (int i = 0; i < tokens; ++i) config.sourceText += std::string(words[(i + step) % 11]) + " ";
    config.targetText = "le chat noir dort";
    config.mode = step % 3 == 2 ? qkv::AttentionMode::Cross : qkv::AttentionMode::EncoderSelf;
    config.d_model = step % 2 == 0 ? 64 : 128;
    config.headCount = 4;
    config.seed = static_cast<std::uint64_t>(step + 1);
    if (step % 4 == 0) {
        config = qkv::withPreset(config, {1, qkv::HeadPresetKind::PreviousToken, 1.0, 1});
        config.tokenEmbeddingScale = 0.02f + 0.001f * static_cast<float>(step);  // never cached
    }
    return config;
}

}  // namespace

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    // The window starts on an example, as the app does: the build tree's data folder.
    if (qEnvironmentVariableIsEmpty("QKV_STUDIO_DATA_DIR")) qputenv("QKV_STUDIO_DATA_DIR", QKV_BUILD_DATA_DIR);
    qkv::keepLargeAllocationsForReuse();
    qkv::ui::useOneThreadPerComputation();
    QTemporaryDir settingsDirectory;
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDirectory.path());
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("QKV Studio Benchmarks"));
    const int edits = argc > 1 ? std::max(1, std::atoi(argv[1])) : 40;
    qkv::ui::MainWindow window;
    window.resize(1400, 900);
    window.show();
    for (int step = 0; step < edits; ++step) {
        window.document()->reset(editNumber(step));
        window.document()->waitUntilIdle();
        QCoreApplication::processEvents();
        window.repaint();
    }
    return 0;
}
