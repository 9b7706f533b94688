// Compiles a CUDA kernel source with nvcc into a shared library that accelopt-cuda-runner loads.
// Results live in the content-addressed cache every platform shares (platform/compile_cache.h), so
// an unchanged kernel compiles once.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "platform/compile_cache.h"

namespace accelopt::platform::cuda {

struct NvccOptions {
  std::filesystem::path nvcc;  // empty: find_nvcc()
  // -arch value: "native" compiles for the GPU present; without one name an architecture (sm_90).
  std::string arch = "native";
  std::vector<std::string> flags = {"-O3", "-std=c++17", "-lineinfo"};
  std::chrono::seconds timeout{180};
  std::filesystem::path cache_directory;  // empty: cache_directory()/cuda
};

struct NvccResult {
  bool ok = false;
  bool timed_out = false;
  bool cached = false;
  double seconds = 0;
  std::string diagnostics;
  std::filesystem::path library;
};

// What every kernel is compiled with under `options`: its flags and -arch (then a trusted kernel's
// extra flags), then those that make a shared library.
std::vector<std::string> nvcc_flags(const NvccOptions& options);

class NvccCompiler {
 public:
  explicit NvccCompiler(NvccOptions options);
  // `extra_flags` come after the defaults (a trusted kernel's -lcublas, say).
  NvccResult compile(const std::string& source, const std::string& header,
                     const std::vector<std::string>& extra_flags = {});
  const std::filesystem::path& nvcc() const { return options_.nvcc; }
  const std::string& version() const { return version_; }  // `nvcc --version`
  std::vector<std::string> flags() const { return nvcc_flags(options_); }

 private:
  NvccOptions options_;
  CompileCache cache_;
  std::string version_;
};

// $ACCELOPT_NVCC, else nvcc on PATH, else /usr/local/cuda/bin/nvcc; nullopt when none exists.
std::optional<std::filesystem::path> find_nvcc();

}  // namespace accelopt::platform::cuda
