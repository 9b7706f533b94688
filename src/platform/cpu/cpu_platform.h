// The CPU platform: compile → sandboxed run → check against the reference → interleaved timing
// against an anchor → roofline score → profile. See docs/harness.md for each step and its reasons.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <vector>

#include "platform/cpu/buffer_shelf.h"
#include "platform/cpu/call_check.h"
#include "platform/cpu/case_cache.h"
#include "platform/cpu/compiler.h"
#include "platform/cpu/inputs.h"
#include "platform/cpu/machine.h"
#include "platform/cpu/runner_turns.h"
#include "platform/paired_timing.h"
#include "platform/platform.h"

namespace accelopt::platform::cpu {

struct CpuPlatformOptions {
  CompilerOptions compiler;
  bool seccomp = true;
  std::chrono::milliseconds call_timeout{10000};  // at least this for one call
  std::chrono::milliseconds reference_timeout{600000};
  uint64_t memory_bytes = 4ull << 30;  // address space beyond the tensors
  bool profile = true;
  // Timed turns' slots (runner_turns.h): every call of a turn has a slot of its own, so a turn
  // has at most this many calls, and the slots' copies of the tensors stay within slot_bytes
  // (always at least one slot).
  int slots = 1024;
  uint64_t slot_bytes = 256ull << 20;
  // The second side of a timed turn finds the first side's inputs in place (read-only to both)
  // when the turn's inputs and outputs are at least this many bytes (runner_turns.h); nullopt:
  // default_in_place_bytes().
  std::optional<uint64_t> in_place_bytes;
  // Correctness cases and timing pools kept for the next evaluation of the same task and
  // workload (case_cache.h), in bytes; 0 keeps none (every evaluation draws all its cases).
  uint64_t case_cache_bytes = 4ull << 30;
  // Sets of a candidate's buffers kept for the next evaluation of the same sizes (buffer_shelf.h),
  // in bytes; 0 keeps none.
  uint64_t buffer_shelf_bytes = 1ull << 30;
  // Tests: how many timed turns are checked against the reference (runner_turns.h's CheckShares);
  // nullopt: by who the anchor is.
  std::optional<CheckShares> check_shares;
};

class ReferenceRunner;

class CpuPlatform : public Platform {
 public:
  CpuPlatform(CpuPlatformOptions options, MachinePeaks peaks);

  std::string name() const override { return "cpu"; }
  Verdict evaluate(const EvalRequest& request) override;

  const MachinePeaks& peaks() const { return peaks_; }
  Compiler& compiler() { return compiler_; }

  // The reference's answers for `cases`, computed in a sandboxed runner of its own: the secret
  // seeds stay in this process, only the inputs they make reach the reference.
  // `abandon`: as EvalRequest's. `public_seeds`: the cases' seeds were chosen by a person, so a
  // Python reference's answers may be kept on disk (python_reference.h).
  std::vector<ReferenceCase> run_reference(const task::Task& task, const task::Workload& workload,
                                           const std::vector<CaseSpec>& cases,
                                           const std::atomic<bool>* abandon = nullptr,
                                           const std::vector<int>& cores = {},
                                           bool public_seeds = false);
  // The reference in a sandboxed runner of its own, started and kept: timed turns check their fresh
  // inputs against it (runner_turns.h).
  std::unique_ptr<ReferenceRunner> start_reference(const task::Task& task,
                                                   const task::Workload& workload,
                                                   const std::atomic<bool>* abandon,
                                                   const std::vector<int>& cores = {});
  // The cases an evaluation here checks correctness on, with the reference's answers: those kept
  // from an earlier evaluation of this task and workload with one drawn afresh, or all drawn now
  // (case_cache.h). `stop`: as `abandon`. `answered_by`, where given, gets the reference's runner
  // that answered them, for the evaluation's timed turns.
  std::vector<SharedCase> correctness_answers(
      const task::Task& task, const task::Workload& workload,
      const std::atomic<bool>* stop = nullptr, const std::vector<int>& cores = {},
      std::unique_ptr<ReferenceRunner>* answered_by = nullptr);
  // run_reference for seeds a person chose (empty: a fresh correctness check's cases, none kept:
  // what the CUDA and evaluator platforms check against).
  std::vector<ReferenceCase> reference_cases(const task::Task& task, const task::Workload& workload,
                                             std::vector<uint64_t> seeds = {});
  // The task's constant inputs on `workload` (inputs.h), kept with its cases or drawn now from a
  // fresh secret seed and kept: every case and pool drawn while they are kept shares them (with
  // case_cache_bytes 0, each draw of cases or pool has its own). Null where the task has none.
  SharedConstants constant_inputs(const task::Task& task, const task::Workload& workload);

 private:
  // evaluate, less the turn of MachineBusy (thrown by the harness's own work) into its verdict.
  Verdict evaluate_unguarded(const EvalRequest& request);
  // evaluate's steps, in order. Each fills its part of `verdict`; a step that returns false (or a
  // failure) has given the verdict its status.
  std::optional<CompileResult> compile_candidate(const EvalRequest& request,
                                                 const std::string& header, Verdict& verdict);
  RunnerOptions runner_options(const task::Task& task, const std::filesystem::path& library,
                               const std::atomic<bool>* abandon,
                               const std::vector<int>& cores = {}) const;
  // Where a compile for an evaluation on `cores` may run: every core no evaluation of this process
  // times on and none of another holds (core_sets.h), else every core this process is not timing
  // on, else `cores`.
  std::vector<int> compile_cores(const std::vector<int>& cores) const;
  bool load_candidate(const task::Task& task, Runner& candidate, Verdict& verdict);
  // The cases in turns as timed turns are made (load_cases_as_turn): as many a turn as `layout`
  // has slots. `compare_seconds`: the most one case's check took (its comparison with the
  // answers).
  bool check_correctness(const task::Task& task, const std::vector<SharedCase>& cases,
                         SharedBuffers& buffers, Runner& candidate, const SlotLayout& layout,
                         std::chrono::milliseconds call_timeout, Verdict& verdict,
                         double& compare_seconds);
  // The slots timed turns use for this task and workload, within the options' limits.
  SlotLayout timing_layout(const task::Task& task, const std::vector<size_t>& sizes) const;
  // The cases timed turns mix their inputs from (inputs only), drawn from fresh secret seeds, or
  // kept from an earlier evaluation.
  SharedPool timing_pool(const task::Task& task, const task::Workload& workload,
                         const SlotLayout& layout);
  // What timed turns are checked with: the reference's runner (null: one is started here) and
  // how long a check of one call is taken to cost until one was measured (runner_turns.h).
  struct TurnChecks {
    ReferenceRunner* reference = nullptr;
    double seconds_per_check = 0;
  };
  // `pool`: timing_pool's cases, or null to draw them here.
  std::optional<TurnFailure> time_against_anchor(
      const EvalRequest& request, const std::string& header, TurnChecks checks, SharedPool pool,
      const SlotLayout& layout, TimedKernel candidate, std::chrono::milliseconds call_timeout,
      Verdict& verdict, std::optional<CeilingAlongside>& alongside);

  CpuPlatformOptions options_;
  MachinePeaks peaks_;
  Compiler compiler_;
  std::filesystem::path runner_program_;
  CaseCache kept_cases_;
  BufferShelf buffer_shelf_;

  std::mutex constants_mutex_;       // one draw of a task's constant inputs at a time
  mutable std::mutex timing_mutex_;  // guards timing_now_
  std::multiset<int> timing_now_;    // the cores of the evaluations being timed now
  friend class TimingOn;
};

}  // namespace accelopt::platform::cpu
