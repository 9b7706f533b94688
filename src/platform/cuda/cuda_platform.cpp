#include "platform/cuda/cuda_platform.h"

#include <fmt/format.h>

#include "common/error.h"
#include "common/files.h"
#include "common/subprocess.h"
#include "platform/checker.h"
#include "platform/cuda/case_tensors.h"
#include "platform/cuda/source_rules.h"
#include "platform/evaluation.h"
#include "platform/paired_timing.h"
#include "task/abi.h"

namespace accelopt::platform::cuda {
namespace {

using Milliseconds = std::chrono::milliseconds;

Status outcome_status(StepOutcome outcome) {
  return outcome == StepOutcome::kTimedOut ? Status::kTimeout : Status::kRuntimeError;
}

std::string tensor_name(const task::Task& task, size_t index) {
  return index < task.inputs.size()
             ? "input '" + task.inputs[index].name + "'"
             : "output '" + task.outputs[index - task.inputs.size()].name + "'";
}

// After FETCH: fences intact, inputs unchanged, outputs (decoded from their dtypes) equal to the
// reference's.
bool check_fetched(const task::Task& task, const SharedBuffers& buffers,
                   const ReferenceCase& reference_case, const std::string& when, Verdict& verdict) {
  if (auto damaged = buffers.damaged_canary()) {
    verdict.status = Status::kIncorrectShape;
    verdict.message = fmt::format("{}: the kernel wrote outside {} in device memory", when,
                                  tensor_name(task, *damaged));
    return false;
  }
  if (auto changed = changed_input(buffers, task, reference_case)) {
    verdict.status = Status::kIncorrectNumerical;
    verdict.message = fmt::format("{}: the kernel wrote into its {}; inputs are read-only", when,
                                  tensor_name(task, *changed));
    return false;
  }
  const task::InputSet* set =
      reference_case.set.empty() ? nullptr : &task.input_set(reference_case.set);
  std::vector<std::vector<float>> decoded;  // the outputs that are not float32, as floats
  std::vector<const float*> outputs = decoded_outputs(buffers, task, decoded);
  return record_output_check(check_outputs(task, set, outputs, reference_case.outputs), when,
                             verdict);
}

CudaRunnerOptions runner_options(const std::filesystem::path& program,
                                 const std::filesystem::path& library,
                                 const std::string& entry_point) {
  CudaRunnerOptions options;
  options.program = program;
  options.library = library;
  options.entry_point = entry_point;
  return options;
}

// A started runner and the buffers it calls on.
struct CudaKernel {
  CudaRunner& runner;
  SharedBuffers& buffers;
};

// One checked call: load the case, call once, fetch, check everything on this side. On failure the
// verdict holds the status and the message.
bool checked_call(CudaKernel kernel, const task::Task& task, const ReferenceCase& reference_case,
                  const std::string& when, Milliseconds timeout, Verdict& verdict) {
  stage_case(kernel.buffers, task, reference_case);
  for (int step = 0; step < 3; ++step) {
    StepResult result = step == 0   ? kernel.runner.load(timeout)
                        : step == 1 ? kernel.runner.call(1, timeout)
                                    : kernel.runner.fetch(timeout);
    if (result.outcome != StepOutcome::kDone) {
      verdict.status = outcome_status(result.outcome);
      verdict.message = when + ": " + result.message;
      return false;
    }
  }
  return check_fetched(task, kernel.buffers, reference_case, when, verdict);
}

// The CUDA platform's side of paired timing (platform/paired_timing.h): two runner processes, the
// idle one SIGSTOPped; a turn is k calls, each after an L2 flush, timed by CUDA events. Every
// eighth turn of a side is followed by a full check on the next seed (a kernel that replays old
// answers is caught); the check is outside the events, so it costs the timing nothing.
class CudaTurns : public PairedTurns {
 public:
  CudaTurns(const task::Task& task, const std::vector<ReferenceCase>& cases, CudaKernel candidate,
            CudaKernel anchor, std::string anchor_name, Milliseconds timeout)
      : task_(task),
        cases_(cases),
        candidate_(candidate),
        anchor_(anchor),
        anchor_name_(std::move(anchor_name)),
        timeout_(timeout) {
    candidate_.runner.pause();
    anchor_.runner.pause();
  }

  TurnResult run_turn(Side side, int calls) override {
    bool is_candidate = side == Side::kCandidate;
    CudaKernel& kernel = is_candidate ? candidate_ : anchor_;
    kernel.runner.resume();
    StepResult call = kernel.runner.call(calls, timeout_ * calls);
    kernel.runner.pause();
    TurnResult result;
    result.seconds = call.event_seconds;
    std::optional<TurnFailure> failure;
    if (call.outcome != StepOutcome::kDone) {
      failure = TurnFailure{outcome_status(call.outcome), "while timing: " + call.message};
    } else if (call.event_seconds > call.wall_seconds * 1.05 + 1e-3 || call.event_seconds <= 0) {
      // Events are read inside the kernel's process; the wall clock here bounds them.
      failure = TurnFailure{
          Status::kRuntimeError,
          fmt::format("while timing: the runner reported {:.6g} s of kernel time in {:.6g} s of "
                      "wall time",
                      call.event_seconds, call.wall_seconds)};
    } else {
      failure = check_now_and_then(side);
    }
    if (failure && !is_candidate) {
      throw UserError("the anchor kernel (" + anchor_name_ + ") failed: " + failure->message);
    }
    result.failure = std::move(failure);
    return result;
  }

 private:
  std::optional<TurnFailure> check_now_and_then(Side side) {
    bool is_candidate = side == Side::kCandidate;
    int& turns = is_candidate ? candidate_turns_ : anchor_turns_;
    size_t& case_index = is_candidate ? candidate_case_ : anchor_case_;
    if (++turns % 8 != 0) return std::nullopt;
    case_index = (case_index + 1) % cases_.size();
    const ReferenceCase& reference_case = cases_[case_index];
    CudaKernel& kernel = is_candidate ? candidate_ : anchor_;
    Verdict verdict;
    kernel.runner.resume();
    bool ok = checked_call(kernel, task_, reference_case,
                           fmt::format("after timed turn {} (seed {})", turns, reference_case.seed),
                           timeout_, verdict);
    kernel.runner.pause();
    if (ok) return std::nullopt;
    return TurnFailure{verdict.status, verdict.message};
  }

  const task::Task& task_;
  const std::vector<ReferenceCase>& cases_;
  CudaKernel candidate_, anchor_;
  std::string anchor_name_;
  Milliseconds timeout_;
  int candidate_turns_ = 0, anchor_turns_ = 0;
  size_t candidate_case_ = 0, anchor_case_ = 0;
};

std::filesystem::path find_probe_program() {
  if (const char* path = std::getenv("ACCELOPT_GPU_PROBE"); path && *path) return path;
  std::error_code error;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error && std::filesystem::exists(self.parent_path() / "accelopt-gpu-probe")) {
    return self.parent_path() / "accelopt-gpu-probe";
  }
#ifdef ACCELOPT_GPU_PROBE_BUILD_PATH
  if (std::filesystem::exists(ACCELOPT_GPU_PROBE_BUILD_PATH)) return ACCELOPT_GPU_PROBE_BUILD_PATH;
#endif
  throw UserError("accelopt-gpu-probe was not built (configure with nvcc present)");
}

}  // namespace

std::optional<std::string> cuda_unavailable_reason() {
  if (!find_nvcc()) return "no nvcc (scripts/setup.sh --cuda installs it)";
  auto runner = find_cuda_runner_program();
  if (!runner) return "accelopt-cuda-runner was not built (the CUDA toolkit was not found)";
  // The runner answers FAIL without a device; a one-byte buffer is enough to ask.
  SharedBuffers buffers({4});
  CudaRunner probe(runner_options(*runner, "/dev/null", "kernel"), buffers);
  if (auto failure = probe.start()) {
    if (failure->find("no CUDA device") != std::string::npos) return *failure;
  }
  return std::nullopt;
}

GpuCeilings probe_gpu() {
  TempDir scratch("accelopt-gpu-probe");
  SpawnOptions probe;
  probe.argv = {find_probe_program().string()};
  probe.environment = clean_environment(scratch.path());
  CommandResult result = run_command(probe, std::chrono::milliseconds(300000));
  if (!result.status.exited || result.status.exit_code != 0) {
    throw UserError("accelopt-gpu-probe " + result.status.describe() + ": " + result.output);
  }
  return parse_gpu_probe(result.output);
}

CudaPlatform::CudaPlatform(CudaPlatformOptions options, GpuCeilings ceilings,
                           ReferenceCases reference_cases)
    : options_(std::move(options)),
      ceilings_(std::move(ceilings)),
      reference_cases_(std::move(reference_cases)),
      compiler_(options_.nvcc) {
  if (options_.runner.empty()) {
    auto runner = find_cuda_runner_program();
    if (!runner) throw UserError("accelopt-cuda-runner was not built (no CUDA toolkit found)");
    options_.runner = *runner;
  }
}

Verdict CudaPlatform::evaluate(const EvalRequest& request) {
  const task::Task& task = *request.task;
  require_cuda_dtypes(task);
  const task::Workload& workload = task.workload_or_default(request.workload);
  VerdictStart started(request, workload);
  Verdict& verdict = started.verdict;
  verdict.profile["platform"] = "cuda";
  verdict.profile["device"] = ceilings_.to_json();

  if (!request.trusted) {
    if (auto rejection = check_cuda_source(request.source, task.entry_point)) {
      return started.finish(Status::kRejectedSource, *rejection);
    }
  }
  std::string header = task::generate_kernel_header(task, workload);
  NvccResult compiled = compiler_.compile(
      request.source, header, request.trusted ? request.extra_flags : std::vector<std::string>{},
      /*checked=*/!request.trusted);
  verdict.compile_seconds = compiled.seconds;
  verdict.compile_cached = compiled.cached;
  verdict.sandbox["compiler_isolated"] = compiler_.isolated();
  if (compiled.rejection) {
    verdict.log = compiled.diagnostics;
    return started.finish(Status::kRejectedSource, *compiled.rejection);
  }
  if (!compiled.ok) {
    verdict.log = compiled.diagnostics;
    return started.finish(Status::kCompileError, compiled.timed_out
                                                     ? compiled.diagnostics
                                                     : "the kernel does not compile (see the log)");
  }

  std::vector<ReferenceCase> cases;
  try {
    cases = reference_cases_(task, workload);
  } catch (const MachineBusy& busy) {  // the CPU's reference: not the kernel's failure
    return started.finish(Status::kMachineBusy, busy.what());
  }
  Milliseconds timeout = options_.call_timeout;
  SharedBuffers buffers(buffer_sizes(task, workload));
  CudaRunnerOptions candidate_options =
      runner_options(options_.runner, compiled.library, task.entry_point);
  candidate_options.call_before_sandbox = request.trusted;
  candidate_options.abandon = request.abandon;
  CudaRunner candidate(candidate_options, buffers);
  if (auto failure = candidate.start()) {
    verdict.log = candidate.output();
    bool missing_entry = failure->find("does not define") != std::string::npos;
    return started.finish(missing_entry ? Status::kRejectedSource : Status::kRuntimeError,
                          "the kernel could not be loaded: " + *failure);
  }
  verdict.sandbox.update(candidate.sandbox());

  for (const ReferenceCase& reference_case : cases) {
    if (!checked_call({candidate, buffers}, task, reference_case,
                      "seed " + std::to_string(reference_case.seed), timeout, verdict)) {
      verdict.log = candidate.output();
      return started.finish(verdict.status, "");
    }
    ++verdict.correctness.seeds_checked;
  }
  verdict.log = candidate.output();
  if (!request.measure_time)
    return started.finish(Status::kPassed, "correct on every case (not timed)");

  std::string anchor_source =
      request.anchor_source.empty() ? read_file(task.baseline_path()) : request.anchor_source;
  NvccResult anchor_compiled = compiler_.compile(anchor_source, header);
  if (!anchor_compiled.ok) {
    throw UserError("the anchor kernel (" + request.anchor_name + ") does not compile:\n" +
                    anchor_compiled.diagnostics);
  }
  SharedBuffers anchor_buffers(buffer_sizes(task, workload));
  stage_case(anchor_buffers, task, cases.front());
  CudaRunnerOptions anchor_options =
      runner_options(options_.runner, anchor_compiled.library, task.entry_point);
  anchor_options.abandon = request.abandon;
  CudaRunner anchor(anchor_options, anchor_buffers);
  if (auto failure = anchor.start()) {
    throw UserError("the anchor kernel (" + request.anchor_name + ") cannot run: " + *failure);
  }
  if (anchor.load(timeout).outcome != StepOutcome::kDone) {
    throw UserError("the anchor kernel (" + request.anchor_name + ") cannot load its inputs");
  }

  CudaTurns turns(task, cases, {candidate, buffers}, {anchor, anchor_buffers}, request.anchor_name,
                  timeout);
  PairedTiming paired = time_paired(turns, request.timing, request.anchor_name);
  if (paired.failure) {
    verdict.log = candidate.output();
    return started.finish(paired.failure->status, paired.failure->message);
  }
  verdict.timing = std::move(paired.timing);
  return finish_timed(started, task, workload, ceilings_.to_peaks().for_task(task), "this GPU");
}

}  // namespace accelopt::platform::cuda
