// What every platform's sandboxed compiler sees of the system, read-only: programs, libraries,
// headers, the loader's cache and /dev/null. Each compiler adds its own toolchain's folders where
// they lie outside /usr.
#pragma once

#include <filesystem>
#include <vector>

namespace accelopt::platform {

std::vector<std::filesystem::path> compiler_system_paths();

}  // namespace accelopt::platform
