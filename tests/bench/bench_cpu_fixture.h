// What the bench/cpu tests share: the folder, its tasks that hold a given file, and one CPU
// platform for a whole test suite (probing the machine once).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "platform/cpu/cpu_platform.h"

namespace accelopt {

inline const std::filesystem::path kBenchDirectory =
    std::filesystem::path(ACCELOPT_SOURCE_DIR) / "bench" / "cpu";

// The names of bench/cpu's task folders that hold `file`, sorted.
inline std::vector<std::string> bench_tasks_with(const std::string& file) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(kBenchDirectory)) {
    if (std::filesystem::exists(entry.path() / file)) {
      names.push_back(entry.path().filename().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

// A test suite over bench/cpu's tasks, by name, with one platform for all of them.
class BenchCpuTest : public testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() {
    platform::cpu::CpuPlatformOptions options;
    options.compiler.cpus = platform::cpu::compile_cpus();
    platform_ = std::make_unique<platform::cpu::CpuPlatform>(
        options, platform::cpu::load_or_probe_machine(false, nullptr));
  }
  static void TearDownTestSuite() { platform_.reset(); }
  static inline std::unique_ptr<platform::cpu::CpuPlatform> platform_;
};

}  // namespace accelopt
