// One sandboxed runner process as the harness sees it, whatever the platform: spawned with its
// command and reply pipes, the tensors' shared memory and the kernel library on the descriptors
// every runner expects, in an empty owner-only working directory of its own, with what it prints
// kept in a file; lines sent and read under deadlines; stopped, continued and killed as a group.
// The CPU's and the CUDA runner's protocols (cpu/runner_protocol.h, cuda/runner_protocol.h) are
// spoken over it.
#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>

#include "common/files.h"
#include "common/line_reader.h"
#include "common/subprocess.h"
#include "platform/runner_descriptors.h"

namespace accelopt::platform {

class RunnerProcess {
 public:
  // `name` says who speaks in messages: "the runner", "the CUDA runner".
  explicit RunnerProcess(std::string name);
  ~RunnerProcess();  // continues the group, then kills it
  RunnerProcess(const RunnerProcess&) = delete;
  RunnerProcess& operator=(const RunnerProcess&) = delete;

  // Starts `spawn` (its argv, environment, limits and cores) in the working directory, with the
  // pipes, `shared_memory_fd` and `library` on the descriptors above. Throws InternalError when the
  // pipes or the library cannot be opened.
  void start(SpawnOptions spawn, int shared_memory_fd, const std::filesystem::path& library);
  const std::filesystem::path& work_directory() const { return work_; }
  bool started() const { return process_.has_value(); }
  pid_t pid() const { return process_ ? process_->pid() : -1; }

  // From now on read_line looks at `flag` several times a second; once it is set, it kills the
  // group and throws EvaluationAbandoned (platform.h). Null: never.
  void abandon_when(const std::atomic<bool>* flag) { abandon_ = flag; }

  // Writes one line; false when the process is gone (the SIGPIPE is kept from this thread).
  bool send(const std::string& line);
  // The next line before `deadline`; nullopt when the process closed its end (timed_out false) or
  // the deadline passed (timed_out true).
  std::optional<std::string> read_line(std::chrono::steady_clock::time_point deadline,
                                       bool& timed_out);
  // How the process ended, once its reply channel closed; waits at most `timeout`.
  ExitStatus wait_end(std::chrono::milliseconds timeout);

  void kill();    // the whole group, at once
  void pause();   // SIGSTOP the group: it must not run while the other side is timed
  void resume();  // SIGCONT

  // Seconds the main thread has run on a core and waited, runnable, for one since it started
  // (/proc/PID/schedstat); negative when unknown.
  std::pair<double, double> core_seconds() const;

  // What the kernel printed, through filter_kernel_output.
  std::string output() const;
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  TempDir home_;
  std::filesystem::path work_;
  std::optional<Process> process_;
  int command_fd_ = -1;
  int reply_fd_ = -1;
  std::optional<LineReader> replies_;
  const std::atomic<bool>* abandon_ = nullptr;
};

// Whether a process that ran past a deadline of `allowed_seconds` spent at least half of it
// waiting for a core, and more than it ran on one: then the machine was busy, and the deadline
// says nothing of the work. A process that blocked or slept waited for no core, and one that spins
// runs more than it waits on a quiet machine: both are past their deadline by their own doing.
// False when either figure is unknown (negative).
bool busy_more_than_running(double waiting_seconds, double running_seconds, double allowed_seconds);

// What a kernel printed, fit for a verdict: at most 4 KB (head and tail), every line marked
// "kernel| " so that it can never pass for the harness's own words, control bytes as '?'.
std::string filter_kernel_output(const std::string& raw);

// Where a runner program is: $`environment_variable`, else `name` beside the running executable,
// else `build_path` (where the build put it; empty: none); nullopt when none exists.
std::optional<std::filesystem::path> find_runner(const char* environment_variable,
                                                 const std::string& name,
                                                 const std::string& build_path);

}  // namespace accelopt::platform
