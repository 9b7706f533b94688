#include "platform/cpu/cpu_platform.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "common/error.h"
#include "common/files.h"
#include "platform/cpu/inputs.h"
#include "platform/cpu/profile.h"
#include "platform/cpu/source_check.h"
#include "platform/evaluation.h"
#include "task/abi.h"

namespace accelopt::platform::cpu {
namespace {

using Milliseconds = std::chrono::milliseconds;

// The byte size of every buffer of `layout`, from one slot's `sizes` (inputs, then outputs).
std::vector<size_t> slot_sizes(const std::vector<size_t>& sizes, const SlotLayout& layout) {
  std::vector<size_t> all(layout.buffers());
  for (int slot = 0; slot < layout.input_slots; ++slot) {
    for (size_t i = 0; i < layout.inputs; ++i) all[layout.input(slot, i)] = sizes[i];
  }
  for (int slot = 0; slot < layout.output_slots; ++slot) {
    for (size_t o = 0; o < layout.outputs; ++o) {
      all[layout.output(slot, o)] = sizes[layout.inputs + o];
    }
  }
  return all;
}

std::vector<int> runner_cpus(int threads) {
  if (threads <= 1) return {timing_cpu()};
  std::vector<int> cpus;
  for (int cpu = 0; cpu < threads; ++cpu) cpus.push_back(cpu);
  return cpus;
}

// The platform's turns, with a ceiling sample after each (EvalRequest::time_ceiling): both runners
// are stopped then, so the sample has the timed core as a turn has it. After every turn of either
// side, so that each side's turns follow the same work (the next turn's inputs are written after
// the sample, as always).
class CeilingBetweenTurns : public PairedTurns {
 public:
  CeilingBetweenTurns(PairedTurns& turns, CeilingSampler* sampler)
      : turns_(turns), sampler_(sampler) {}
  TurnResult run_turn(Side side, int calls) override {
    TurnResult result = turns_.run_turn(side, calls);
    if (sampler_ != nullptr && !result.failure) sampler_->sample();
    return result;
  }
  std::vector<int> timed_cores() const override { return turns_.timed_cores(); }

 private:
  PairedTurns& turns_;
  CeilingSampler* sampler_;
};

Status outcome_status(CallOutcome outcome) {
  return outcome == CallOutcome::kTimedOut ? Status::kTimeout : Status::kRuntimeError;
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

// The reference's runner and the buffers it calls on, for as long as answers are wanted.
class ReferenceRunner {
 public:
  ReferenceRunner(const task::Task& task, const std::vector<size_t>& sizes, RunnerOptions options,
                  std::chrono::milliseconds timeout)
      : task_(task), buffers_(sizes), runner_(std::move(options), buffers_), timeout_(timeout) {
    if (auto failure = runner_.start()) {
      throw UserError("the reference of task " + task.name + " cannot run: " + *failure);
    }
  }

  // Fills `reference_case`'s outputs (and reference_seconds) from its inputs.
  void answer(ReferenceCase& reference_case) {
    load_case(buffers_, task_, reference_case);
    CallResult call = runner_.call(1, timeout_);
    if (call.outcome != CallOutcome::kDone) {
      throw UserError("the reference of task " + task_.name + " failed on " + reference_case.label +
                      ": " + call.message + "\n" + runner_.output());
    }
    reference_case.reference_seconds = call.seconds;
    reference_case.outputs.clear();
    for (size_t o = 0; o < task_.outputs.size(); ++o) {
      size_t index = task_.inputs.size() + o;
      const float* values = buffers_.floats(index);
      reference_case.outputs.emplace_back(values, values + buffers_.size(index) / sizeof(float));
    }
  }

 private:
  const task::Task& task_;
  SharedBuffers buffers_;
  Runner runner_;
  std::chrono::milliseconds timeout_;
};

std::unique_ptr<ReferenceRunner> CpuPlatform::start_reference(const task::Task& task,
                                                              const task::Workload& workload,
                                                              const std::atomic<bool>* abandon) {
  require_float32(task);
  std::string reference_source = read_file(task.reference_path());
  std::string header = task::generate_kernel_header(task, workload);
  CompileResult compiled = compiler_.compile(reference_source, header, task.compile_flags);
  if (!compiled.ok) {
    throw UserError(task.reference_path().string() + " does not compile:\n" + compiled.diagnostics);
  }
  return std::make_unique<ReferenceRunner>(task, buffer_sizes(task, workload),
                                           runner_options(task, compiled.library, abandon),
                                           options_.reference_timeout);
}

std::vector<ReferenceCase> CpuPlatform::run_reference(const task::Task& task,
                                                      const task::Workload& workload,
                                                      const std::vector<CaseSpec>& specs,
                                                      const std::atomic<bool>* abandon) {
  std::unique_ptr<ReferenceRunner> reference = start_reference(task, workload, abandon);
  std::vector<ReferenceCase> cases;
  for (const CaseSpec& spec : specs) {
    ReferenceCase reference_case;
    reference_case.seed = spec.seed;
    reference_case.set = spec.set;
    reference_case.label = spec.label;
    const task::InputSet* set = spec.set.empty() ? nullptr : &task.input_set(spec.set);
    reference_case.inputs = generate_inputs(task, workload, spec.seed, set);
    reference->answer(reference_case);
    cases.push_back(std::move(reference_case));
  }
  return cases;
}

RunnerOptions CpuPlatform::runner_options(const task::Task& task,
                                          const std::filesystem::path& library,
                                          const std::atomic<bool>* abandon) const {
  RunnerOptions options;
  options.abandon = abandon;
  options.program = runner_program_;
  options.library = library;
  options.entry_point = task.entry_point;
  options.threads = task.threads;
  options.cpus = runner_cpus(task.threads);
  options.memory_bytes = options_.memory_bytes;
  options.seccomp = options_.seccomp;
  return options;
}

Verdict CpuPlatform::evaluate(const EvalRequest& request) {
  const task::Task& task = *request.task;
  require_float32(task);
  const task::Workload& workload = task.workload_or_default(request.workload);
  VerdictStart started(request, workload);
  Verdict& verdict = started.verdict;

  if (auto rejection = check_kernel_source(request.source, task.entry_point);
      rejection && !request.trusted) {
    return started.finish(Status::kRejectedSource, *rejection);
  }
  std::string header = task::generate_kernel_header(task, workload);
  std::optional<CompileResult> compiled = compile_candidate(request, header, verdict);
  if (!compiled) return started.finish(verdict.status, "");

  // Fresh secret seeds for every evaluation: see inputs.h.
  std::vector<ReferenceCase> cases =
      run_reference(task, workload, correctness_cases(task), request.abandon);
  double reference_seconds = 0;
  for (const ReferenceCase& reference_case : cases) {
    reference_seconds = std::max(reference_seconds, reference_case.reference_seconds);
  }
  Milliseconds call_timeout = std::max(
      options_.call_timeout, Milliseconds(static_cast<int64_t>(reference_seconds * 10 * 1000)));

  std::vector<size_t> sizes = buffer_sizes(task, workload);
  SlotLayout layout = timing_layout(task, sizes);
  SharedBuffers buffers(slot_sizes(sizes, layout));
  RunnerOptions candidate_options = runner_options(task, compiled->library, request.abandon);
  candidate_options.call_while_loading = request.trusted;
  candidate_options.slots = layout;
  Runner candidate(candidate_options, buffers);
  if (!load_candidate(candidate, verdict)) return started.finish(verdict.status, "");
  if (!check_correctness(task, cases, buffers, candidate, call_timeout, verdict)) {
    return started.finish(verdict.status, "");
  }
  if (!request.measure_time)
    return started.finish(Status::kPassed, "correct on every case (not timed)");

  std::optional<CeilingAlongside> alongside;
  if (std::optional<TurnFailure> failure = time_against_anchor(
          request, header, cases, layout, {candidate, buffers}, call_timeout, verdict, alongside)) {
    return started.finish(failure->status, failure->message);
  }
  if (options_.profile) {
    verdict.profile["vectorization"] = vectorization_report(compiled->remarks);
    verdict.profile["instruction_mix"] = instruction_mix(compiled->library);
  }
  return finish_timed(started, task, workload, peaks_, "this machine's CPU", alongside);
}

std::optional<CompileResult> CpuPlatform::compile_candidate(const EvalRequest& request,
                                                            const std::string& header,
                                                            Verdict& verdict) {
  std::vector<std::string> flags = request.task->compile_flags;
  SourceTrust trust = SourceTrust::kAgentKernel;
  if (request.trusted) {
    flags.insert(flags.end(), request.extra_flags.begin(), request.extra_flags.end());
    trust = SourceTrust::kTrustedLibrary;
  }
  CompileResult compiled = compiler_.compile(request.source, header, flags, trust);
  verdict.compile_seconds = compiled.seconds;
  verdict.compile_cached = compiled.cached;
  verdict.sandbox["compiler_isolated"] = compiler_.isolated();
  if (compiled.rejection) {
    verdict.status = Status::kRejectedSource;
    verdict.message = *compiled.rejection;
    return std::nullopt;
  }
  if (compiled.ok) return compiled;
  verdict.log = compiled.diagnostics;
  verdict.status = Status::kCompileError;
  verdict.message =
      compiled.timed_out ? compiled.diagnostics : "the kernel does not compile (see the log)";
  return std::nullopt;
}

bool CpuPlatform::load_candidate(Runner& candidate, Verdict& verdict) {
  if (auto failure = candidate.start()) {
    verdict.log = candidate.output();
    bool missing_entry = failure->find("does not define") != std::string::npos;
    verdict.status = missing_entry ? Status::kRejectedSource : Status::kRuntimeError;
    verdict.message = "the kernel could not be loaded: " + *failure;
    return false;
  }
  verdict.sandbox.update(candidate.sandbox());
  return true;
}

bool CpuPlatform::check_correctness(const task::Task& task, const std::vector<ReferenceCase>& cases,
                                    SharedBuffers& buffers, Runner& candidate,
                                    Milliseconds call_timeout, Verdict& verdict) {
  for (const ReferenceCase& reference_case : cases) {
    load_case(buffers, task, reference_case);
    CallResult call = candidate.call(1, call_timeout);
    const std::string& when = reference_case.label;
    bool correct = call.outcome == CallOutcome::kDone &&
                   check_call(task, buffers, candidate, reference_case, when, verdict);
    if (call.outcome != CallOutcome::kDone) {
      verdict.status = outcome_status(call.outcome);
      verdict.message = when + ": " + call.message;
    }
    verdict.log = candidate.output();
    if (!correct) return false;
    ++verdict.correctness.seeds_checked;
  }
  return true;
}

SlotLayout CpuPlatform::timing_layout(const task::Task& task,
                                      const std::vector<size_t>& sizes) const {
  SlotLayout layout = single_slot(task);
  uint64_t input_bytes = 0, output_bytes = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    (i < layout.inputs ? input_bytes : output_bytes) += sizes[i];
  }
  input_bytes = std::max<uint64_t>(input_bytes, 1);
  output_bytes = std::max<uint64_t>(output_bytes, 1);
  // Every slot a turn sweeps is cache a kernel loses: the copies add at most one set's bytes (half
  // of it to inputs), so a turn's footprint at most doubles (benchmarks/turn_checks measures what
  // that costs), but always a second slot of each kind within slot_bytes.
  int most_inputs = std::max(1, std::min(options_.input_slots, task.seeds));
  int most_outputs = std::max(1, options_.output_slots);
  if (input_bytes + output_bytes > options_.slot_bytes) return layout;
  auto fit = [](uint64_t wanted, int most) {
    return static_cast<int>(std::min<uint64_t>(std::max<uint64_t>(wanted, 2), most));
  };
  uint64_t budget = input_bytes + output_bytes;
  layout.input_slots = fit(1 + budget / 2 / input_bytes, most_inputs);
  budget -= std::min(budget, (layout.input_slots - 1) * input_bytes);
  layout.output_slots = fit(1 + budget / output_bytes, most_outputs);
  return layout;
}

std::optional<TurnFailure> CpuPlatform::time_against_anchor(
    const EvalRequest& request, const std::string& header, const std::vector<ReferenceCase>& cases,
    const SlotLayout& layout, TimedKernel candidate, Milliseconds call_timeout, Verdict& verdict,
    std::optional<CeilingAlongside>& alongside) {
  const task::Task& task = *request.task;
  // The anchor: the task's baseline unless the caller names another kernel (a parent, say).
  std::string anchor_source =
      request.anchor_source.empty() ? read_file(task.baseline_path()) : request.anchor_source;
  CompileResult anchor_compiled = compiler_.compile(anchor_source, header, task.compile_flags);
  if (!anchor_compiled.ok) {
    throw UserError("the anchor kernel (" + request.anchor_name + ") does not compile:\n" +
                    anchor_compiled.diagnostics);
  }
  // The anchor calls on the candidate's buffers (runner_turns.h says why that is safe): the same
  // physical pages for both, so where the memory happens to lie cannot favour a side.
  RunnerOptions anchor_options = runner_options(task, anchor_compiled.library, request.abandon);
  anchor_options.slots = layout;
  Runner anchor(anchor_options, candidate.buffers);
  if (auto failure = anchor.start()) {
    throw UserError("the anchor kernel (" + request.anchor_name + ") cannot run: " + *failure);
  }
  // Timed turns run on fresh inputs mixed from a pool of their own (runner_turns.h), never the
  // correctness cases, and are checked against a reference kept running beside them.
  const task::Workload& workload = task.workload_or_default(request.workload);
  std::unique_ptr<ReferenceRunner> reference = start_reference(task, workload, request.abandon);
  TurnReference turn_reference;
  for (const CaseSpec& spec : timing_cases(task, layout.input_slots + 1)) {
    ReferenceCase pool_case;
    pool_case.label = spec.label;
    pool_case.inputs = generate_inputs(task, workload, spec.seed);
    turn_reference.pool.push_back(std::move(pool_case));
  }
  turn_reference.outputs = [&](ReferenceCase& reference_case) {
    reference->answer(reference_case);
  };
  for (const ReferenceCase& reference_case : cases) {
    turn_reference.seconds_per_case =
        std::max(turn_reference.seconds_per_case, reference_case.reference_seconds);
  }
  RunnerTurns turns(task, std::move(turn_reference), layout, candidate, {anchor, candidate.buffers},
                    request.anchor_name, call_timeout, runner_cpus(task.threads));
  // The ceiling that binds the task, sampled after every anchor turn on the same core (one-core
  // tasks: the probe's ceilings are one core's).
  std::optional<CeilingSampler> sampler;
  if (request.time_ceiling && task.threads <= 1 && !peaks_.empty()) {
    task::RooflineCounts counts = task.roofline_counts(workload);
    sampler.emplace(score_roofline(counts, peaks_, 1.0).bound, counts.bytes, timing_cpu());
  }
  CeilingBetweenTurns sampled(turns, sampler ? &*sampler : nullptr);
  PairedTiming paired = time_paired(sampled, request.timing, request.anchor_name);
  if (paired.failure) return paired.failure;
  verdict.timing = std::move(paired.timing);
  if (sampler && sampler->result().value > 0) alongside = sampler->result();
  return std::nullopt;
}

}  // namespace accelopt::platform::cpu
