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
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/files.h"
#include "common/subprocess.h"
#include "platform/compile_cache.h"
#include "platform/cpu/compiler_checks.h"

namespace accelopt::platform::cpu {

struct CompilerOptions {
  std::string compiler = "g++";  // or "clang++", or a path
  std::vector<std::string> flags = {
      "-std=c++20",      "-O3",   "-march=native", "-fopenmp", "-ffp-contract=fast",
      "-fno-math-errno", "-fPIC", "-shared"};
  // The compiler's CPU time for one compile, all stages together: a compile that needs more is
  // the kernel's failure (COMPILE_ERROR: runaway templates or constexpr evaluation).
  std::chrono::seconds cpu_limit{60};
  // The wall clock only backs the CPU limit up: a compile still running after wall_factor × the
  // CPU limit has mostly waited for a core, so the machine was busy, not the kernel at fault.
  int wall_factor = 4;
  // A busy compile is tried again after busy_pause, then after twice that, up to busy_retries
  // times; still busy, it ends as CompileResult::machine_busy (MACHINE_BUSY), never as an error.
  int busy_retries = 2;
  std::chrono::milliseconds busy_pause{2000};
  uint64_t memory_bytes = 4ull << 30;
  std::vector<int> cpus;                  // where the compiler may run; empty: anywhere
  std::filesystem::path cache_directory;  // empty: cache_directory()/compile
  bool isolate = true;  // run the compiler in its sandbox (off only where namespaces are refused)
};

// Whose source a compile reads. Only `accelopt bench` compiles a task's library/ files (oneDNN) as
// kTrustedLibrary, through EvalRequest::trusted; anything an agent wrote is kAgentKernel, every
// check applied. The two never share a cache entry.
enum class SourceTrust { kAgentKernel, kTrustedLibrary };

// Where a compile's next stage may run, asked as it starts: the cores timing now change while a
// compile lasts.
using CoreChoice = std::function<std::vector<int>()>;

struct CompileResult {
  bool ok = false;
  bool timed_out = false;     // used its CPU limit: the kernel's failure
  bool machine_busy = false;  // ran out of wall time on little CPU time, every try
  bool cached = false;
  std::optional<std::string> rejection;  // a stage's output broke a rule: why (REJECTED_SOURCE)
  std::string key;
  std::filesystem::path library;    // kernel.so, when ok
  std::filesystem::path directory;  // the cache entry: kernel.cpp, accelopt_task.h, logs
  std::string diagnostics;          // trimmed to what a person or a model needs
  std::string remarks;              // the compiler's vectorization remarks, raw
  double seconds = 0;               // wall time, the last try's
  double cpu_seconds = 0;  // the compiler's CPU time, every stage and child, the last try's
  int tries = 0;           // 0 when served from the cache
};

class Compiler {
 public:
  explicit Compiler(CompilerOptions options);

  // Thread-safe; concurrent compiles of the same key do the work once, of different keys at once.
  // `cpus`: asked as each stage starts, where it may run (off the cores timing at that moment);
  // none, or an empty answer: the options' cpus.
  CompileResult compile(const std::string& source, const std::string& header,
                        const std::vector<std::string>& extra_flags = {},
                        SourceTrust trust = SourceTrust::kAgentKernel, const CoreChoice& cpus = {});

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
                          uint64_t cpu_seconds, bool isolate,
                          const std::vector<int>& cpus = {}) const;
  // One try of the three stages in a fresh work directory, under the CPU limit and the wall
  // backstop.
  struct Attempt {
    CompileResult result;
    bool keepable = false;  // its outcome may be kept in the cache
    std::string log;
    std::optional<TempDir> work;
  };
  Attempt compile_once(const std::string& source, const std::string& header,
                       const std::vector<std::string>& flags, bool checked,
                       const CoreChoice& cpus) const;
  // Whether `attempt` ended for want of CPU (the kernel's) or of wall time (the machine's), with
  // the diagnostics that say which; false when it ended in time.
  bool judge_time(Attempt& attempt, bool backstop_fired) const;
  void describe_failure(CompileResult& result, const CommandResult& run,
                        const std::string& log) const;
  // The cache's entry for result.key, into `result`; false when there is none (or it lost its
  // library).
  bool load_cached(CompileResult& result) const;
  // Copies a finished try into the cache; `result` becomes what the cache serves.
  void keep(Attempt& attempt, CompileResult& result, const std::vector<std::string>& flags,
            bool checked);

  std::string isolation_problem_;
  std::vector<std::filesystem::path> include_directories_;  // the compiler's <...> search list
  CompileCache cache_;
  std::mutex mutex_;  // guards making_
  std::condition_variable made_;
  std::set<std::string> making_;  // the keys being compiled now: one compile per key at a time
};

}  // namespace accelopt::platform::cpu
