// What the CLI tests share: the built accelopt run in a shell as a user types it, with its exit
// code and its output (stdout and stderr together). Header-only: each test binary defines
// ACCELOPT_BINARY_DIR (src/cli/CMakeLists.txt).
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "common/files.h"

namespace accelopt::testing {

struct CommandOutput {
  int code = 0;  // the exit code; 128 when the command did not exit
  std::string output;
};

// The accelopt binary of this build.
inline std::string accelopt_binary() {
  return std::string(ACCELOPT_BINARY_DIR) + "/src/cli/accelopt";
}

// `command` in a shell, its output kept in scratch/output.txt and read back.
inline CommandOutput run_shell(const std::string& command, const std::filesystem::path& scratch) {
  std::filesystem::path output = scratch / "output.txt";
  int status = std::system((command + " > " + output.string() + " 2>&1").c_str());
  CommandOutput result;
  result.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  result.output = read_file(output);
  return result;
}

// `accelopt ARGUMENTS`, from `cwd` when one is given.
inline CommandOutput run_accelopt(const std::string& arguments,
                                  const std::filesystem::path& scratch,
                                  const std::filesystem::path& cwd = {}) {
  std::string command = accelopt_binary() + " " + arguments;
  if (!cwd.empty()) command = "cd " + cwd.string() + " && " + command;
  return run_shell(command, scratch);
}

}  // namespace accelopt::testing
