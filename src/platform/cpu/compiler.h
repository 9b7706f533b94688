// Turns a kernel source and its generated header into a shared library, under limits, once.
//
// The compiler reads hostile text, so it runs in a sandbox of its own (subprocess.h's Isolation: a
// root that holds only /usr and the work directory, no network, as nobody when accelopt is root)
// and in three stages, each output checked before the next stage reads it:
//   kernel.cpp --(-E)--> kernel.ii   check_preprocessed: which files, which directives
//   kernel.ii  --(-S)--> kernel.s    check_assembly: no directive that reads a file
//   kernel.s   --(link)-> kernel.so
// A kernel refused by a check gets a `rejection` instead of a library. Library code the harness
// ships (SourceTrust::kTrustedLibrary) skips the checks, so that it may include its library's
// headers (<dnnl.h>) and link it.
//
// Results live in the content-addressed cache every platform shares (platform/compile_cache.h):
// libraries, errors and refusals are kept; deadlines and compilers ended by a signal are not.
#pragma once

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/subprocess.h"
#include "platform/compile_cache.h"
#include "platform/cpu/compiler_checks.h"

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
  bool isolate = true;  // run the compiler in its sandbox (off only where namespaces are refused)
};

// Whose source a compile reads. Only `accelopt bench` compiles a task's library/ files (oneDNN) as
// kTrustedLibrary, through EvalRequest::trusted; anything an agent wrote is kAgentKernel, every
// check applied. The two never share a cache entry.
enum class SourceTrust { kAgentKernel, kTrustedLibrary };

struct CompileResult {
  bool ok = false;
  bool timed_out = false;
  bool cached = false;
  std::optional<std::string> rejection;  // a stage's output broke a rule: why (REJECTED_SOURCE)
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

  // Thread-safe; concurrent compiles of the same key do the work once, of different keys at once.
  // `cpus`: where this compile may run (off the cores timing now); empty: the options' cpus.
  CompileResult compile(const std::string& source, const std::string& header,
                        const std::vector<std::string>& extra_flags = {},
                        SourceTrust trust = SourceTrust::kAgentKernel,
                        const std::vector<int>& cpus = {});

  const std::string& version() const { return version_; }
  const std::vector<std::string>& flags() const { return options_.flags; }
  bool is_clang() const { return is_clang_; }
  // Whether compiles run in the sandbox; when not, why (a container that refuses namespaces).
  bool isolated() const { return isolation_problem_.empty(); }
  const std::string& isolation_problem() const { return isolation_problem_; }

 private:
  CompilerOptions options_;
  std::string version_;
  bool is_clang_ = false;
  // Runs the compiler with `arguments` in `work`: in the sandbox unless it could not be made, under
  // the memory and CPU limits, scratch paths removed from its output.
  CommandResult run_stage(const std::vector<std::string>& arguments,
                          const std::filesystem::path& work, std::chrono::milliseconds timeout,
                          bool isolate, const std::vector<int>& cpus = {}) const;

  std::string isolation_problem_;
  std::vector<std::filesystem::path> include_directories_;  // the compiler's <...> search list
  CompileCache cache_;
  std::mutex mutex_;  // guards making_
  std::condition_variable made_;
  std::set<std::string> making_;  // the keys being compiled now: one compile per key at a time
};

}  // namespace accelopt::platform::cpu
