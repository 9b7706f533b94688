// The harness's side of one accelopt-runner process: start it on a kernel library and a set of
// shared buffers, ask it for calls, time them from outside, stop and continue it between turns.
#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/json.h"
#include "platform/cpu/runner_protocol.h"
#include "platform/runner_process.h"
#include "platform/shared_buffers.h"

namespace accelopt::platform::cpu {

struct RunnerOptions {
  std::filesystem::path program;  // accelopt-runner
  std::filesystem::path library;  // the compiled kernel
  std::string entry_point = "kernel";
  int threads = 1;
  std::vector<int> cpus;               // where the kernel runs
  uint64_t memory_bytes = 4ull << 30;  // address space beyond the shared buffers
  bool seccomp = true;
  bool call_while_loading = false;  // trusted library code only: see runner_main.cpp
  SlotLayout slots;                 // how the buffers split into slots for timed turns
  std::chrono::milliseconds start_timeout{15000};
  // Once set, a wait for the runner kills it and throws EvaluationAbandoned (platform.h).
  const std::atomic<bool>* abandon = nullptr;
};

// kWroteInput: the kernel wrote into an input, which a runner given slots maps read-only.
// kMachineBusy: past its deadline, the runner had waited for a core longer than it ran on one
// (busy_more_than_running): the machine's fault, not the kernel's.
enum class CallOutcome : uint8_t {
  kDone,
  kTimedOut,
  kEnded,
  kForbiddenSyscall,
  kWroteInput,
  kMachineBusy
};

struct CallResult {
  CallOutcome outcome = CallOutcome::kDone;
  double seconds = 0;  // wall time from the command to the reply, measured here
  // The runner's CPU time over the call, all its threads (negative: unknown). Unlike wall time it
  // leaves out the moments when other processes held the core.
  double cpu_seconds = -1;
  // From /proc/<pid>/schedstat and status, the runner's main thread (all of a one-thread task):
  // seconds it was runnable but waiting for a core, and the times it was preempted (negative:
  // unknown). Wall time less CPU time less the wait is time the kernel spent blocked.
  double waiting_seconds = -1;
  int64_t involuntary_switches = -1;
  // Seconds this (the harness's) thread was runnable but waiting for a core over the call: after a
  // DONE the runner waits, blocked, until the harness reads it, which is not the kernel's blocking.
  double harness_waiting_seconds = 0;
  std::string message;       // for anything but kDone: what happened, in words
  size_t input_written = 0;  // kWroteInput: the buffer's index in the shared memory
};

class Runner {
 public:
  Runner(RunnerOptions options, const SharedBuffers& buffers);
  ~Runner();
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  // Starts the process and waits for it to report its sandbox. Returns why it could not start, if
  // it could not (the kernel does not load, say).
  std::optional<std::string> start();
  // After start() failed: whether it ran out of time because the machine was busy (the runner
  // waited for a core longer than it ran), which is no kernel's fault.
  bool start_was_busy() const { return start_was_busy_; }

  // Calls the kernel `count` times and waits up to `timeout` for them to return.
  CallResult call(int count, std::chrono::milliseconds timeout);
  // From now on `flag` stops a call, in place of RunnerOptions::abandon; not during a call.
  void abandon_when(const std::atomic<bool>* flag);
  // A timed turn: `count` calls, call i on slot i. The runner is stopped (SIGSTOP, every thread
  // seen stopped) before its CPU time is read at the end: a kernel that answers DONE before its
  // work is done pays for what it does until then, and can do nothing after.
  CallResult turn(int count, std::chrono::milliseconds timeout);

  void pause() { process_.pause(); }  // the other side is being timed
  void resume() { process_.resume(); }
  int thread_count() const;                                 // threads alive in the runner now
  std::string output() const { return process_.output(); }  // through filter_kernel_output
  const Json& sandbox() const { return sandbox_; }          // the measures the runner reported
  // Whether the runner maps every input read-only (it does when given slots, before the kernel
  // loads): this process's own choice, not the runner's word, which a kernel could forge.
  bool inputs_read_only() const { return options_.slots.slots > 1; }

 private:
  // Sends `command` (n calls) and waits for DONE; with `stop`, stops the runner before the end.
  CallResult run_calls(const std::string& command, int count, std::chrono::milliseconds timeout,
                       bool stop);
  void stop_and_wait();  // SIGSTOP, then until every thread is seen stopped (at most 1 s)
  std::string describe_end();
  double cpu_seconds() const;  // the runner's CPU time so far, all threads; negative: unknown
  // The main thread's seconds waiting for a core and involuntary switches so far; negative:
  // unknown.
  std::pair<double, int64_t> waits() const;

  RunnerOptions options_;
  const SharedBuffers& buffers_;
  RunnerProcess process_{"the runner"};
  Json sandbox_ = Json::object();
  bool start_was_busy_ = false;
};

// Where accelopt-runner is: $ACCELOPT_RUNNER, beside the running executable, or where it was built.
std::filesystem::path find_runner_program();

}  // namespace accelopt::platform::cpu
