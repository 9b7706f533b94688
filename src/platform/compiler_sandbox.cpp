#include "platform/compiler_sandbox.h"

namespace accelopt::platform {

std::vector<std::filesystem::path> compiler_system_paths() {
  return {"/usr",
          "/bin",
          "/sbin",
          "/lib",
          "/lib32",
          "/lib64",
          "/libx32",
          "/etc/ld.so.cache",
          "/etc/alternatives",
          "/dev/null"};
}

}  // namespace accelopt::platform
