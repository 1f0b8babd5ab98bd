#include "core/common/path_exists.hpp"

#include <system_error>

namespace qkv {

bool pathExists(const std::filesystem::path& path)
{
    std::error_code ec;
    return std::filesystem::exists(path, ec);
}

}  // namespace qkv
