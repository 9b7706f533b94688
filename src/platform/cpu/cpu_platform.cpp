#include "platform/cpu/cpu_platform.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "common/error.h"
#include "common/files.h"
#include "common/hash.h"
#include "platform/cpu/checker.h"
#include "platform/cpu/inputs.h"
#include "platform/cpu/profile.h"
#include "platform/cpu/runner.h"
#include "platform/cpu/shared_buffers.h"
#include "platform/cpu/source_check.h"
#include "platform/statistics.h"
#include "task/abi.h"

namespace accelopt::platform::cpu {
namespace {

using Clock = std::chrono::steady_clock;
using Milliseconds = std::chrono::milliseconds;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::vector<size_t> buffer_sizes(const task::Task& task, const task::Workload& workload) {
  std::vector<size_t> sizes;
  for (const auto* list : {&task.inputs, &task.outputs}) {
    for (const task::TensorSpec& tensor : *list) {
      sizes.push_back(static_cast<size_t>(task.element_count(tensor, workload)) *
                      task::dtype_size(tensor.dtype));
    }
  }
  return sizes;
}

std::vector<int> runner_cpus(int threads) {
  if (threads <= 1) return {timing_cpu()};
  std::vector<int> cpus;
  for (int cpu = 0; cpu < threads; ++cpu) cpus.push_back(cpu);
  return cpus;
}

// Puts a case's inputs in place and NaN in every output, and re-arms the fences.
void load_case(SharedBuffers& buffers, const task::Task& task,
               const ReferenceCase& reference_case) {
  for (size_t i = 0; i < task.inputs.size(); ++i) {
    std::memcpy(buffers.data(i), reference_case.inputs[i].data(), buffers.size(i));
  }
  for (size_t i = task.inputs.size(); i < buffers.count(); ++i) {
    std::fill_n(buffers.floats(i), buffers.size(i) / sizeof(float),
                std::numeric_limits<float>::quiet_NaN());
  }
  buffers.fill_canaries();
}

Status outcome_status(CallOutcome outcome) {
  return outcome == CallOutcome::kTimedOut ? Status::kTimeout : Status::kRuntimeError;
}

std::string tensor_name(const task::Task& task, size_t index) {
  return index < task.inputs.size()
             ? "input '" + task.inputs[index].name + "'"
             : "output '" + task.outputs[index - task.inputs.size()].name + "'";
}

// Everything a call must leave true, checked after every call: no fence damaged, inputs unchanged,
// no thread left behind, and outputs equal to the reference's. Fills `verdict` on the first
// failure.
bool check_call(const task::Task& task, const SharedBuffers& buffers, const Runner& runner,
                const ReferenceCase& reference_case, const std::string& when, Verdict& verdict) {
  if (auto damaged = buffers.damaged_canary()) {
    verdict.status = Status::kIncorrectShape;
    verdict.message =
        fmt::format("{}: the kernel wrote outside {} (past its end or before its start)", when,
                    tensor_name(task, *damaged));
    return false;
  }
  for (size_t i = 0; i < task.inputs.size(); ++i) {
    if (std::memcmp(buffers.data(i), reference_case.inputs[i].data(), buffers.size(i)) != 0) {
      verdict.status = Status::kIncorrectNumerical;
      verdict.message = fmt::format("{}: the kernel wrote into its {}; inputs are read-only", when,
                                    tensor_name(task, i));
      return false;
    }
  }
  int threads = runner.thread_count();
  if (threads > task.threads) {
    verdict.status = Status::kRuntimeError;
    verdict.message = fmt::format(
        "{}: the kernel left {} thread(s) running after it returned (the task allows {} thread(s))",
        when, threads - 1, task.threads);
    return false;
  }
  std::vector<const float*> outputs;
  for (size_t o = 0; o < task.outputs.size(); ++o) {
    outputs.push_back(buffers.floats(task.inputs.size() + o));
  }
  const task::InputSet* set =
      reference_case.set.empty() ? nullptr : &task.input_set(reference_case.set);
  OutputCheck check = check_outputs(task, set, outputs, reference_case.outputs);
  Correctness& c = verdict.correctness;
  c.rel_l2_error = std::max(c.rel_l2_error, check.rel_l2_error);
  c.max_abs_error = std::max(c.max_abs_error, check.max_abs_error);
  c.max_rel_error = std::max(c.max_rel_error, check.max_rel_error);
  if (!check.ok) {
    verdict.status = Status::kIncorrectNumerical;
    verdict.message = when + ": " + check.message;
    return false;
  }
  return true;
}

}  // namespace

CpuPlatform::CpuPlatform(CpuPlatformOptions options, MachinePeaks peaks)
    : options_(std::move(options)),
      peaks_(std::move(peaks)),
      compiler_(options_.compiler),
      runner_program_(find_runner_program()) {}

std::vector<ReferenceCase> CpuPlatform::reference_cases(const task::Task& task,
                                                        const task::Workload& workload,
                                                        std::vector<uint64_t> seeds) {
  return run_reference(task, workload,
                       seeds.empty() ? correctness_cases(task) : chosen_cases(seeds));
}

std::vector<ReferenceCase> CpuPlatform::run_reference(const task::Task& task,
                                                      const task::Workload& workload,
                                                      const std::vector<CaseSpec>& specs) {
  require_float32(task);
  std::string reference_source = read_file(task.reference_path());
  std::string header = task::generate_kernel_header(task, workload);
  CompileResult compiled = compiler_.compile(reference_source, header, task.compile_flags);
  if (!compiled.ok) {
    throw UserError(task.reference_path().string() + " does not compile:\n" + compiled.diagnostics);
  }
  SharedBuffers buffers(buffer_sizes(task, workload));
  RunnerOptions runner_options;
  runner_options.program = runner_program_;
  runner_options.library = compiled.library;
  runner_options.entry_point = task.entry_point;
  runner_options.threads = task.threads;
  runner_options.cpus = runner_cpus(task.threads);
  runner_options.memory_bytes = options_.memory_bytes;
  runner_options.seccomp = options_.seccomp;
  Runner runner(runner_options, buffers);
  if (auto failure = runner.start()) {
    throw UserError("the reference of task " + task.name + " cannot run: " + *failure);
  }

  std::vector<ReferenceCase> cases;
  for (const CaseSpec& spec : specs) {
    ReferenceCase reference_case;
    reference_case.seed = spec.seed;
    reference_case.set = spec.set;
    reference_case.label = spec.label;
    const task::InputSet* set = spec.set.empty() ? nullptr : &task.input_set(spec.set);
    reference_case.inputs = generate_inputs(task, workload, spec.seed, set);
    load_case(buffers, task, reference_case);
    CallResult call = runner.call(1, options_.reference_timeout);
    if (call.outcome != CallOutcome::kDone) {
      throw UserError("the reference of task " + task.name + " failed on " + spec.label + ": " +
                      call.message + "\n" + runner.output());
    }
    reference_case.reference_seconds = call.seconds;
    for (size_t o = 0; o < task.outputs.size(); ++o) {
      size_t index = task.inputs.size() + o;
      const float* values = buffers.floats(index);
      reference_case.outputs.emplace_back(values, values + buffers.size(index) / sizeof(float));
    }
    cases.push_back(std::move(reference_case));
  }
  return cases;
}

Verdict CpuPlatform::evaluate(const EvalRequest& request) {
  auto start = Clock::now();
  const task::Task& task = *request.task;
  require_float32(task);
  const task::Workload& workload = task.workload_or_default(request.workload);
  Verdict verdict;
  verdict.task = task.name;
  verdict.workload = workload.name;
  verdict.source_hash = sha256_hex(request.source);
  verdict.correctness.tolerance = task.rel_l2_tolerance;
  auto finish = [&](Status status, std::string message) {
    verdict.status = status;
    if (!message.empty()) verdict.message = std::move(message);
    verdict.wall_seconds = seconds_since(start);
    return verdict;
  };

  if (auto rejection = check_kernel_source(request.source, task.entry_point);
      rejection && !request.trusted) {
    return finish(Status::kRejectedSource, *rejection);
  }
  std::string header = task::generate_kernel_header(task, workload);
  std::vector<std::string> flags = task.compile_flags;
  if (request.trusted) flags.insert(flags.end(), request.extra_flags.begin(), request.extra_flags.end());
  CompileResult compiled = compiler_.compile(request.source, header, flags);
  verdict.compile_seconds = compiled.seconds;
  verdict.compile_cached = compiled.cached;
  if (!compiled.ok) {
    verdict.log = compiled.diagnostics;
    return finish(Status::kCompileError, compiled.timed_out
                                             ? compiled.diagnostics
                                             : "the kernel does not compile (see the log)");
  }

  // Fresh secret seeds for every evaluation: see inputs.h.
  std::vector<ReferenceCase> cases = run_reference(task, workload, correctness_cases(task));
  double reference_seconds = 0;
  for (const ReferenceCase& reference_case : cases) {
    reference_seconds = std::max(reference_seconds, reference_case.reference_seconds);
  }
  Milliseconds call_timeout = std::max(
      options_.call_timeout, Milliseconds(static_cast<int64_t>(reference_seconds * 10 * 1000)));

  SharedBuffers buffers(buffer_sizes(task, workload));
  RunnerOptions runner_options;
  runner_options.program = runner_program_;
  runner_options.library = compiled.library;
  runner_options.entry_point = task.entry_point;
  runner_options.threads = task.threads;
  runner_options.cpus = runner_cpus(task.threads);
  runner_options.memory_bytes = options_.memory_bytes;
  runner_options.seccomp = options_.seccomp;
  runner_options.call_while_loading = request.trusted;
  Runner candidate(runner_options, buffers);
  if (auto failure = candidate.start()) {
    verdict.log = candidate.output();
    bool missing_entry = failure->find("does not define") != std::string::npos;
    return finish(missing_entry ? Status::kRejectedSource : Status::kRuntimeError,
                  "the kernel could not be loaded: " + *failure);
  }
  verdict.sandbox = candidate.sandbox();

  for (const ReferenceCase& reference_case : cases) {
    load_case(buffers, task, reference_case);
    CallResult call = candidate.call(1, call_timeout);
    const std::string& when = reference_case.label;
    if (call.outcome != CallOutcome::kDone) {
      verdict.log = candidate.output();
      return finish(outcome_status(call.outcome), when + ": " + call.message);
    }
    if (!check_call(task, buffers, candidate, reference_case, when, verdict)) {
      verdict.log = candidate.output();
      return finish(verdict.status, "");
    }
    ++verdict.correctness.seeds_checked;
  }
  verdict.log = candidate.output();
  if (!request.measure_time) return finish(Status::kPassed, "correct on every case (not timed)");

  // The anchor: the task's baseline unless the caller names another kernel (a parent, say).
  std::string anchor_source =
      request.anchor_source.empty() ? read_file(task.baseline_path()) : request.anchor_source;
  CompileResult anchor_compiled = compiler_.compile(anchor_source, header, task.compile_flags);
  if (!anchor_compiled.ok) {
    throw UserError("the anchor kernel (" + request.anchor_name + ") does not compile:\n" +
                    anchor_compiled.diagnostics);
  }
  SharedBuffers anchor_buffers(buffer_sizes(task, workload));
  load_case(anchor_buffers, task, cases.front());
  RunnerOptions anchor_options = runner_options;
  anchor_options.library = anchor_compiled.library;
  anchor_options.call_while_loading = false;
  Runner anchor(anchor_options, anchor_buffers);
  if (auto failure = anchor.start()) {
    throw UserError("the anchor kernel (" + request.anchor_name + ") cannot run: " + *failure);
  }

  const TimingOptions& timing_options = request.timing;
  candidate.pause();
  anchor.pause();
  double timed_seconds = 0;
  // One turn: wake one side, run k calls, put it back to sleep. The other side stays stopped.
  auto turn = [&](Runner& runner, int calls, std::string& failure,
                  Status& failure_status) -> double {
    runner.resume();
    CallResult call = runner.call(calls, call_timeout * calls);
    runner.pause();
    timed_seconds += call.seconds;
    if (call.outcome != CallOutcome::kDone) {
      failure = call.message;
      failure_status = outcome_status(call.outcome);
      return -1;
    }
    return call.seconds / calls;
  };
  auto calibrate = [&](Runner& runner, std::string& failure, Status& failure_status) -> int {
    // The first call pays for page faults and cold caches; it must not set the pace.
    if (turn(runner, 1, failure, failure_status) < 0) return -1;
    int calls = 1;
    for (int attempt = 0; attempt < 12; ++attempt) {
      double per_call = turn(runner, calls, failure, failure_status);
      if (per_call < 0) return -1;
      if (per_call * calls >= timing_options.min_turn_seconds) return calls;
      int needed = static_cast<int>(
          std::ceil(timing_options.min_turn_seconds * 1.2 / std::max(per_call, 1e-9)));
      calls = std::clamp(needed, calls + 1, calls * 64);
    }
    return calls;
  };

  Timing timing;
  timing.anchor = request.anchor_name;
  std::string failure;
  Status failure_status = Status::kRuntimeError;
  size_t case_index = 0;
  load_case(buffers, task, cases[case_index]);
  int candidate_calls = calibrate(candidate, failure, failure_status);
  if (candidate_calls < 0) return finish(failure_status, "while timing: " + failure);
  int anchor_calls = calibrate(anchor, failure, failure_status);
  if (anchor_calls < 0) {
    throw UserError("the anchor kernel (" + request.anchor_name +
                    ") failed while timing: " + failure);
  }
  timing.candidate_calls_per_turn = candidate_calls;
  timing.anchor_calls_per_turn = anchor_calls;
  for (int warmup = 0; warmup < timing_options.warmup_turns; ++warmup) {
    if (turn(candidate, candidate_calls, failure, failure_status) < 0) {
      return finish(failure_status, "while timing: " + failure);
    }
    turn(anchor, anchor_calls, failure, failure_status);
  }

  std::vector<double> candidate_times, anchor_times;
  auto timing_start = Clock::now();
  for (int pair = 0; pair < timing_options.max_pairs; ++pair) {
    // New inputs every pair, checked after the turn: a kernel that replays old answers is caught.
    // Timed turns use the task's own distributions only (the first task.seeds cases): edge-case
    // inputs such as denormals would change the speed being measured.
    case_index = (case_index + 1) % static_cast<size_t>(task.seeds);
    load_case(buffers, task, cases[case_index]);
    double candidate_time = 0, anchor_time = 0;
    bool candidate_first = pair % 2 == 0;
    for (int side = 0; side < 2; ++side) {
      bool candidate_turn = (side == 0) == candidate_first;
      if (candidate_turn) {
        candidate_time = turn(candidate, candidate_calls, failure, failure_status);
        if (candidate_time < 0) return finish(failure_status, "while timing: " + failure);
        std::string when =
            fmt::format("after timed turn {} ({})", pair + 1, cases[case_index].label);
        if (!check_call(task, buffers, candidate, cases[case_index], when, verdict)) {
          if (verdict.status == Status::kIncorrectNumerical &&
              verdict.message.find("into its") == std::string::npos) {
            verdict.message +=
                "; the kernel was correct before timing, so it may be returning "
                "results cached from earlier calls";
          }
          return finish(verdict.status, "");
        }
      } else {
        anchor_time = turn(anchor, anchor_calls, failure, failure_status);
        if (anchor_time < 0) {
          throw UserError("the anchor kernel (" + request.anchor_name +
                          ") failed while timing: " + failure);
        }
      }
    }
    candidate_times.push_back(candidate_time);
    anchor_times.push_back(anchor_time);
    timing.ratios.push_back(candidate_time / anchor_time);
    if (static_cast<int>(timing.ratios.size()) >= timing_options.min_pairs) {
      MedianInterval ratio = median_interval(timing.ratios);
      double half_width =
          std::max(ratio.median - ratio.low, ratio.high - ratio.median) / ratio.median;
      if (half_width <= timing_options.target_half_width) {
        timing.converged = true;
        break;
      }
      if (seconds_since(timing_start) > timing_options.budget_seconds) break;
    }
  }

  MedianInterval ratio = median_interval(timing.ratios);
  timing.pairs = static_cast<int>(timing.ratios.size());
  timing.kernel_seconds = timed_seconds;
  timing.anchor_latency_seconds = median(anchor_times);
  timing.candidate_median_seconds = median(candidate_times);
  timing.speedup = 1 / ratio.median;
  timing.speedup_low = 1 / ratio.high;
  timing.speedup_high = 1 / ratio.low;
  timing.latency_seconds = timing.anchor_latency_seconds * ratio.median;
  timing.latency_low = timing.anchor_latency_seconds * ratio.low;
  timing.latency_high = timing.anchor_latency_seconds * ratio.high;
  verdict.timing = timing;

  verdict.roofline = score_roofline(task.roofline_counts(workload), peaks_, timing.latency_seconds);
  if (options_.profile) {
    verdict.profile["vectorization"] = vectorization_report(compiled.remarks);
    verdict.profile["instruction_mix"] = instruction_mix(compiled.library);
  }
  const RooflineScore& score = *verdict.roofline;
  verdict.profile["latency_seconds"] = timing.latency_seconds;
  verdict.profile["gflops"] = score.gflops;
  verdict.profile["gbytes_per_second"] = score.gbytes_per_second;
  verdict.profile["percent_fma"] = score.percent_fma;
  verdict.profile["percent_vector"] = score.percent_vector;
  verdict.profile["percent_memory"] = score.percent_memory;
  verdict.profile["bound"] = score.bound;
  if (timing.latency_seconds * options_.physics_margin < score.peak_seconds) {
    return finish(
        Status::kRejectedPhysics,
        fmt::format("measured {:.4g} ms, but this machine cannot do this work in less than "
                    "{:.4g} ms ({} bound): the kernel must be skipping work",
                    timing.latency_seconds * 1e3, score.peak_seconds * 1e3, score.bound));
  }
  return finish(
      Status::kPassed,
      fmt::format("correct on {} cases; {:.3f}x the {} [{:.3f}, {:.3f}], {:.1f} % of peak",
                  verdict.correctness.seeds_checked, timing.speedup, timing.anchor,
                  timing.speedup_low, timing.speedup_high, score.percent_of_peak));
}

}  // namespace accelopt::platform::cpu
