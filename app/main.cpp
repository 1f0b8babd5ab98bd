// qkv-studio: the desktop app, or `qkv-studio export ...` / `qkv-studio figure ...` /
// `qkv-studio train ...` without a display.

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include "app/export_command.hpp"
#include "app/train_command.hpp"
#include "app/usage_text.hpp"
#include "core/common/memory.hpp"
#include "core/io/data_directory.hpp"

#ifdef QKV_HAVE_UI
#include "app/figure_command.hpp"
#include "ui/startup/gui_main.hpp"
#endif

namespace {

bool displayAvailable()
{
    // Qt picks a platform plugin from these; with none set on Linux it would abort with a
    // multi-line plugin error, so say it in one line instead.
    const auto set = [](const char* name) {
        const char* value = std::getenv(name);
        return value && *value;
    };
#if defined(__linux__)
    return set("DISPLAY") || set("WAYLAND_DISPLAY") || set("QT_QPA_PLATFORM");
#else
    (void)set;
    return true;
#endif
}

bool isSessionFile(std::string_view argument)
{
    return argument.size() > 5 && argument.substr(argument.size() - 5) == ".json";
}

}  // namespace

int main(int argc, char** argv)
{
    qkv::keepLargeAllocationsForReuse();
    const std::string_view command = argc > 1 ? argv[1] : "";
    if (command == "export") return qkv::app::runExportCommand(argc, argv);
    if (command == "train") return qkv::app::runTrainCommand(argc, argv);
#ifdef QKV_HAVE_UI
    if (command == "figure") return qkv::app::runFigureCommand(argc, argv);
#endif
    if (command == "--version") {
        // The version first (scripts read that line), then where the data files were looked for.
        const std::filesystem::path data = qkv::dataDirectory();
        std::error_code error;
        const bool found = std::filesystem::is_directory(qkv::examplesDirectory(), error);
        std::printf("qkv-studio %s\nexamples and lexicon: %s%s\n", QKV_VERSION, data.string().c_str(),
                    found ? "" : " (missing)");
        return 0;
    }
    if (command == "--help" || command == "-h") {
        std::printf("%s\n%s", qkv::app::mainUsage(), qkv::app::exportUsage());
        return 0;
    }
    // A session to open: anything ending in .json (a typo of a command stays an unknown command).
    const bool sessionFile = isSessionFile(command);
    if (!command.empty() && !sessionFile) {
        std::fprintf(stderr, "qkv-studio: unknown command '%s' (try qkv-studio --help)\n", argv[1]);
        return 2;
    }
    // The launcher entry passes every file selected in a file manager (Exec=qkv-studio %F); the
    // window shows one session, so say which were not opened rather than drop them silently.
    std::string notOpened;
    for (int i = 2; sessionFile && i < argc; ++i)
        if (isSessionFile(argv[i])) notOpened += (notOpened.empty() ? "" : ", ") + std::string(argv[i]);
    if (!notOpened.empty())
        std::fprintf(stderr, "qkv-studio: one session at a time: opening %s; not opened: %s\n", argv[1], notOpened.c_str());
    if (!displayAvailable()) {
        std::fprintf(stderr, "qkv-studio: no display (DISPLAY and WAYLAND_DISPLAY are unset); headless: "
                             "qkv-studio export --format json --out attention.json\n");
        return 1;
    }
#ifdef QKV_HAVE_UI
    return qkv::ui::runGui(argc, argv, sessionFile ? QString::fromLocal8Bit(argv[1]) : QString(),
                           QString::fromLocal8Bit(notOpened.c_str()));
#else
    std::fprintf(stderr, "qkv-studio: built without the desktop app (QKV_BUILD_UI=OFF); use qkv-studio export\n");
    return 1;
#endif
}
