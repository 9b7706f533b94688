// The verdict on one kernel: is it correct, how fast is it, and how close to the machine's limit.
// Every evaluation ends in exactly one Status; only kPassed may enter a beam or the memory.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.h"

namespace accelopt::kernel {

// Stored in databases by name; the numbers are fixed so that they never change meaning either.
enum class Status : uint8_t {
  kPassed = 0,
  kRejectedSource = 1,      // the source breaks a rule (header, entry point, forbidden construct)
  kCompileError = 2,        // the compiler failed, ran out of time or memory
  kRuntimeError = 3,        // crashed, exited, made a forbidden system call, left threads behind
  kTimeout = 4,             // a call ran past its deadline
  kIncorrectShape = 5,      // wrote outside its output buffers
  kIncorrectNumerical = 6,  // wrong values, non-finite values, changed inputs, stale results
  kRejectedPhysics = 7,     // faster than the roofline allows: it skipped work
  kEvaluationFailed = 8,    // no worker could evaluate it (remote workers: the reasons in message)
  // The machine was too busy to judge it: a compile, the reference or a runner's start-up ran out
  // of wall time on little CPU time, tries and retries alike. Not the kernel's failure: it enters
  // no beam, memory, fixer or failure count, and a later evaluation of the same source runs again.
  kMachineBusy = 9,
};

std::string_view status_name(Status status);  // "PASSED", "COMPILE_ERROR", ...
std::optional<Status> parse_status(std::string_view name);

struct Correctness {
  int seeds_checked = 0;
  double rel_l2_error = 0;  // the worst over outputs and seeds
  double max_abs_error = 0;
  double max_rel_error = 0;
  double tolerance = 0;
  double kernel_seconds = 0;  // the kernel's calls on those cases, wall time (CPU platform)
};

// How busy the machine was while the pairs' turns ran (platform/machine_load.h): the timing's
// context, so that a figure measured on a loaded machine can be told from one on a quiet one.
struct MachineLoad {
  double other_cores_busy = 0;       // share of the untimed cores' time spent busy (0 to 1)
  double steal = 0;                  // share of all cores' time the hypervisor gave elsewhere
  int64_t involuntary_switches = 0;  // times the sides' runners were preempted, both sides
  double waited_seconds = 0;         // waited for a quieter moment before the pairs
  bool busy = false;                 // over the thresholds: "measured while the machine was busy"
  // Share of the turns' wall time the runners waited for a core another process held; where known.
  std::optional<double> waited_for_core;
};

// ", waited for a core 12 % of the time" where the waits are known, else empty.
std::string waited_for_core_text(const MachineLoad& load);

struct Timing {
  std::string anchor;  // what the candidate was timed against, e.g. "baseline"
  double speedup = 0;  // anchor latency / candidate latency (median of pairs)
  double speedup_low = 0, speedup_high = 0;  // 95 % confidence interval
  double latency_seconds = 0;                // anchor's calibrated latency / speedup
  double latency_low = 0, latency_high = 0;
  double anchor_latency_seconds = 0;    // median per-call time of the anchor's turns
  double candidate_median_seconds = 0;  // median per-call time of the candidate's turns
  int pairs = 0;
  int candidate_calls_per_turn = 0, anchor_calls_per_turn = 0;
  bool converged = false;      // the interval reached its target before the budget ended
  double kernel_seconds = 0;   // wall time inside timed turns, both sides, warm-up included
  std::vector<double> ratios;  // candidate/anchor per pair, raw
  // Pairs not timed on CPU time although the sides' CPU time was known, because a turn spent more
  // of its time blocked off the CPU (sleeping, waiting on a lock) than noise explains: timed on
  // CPU plus blocked time (paired_timing.h). The name is from when it was the wall clock.
  int wall_clock_pairs = 0;
  // The median share of a side's pair turns spent blocked off the CPU: neither running nor waiting
  // for a core (with many threads: the threads' idle share of threads × wall time).
  double candidate_off_cpu = 0, anchor_off_cpu = 0;
  std::optional<MachineLoad> load;  // absent in records from before it was measured

  bool busy() const { return load && load->busy; }
};

struct RooflineScore {
  double mm_flops = 0, vec_flops = 0, bytes = 0;
  double peak_seconds = 0;     // max of the three ceilings' times
  double percent_of_peak = 0;  // 100 * peak_seconds / latency
  std::string bound;           // "fma", "vector" or "memory": the ceiling that binds
  double gflops = 0, gbytes_per_second = 0;
  double percent_fma = 0, percent_vector = 0, percent_memory = 0;
  // The binding ceiling timed again, interleaved with the turns so that it saw the machine the
  // latency saw (the CPU platform, for a run's baseline: EvalRequest::time_ceiling), in GFLOP/s or
  // GB/s; 0: the probe's ceilings alone. `ceiling_probe` is the probe's figure for the same one.
  double ceiling_alongside = 0, ceiling_probe = 0;
  int ceiling_samples = 0;
};

// Over 100 % of peak a kernel beat a ceiling that was measured: the ceiling is wrong, not the
// kernel fast. Every figure of % of peak shown anywhere carries this note when it is over 100.
inline constexpr std::string_view kOverCeiling = "over the measured ceiling: the ceiling is wrong";
// " (over the measured ceiling: the ceiling is wrong)" above 100 %, else empty.
std::string over_ceiling_note(double percent_of_peak);

// A latency to three significant digits, in the unit that keeps them: "9.79 µs", "10.0 µs",
// "4.21 ms", "1.50 s" (never "0.01 ms" for a 10 µs kernel).
std::string latency_text(double seconds);
// "10.0 µs (95% interval 9.79–10.1 µs)": the interval in the latency's own unit.
std::string latency_interval_text(double seconds, double low, double high);

// Where a queued evaluation was made (remote workers): the worker, the queue's job and its
// attempt, and why the earlier attempts ended ("; "-separated; empty unless it was redone).
struct RemoteEvaluation {
  std::string worker;
  int64_t job = 0;
  int attempt = 1;
  std::string earlier;
  bool redone() const { return attempt > 1; }
};

struct Verdict {
  Status status = Status::kPassed;
  std::string message;  // one or two plain sentences
  std::string log;      // trimmed diagnostics or kernel output, for a person or a fixer
  std::string task, workload, source_hash;
  Correctness correctness;
  std::optional<Timing> timing;
  std::optional<RooflineScore> roofline;
  Json profile = Json::object();  // vectorization remarks, instruction mix
  Json sandbox = Json::object();  // which measures were in force
  double compile_seconds = 0;
  double wall_seconds = 0;
  bool compile_cached = false;
  std::optional<RemoteEvaluation> remote;  // absent for a local evaluation

  bool passed() const { return status == Status::kPassed; }
  // Neither passed nor failed: the machine was too busy to say (Status::kMachineBusy).
  bool machine_busy() const { return status == Status::kMachineBusy; }
  // The kernel's failure: neither passed nor left unjudged by a busy machine.
  bool failed() const { return !passed() && !machine_busy(); }
  Json to_json() const;
  static Verdict from_json(const Json& json);
};

}  // namespace accelopt::kernel
