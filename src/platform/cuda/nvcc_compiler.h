// Compiles a CUDA kernel source with nvcc into a shared library that accelopt-cuda-runner loads.
// Results live in the content-addressed cache every platform shares (platform/compile_cache.h), so
// an unchanged kernel compiles once.
//
// nvcc and its host compiler run as the CPU compiler does (issue 44; cpu/compiler.cpp): in a root
// of their own that shows the system and the toolkit read-only and the kernel's folder as the only
// writable one, in their own user and PID namespace, with no network. An agent's kernel is then
// checked as the compiler read and wrote it (nvcc_checks.h): its preprocessed translation units,
// its host assembly and PTX (kept with --keep); a kernel refused there is a `rejection`, and its
// diagnostics never quote another file. compile() needs no GPU: the tests run it where nvcc is
// installed and no device is (cuda_compile_test, cuda_adversarial_test).
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/subprocess.h"
#include "platform/compile_cache.h"

namespace accelopt::platform::cuda {

struct NvccOptions {
  std::filesystem::path nvcc;  // empty: find_nvcc()
  // -arch value: "native" compiles for the GPU present; without one name an architecture (sm_90).
  std::string arch = "native";
  std::vector<std::string> flags = {"-O3", "-std=c++17", "-lineinfo"};
  std::chrono::seconds timeout{180};
  std::filesystem::path cache_directory;  // empty: cache_directory()/cuda
  bool isolate = true;                    // the sandbox above, where the system allows it
};

struct NvccResult {
  bool ok = false;
  bool timed_out = false;
  bool cached = false;
  double seconds = 0;
  // Why the checks of what nvcc read and wrote refuse the kernel (then `ok` is false).
  std::optional<std::string> rejection;
  std::string diagnostics;
  std::filesystem::path library;
};

// What every kernel is compiled with under `options`: its flags and -arch (then a trusted kernel's
// extra flags), then those that make a shared library.
std::vector<std::string> nvcc_flags(const NvccOptions& options);

class NvccCompiler {
 public:
  explicit NvccCompiler(NvccOptions options);
  // `extra_flags` come after the defaults (a trusted kernel's -lcublas, say). `checked`: an agent's
  // kernel, whose compiler output is checked (nvcc_checks.h); trusted library code is not.
  NvccResult compile(const std::string& source, const std::string& header,
                     const std::vector<std::string>& extra_flags = {}, bool checked = true);
  // Whether nvcc runs in its sandbox; where the system refuses one, why (empty otherwise).
  bool isolated() const { return isolation_problem_.empty(); }
  const std::string& isolation_problem() const { return isolation_problem_; }
  const std::filesystem::path& nvcc() const { return options_.nvcc; }
  const std::string& version() const { return version_; }  // `nvcc --version`
  std::vector<std::string> flags() const { return nvcc_flags(options_); }

 private:
  // Runs nvcc with `arguments` in `work`, in the sandbox unless it is off.
  CommandResult run_nvcc(const std::vector<std::string>& arguments,
                         const std::filesystem::path& work, bool isolate) const;
  // The checks of what nvcc read and wrote, from the files --keep left in `kept`.
  std::optional<std::string> check_kept(const std::filesystem::path& kept) const;

  NvccOptions options_;
  CompileCache cache_;
  std::string version_;
  std::string isolation_problem_;
  std::vector<std::filesystem::path> system_directories_;  // headers the kernel may read
};

// $ACCELOPT_NVCC, else nvcc on PATH, else /usr/local/cuda/bin/nvcc; nullopt when none exists.
std::optional<std::filesystem::path> find_nvcc();

}  // namespace accelopt::platform::cuda
