#include "core/io/data_directory.hpp"

#include <cstdlib>
#include <system_error>

namespace qkv {
namespace {

const char* environmentValue() { return std::getenv("QKV_STUDIO_DATA_DIR"); }

bool isSet(const char* value) { return value != nullptr && *value != '\0'; }

std::filesystem::path thisExecutable()
{
    std::error_code error;
    std::filesystem::path executable = std::filesystem::read_symlink("/proc/self/exe", error);
    // Without /proc (a chroot that did not mount it): the current folder stands in, and
    // messages then name a data folder the user can see is wrong.
    if (error) return std::filesystem::current_path(error) / "qkv-studio";
    return executable;
}

}  // namespace

const char* dataDirectoryFromExecutable() { return QKV_DATA_FROM_EXECUTABLE; }

std::filesystem::path dataDirectoryFor(const std::filesystem::path& executable, const char* value)
{
    if (isSet(value)) return std::filesystem::path(value);
    return (executable.parent_path() / dataDirectoryFromExecutable()).lexically_normal();
}

std::filesystem::path dataDirectory() { return dataDirectoryFor(thisExecutable(), environmentValue()); }

std::filesystem::path examplesDirectory() { return dataDirectory() / "examples"; }
std::filesystem::path demoModelDirectory() { return dataDirectory() / "demo-model"; }

std::string dataDirectoryOrigin()
{
    return isSet(environmentValue()) ? "named by QKV_STUDIO_DATA_DIR" : "beside the executable";
}

}  // namespace qkv
