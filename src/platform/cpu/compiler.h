// Turns a kernel source and its generated header into a shared library, under limits, once.
//
// Results live in a content-addressed cache: the key is the SHA-256 of the compiler's version, the
// flags, the header and the source, so the same kernel is never compiled twice, even across runs.
// Failures are cached too (they are as deterministic as successes); deadlines are not.
#pragma once

#include <chrono>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

namespace accelopt::platform::cpu {

struct CompilerOptions {
  std::string compiler = "g++";  // or "clang++", or a path
  std::vector<std::string> flags = {
      "-std=c++20",      "-O3",   "-march=native", "-fopenmp", "-ffp-contract=fast",
      "-fno-math-errno", "-fPIC", "-shared"};
  std::chrono::seconds timeout{60};
  uint64_t memory_bytes = 4ull << 30;
  std::vector<int> cpus;                  // where the compiler may run; empty: anywhere
  std::filesystem::path cache_directory;  // empty: cache_directory()/compile
};

struct CompileResult {
  bool ok = false;
  bool timed_out = false;
  bool cached = false;
  std::string key;
  std::filesystem::path library;    // kernel.so, when ok
  std::filesystem::path directory;  // the cache entry: kernel.cpp, accelopt_task.h, logs
  std::string diagnostics;          // trimmed to what a person or a model needs
  std::string remarks;              // the compiler's vectorization remarks, raw
  double seconds = 0;
};

class Compiler {
 public:
  explicit Compiler(CompilerOptions options);

  // Thread-safe; concurrent compiles of the same key do the work once.
  CompileResult compile(const std::string& source, const std::string& header,
                        const std::vector<std::string>& extra_flags = {});

  const std::string& version() const { return version_; }
  bool is_clang() const { return is_clang_; }

 private:
  CompilerOptions options_;
  std::string version_;
  bool is_clang_ = false;
  std::filesystem::path cache_;
  std::mutex mutex_;  // guards the cache directory's entries while one is being made
};

// Keeps the first `max_errors` errors of a compiler log with their context lines, and nothing past
// `max_bytes`.
std::string trim_diagnostics(const std::string& log, int max_errors = 5, size_t max_bytes = 4000);

}  // namespace accelopt::platform::cpu
