// For tests: an sshd on a free loopback port with a throwaway host key and authorized key in a
// temporary folder, and the argv of evaluators/ssh-cpu that reaches it with a given accelopt as the
// "remote" harness. Stopped (and its folder removed) when destroyed.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/files.h"
#include "common/subprocess.h"

namespace accelopt::testing {

class LocalSshd {
 public:
  // Why this machine cannot run one (a program missing), or nullopt; tests skip with it.
  static std::optional<std::string> unavailable_reason();

  // Starts sshd and waits until it accepts connections; throws std::runtime_error with its log.
  LocalSshd();

  // python3 accelopt-ssh-evaluator --host <me>@127.0.0.1 --port … with `remote_accelopt` run
  // remotely under `remote_environment` (NAME=VALUE words).
  std::vector<std::string> evaluator_argv(const std::filesystem::path& remote_accelopt,
                                          const std::vector<std::string>& remote_environment) const;
  const std::filesystem::path& directory() const { return directory_.path(); }

 private:
  TempDir directory_{"accelopt-sshd"};
  int port_ = 0;
  std::optional<Process> sshd_;
};

}  // namespace accelopt::testing
