#include "platform/cpu/cpu_platform.h"

#include <fmt/format.h>
#include <malloc.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <future>
#include <mutex>
#include <thread>

#include "common/error.h"
#include "common/files.h"
#include "common/hash.h"
#include "platform/core_sets.h"
#include "platform/cpu/inputs.h"
#include "platform/cpu/profile.h"
#include "platform/cpu/source_check.h"
#include "platform/evaluation.h"
#include "platform/python_reference.h"
#include "task/abi.h"

namespace accelopt::platform::cpu {
namespace {

using Milliseconds = std::chrono::milliseconds;

// The byte size of every buffer of `layout`, from one slot's `sizes` (inputs, then outputs).
std::vector<size_t> slot_sizes(const std::vector<size_t>& sizes, const SlotLayout& layout) {
  std::vector<size_t> all;
  for (int slot = 0; slot < layout.slots; ++slot) all.insert(all.end(), sizes.begin(), sizes.end());
  return all;
}

std::vector<int> runner_cpus(int threads) {
  if (threads <= 1) return {timing_cpu()};
  std::vector<int> allowed = allowed_cpus();
  allowed.resize(std::min(allowed.size(), static_cast<size_t>(threads)));
  return allowed;
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
  int most_calls_per_turn() const override { return turns_.most_calls_per_turn(); }
  void begin_timed_turns() override { turns_.begin_timed_turns(); }
  std::optional<double> seconds_per_call_before(Side side) const override {
    return turns_.seconds_per_call_before(side);
  }

 private:
  PairedTurns& turns_;
  CeilingSampler* sampler_;
};

Status outcome_status(CallOutcome outcome) {
  if (outcome == CallOutcome::kMachineBusy) return Status::kMachineBusy;
  return outcome == CallOutcome::kTimedOut ? Status::kTimeout : Status::kRuntimeError;
}

// The cases of the timed turns' pool from the task's own distributions: one more than the slots a
// turn fills, up to 4. The edge-case families' come beside them (timing_cases).
size_t timing_pool_size(const SlotLayout& layout) {
  return static_cast<size_t>(std::min(layout.slots, 3) + 1);
}
size_t timing_pool_cases(const task::Task& task, const SlotLayout& layout) {
  return timing_pool_size(layout) + 1 + task.input_sets.size();
}

// The most bytes of pool drawn beside the correctness cases rather than after them.
constexpr uint64_t kPoolAlongsideBytes = 1ull << 30;

// What the cases of `task`'s `workload` depend on: the definition (shapes, distributions, sets,
// seeds), the reference and the kernel's header, so an edited task never meets cases kept for
// what it was.
std::string case_key(const task::Task& task, const task::Workload& workload) {
  return sha256_hex(task.directory.string() + '\n' + task.definition.dump() + '\n' + workload.name +
                    '\n' + read_file(task.reference_path()) + '\n' +
                    task::generate_kernel_header(task, workload));
}

}  // namespace

// The cores of one evaluation's timing, marked busy while it lasts so that compiles keep off them:
// this process's (timing_now_) and every other's (mark_timing).
class TimingOn {
 public:
  TimingOn(CpuPlatform& platform, std::vector<int> cores)
      : platform_(platform), cores_(std::move(cores)), mark_(mark_timing(cores_)) {
    std::lock_guard lock(platform_.timing_mutex_);
    platform_.timing_now_.insert(cores_.begin(), cores_.end());
  }
  ~TimingOn() {
    std::lock_guard lock(platform_.timing_mutex_);
    for (int core : cores_) platform_.timing_now_.erase(platform_.timing_now_.find(core));
  }
  TimingOn(const TimingOn&) = delete;
  TimingOn& operator=(const TimingOn&) = delete;

 private:
  CpuPlatform& platform_;
  std::vector<int> cores_;
  CoreClaim mark_;
};

std::vector<int> CpuPlatform::compile_cores(const std::vector<int>& cores) const {
  std::vector<int> untimed;
  {
    std::lock_guard lock(timing_mutex_);
    for (int core : allowed_cpus()) {
      if (timing_now_.count(core) == 0) untimed.push_back(core);
    }
  }
  // Nor where an evaluation of another process times now (core_sets.h), while a core is left.
  if (std::vector<int> free = untimed_cores(untimed); !free.empty()) return free;
  if (!untimed.empty()) return untimed;
  return cores;
}

CpuPlatform::CpuPlatform(CpuPlatformOptions options, MachinePeaks peaks)
    : options_(std::move(options)),
      peaks_(std::move(peaks)),
      compiler_(options_.compiler),
      runner_program_(find_runner_program()),
      kept_cases_(options_.case_cache_bytes),
      buffer_shelf_(options_.buffer_shelf_bytes) {
  // The harness allocates and frees tensors of tens of megabytes per case and per check; glibc
  // maps each such block afresh and unmaps it when freed, so every one paid a page fault per
  // page (a fifth of an evaluation on a CPU workload, `perf record`). Kept in the heap instead,
  // a freed block is reused as it is. Process-wide and idempotent.
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

std::vector<ReferenceCase> CpuPlatform::reference_cases(const task::Task& task,
                                                        const task::Workload& workload,
                                                        std::vector<uint64_t> seeds) {
  bool public_seeds = !seeds.empty();
  return run_reference(task, workload, public_seeds ? chosen_cases(seeds) : correctness_cases(task),
                       nullptr, {}, public_seeds);
}

SharedConstants CpuPlatform::constant_inputs(const task::Task& task,
                                             const task::Workload& workload) {
  if (!has_constant_inputs(task)) return nullptr;
  std::lock_guard lock(constants_mutex_);  // a second evaluation waits for the first's draw
  std::string key = case_key(task, workload);
  if (SharedConstants kept = kept_cases_.constants(key)) return kept;
  auto drawn =
      std::make_shared<const ConstantInputs>(draw_constant_inputs(task, workload, secret_seed()));
  kept_cases_.keep_constants(key, drawn);
  return drawn;
}

// The reference's runner and the buffers it calls on, for as long as answers are wanted: the
// compiled reference.cpp in a runner, or reference.py through its driver (python_reference.h).
class ReferenceRunner {
 public:
  ReferenceRunner(const task::Task& task, const std::vector<size_t>& sizes, RunnerOptions options,
                  std::chrono::milliseconds timeout)
      : task_(task), buffers_(sizes), timeout_(timeout) {
    runner_.emplace(std::move(options), buffers_);
    if (auto failure = runner_->start()) {
      std::string message = "the reference of task " + task.name + " cannot run: " + *failure;
      if (runner_->start_was_busy()) throw MachineBusy(message);
      throw UserError(message);
    }
  }
  ReferenceRunner(const task::Task& task, std::unique_ptr<PythonReference> python)
      : task_(task), buffers_({}), python_(std::move(python)) {}

  // Fills `reference_case`'s outputs (and reference_seconds, answer_seconds) from its inputs.
  // `public_seed`: the case's seed was chosen by a person, so a Python reference's answer may be
  // kept.
  void answer(ReferenceCase& reference_case, bool public_seed = false) {
    auto started = std::chrono::steady_clock::now();
    if (python_) {
      python_->answer(reference_case, public_seed);
    } else {
      load_case(buffers_, task_, reference_case);
      call_and_read(reference_case);
    }
    reference_case.answer_seconds = seconds_since(started);
  }

  // The same for inputs that lie elsewhere (a timed slot's), written straight into the reference's
  // buffers; `answer`'s outputs are overwritten in place, so a case reused for answer after answer
  // allocates nothing (fresh pages cost more than the copy on these machines, docs/harness.md).
  void answer(const std::vector<std::span<const unsigned char>>& inputs, ReferenceCase& answer) {
    auto started = std::chrono::steady_clock::now();
    if (python_) {
      python_->answer(inputs, answer);
    } else {
      SlotLayout layout = single_slot(task_);
      for (size_t i = 0; i < inputs.size(); ++i) {
        if (inputs[i].size() != buffers_.size(layout.input(0, i))) {
          throw InternalError("the reference's input " + task_.inputs[i].name +
                              " has the wrong size");
        }
        std::memcpy(buffers_.data(layout.input(0, i)), inputs[i].data(), inputs[i].size());
      }
      clear_outputs(buffers_, task_, layout, 0);
      buffers_.fill_canaries();
      call_and_read(answer);
      // Asked for between two timed turns: none of its lines stays cached for the next.
      for (size_t i = 0; i < buffers_.count(); ++i) {
        evict_from_caches(buffers_.data(i), buffers_.size(i));
      }
    }
    answer.answer_seconds = seconds_since(started);
  }

  // From now on `flag` (the request's) stops the reference, not the flag it started with.
  void abandon_when(const std::atomic<bool>* flag) {
    if (python_) {
      python_->abandon_when(flag);
    } else {
      runner_->abandon_when(flag);
    }
  }

 private:
  static double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  // Calls the reference on the inputs in its buffers; its outputs into `answer`'s, in place.
  void call_and_read(ReferenceCase& answer) {
    CallResult call = runner_->call(1, timeout_);
    if (call.outcome != CallOutcome::kDone) {
      std::string message = "the reference of task " + task_.name + " failed on " + answer.label +
                            ": " + call.message;
      if (call.outcome == CallOutcome::kMachineBusy) throw MachineBusy(message);
      throw UserError(message + "\n" + runner_->output());
    }
    answer.reference_seconds = call.seconds;
    answer.outputs.resize(task_.outputs.size());
    for (size_t o = 0; o < task_.outputs.size(); ++o) {
      size_t index = task_.inputs.size() + o;
      task::DType dtype = task_.outputs[o].dtype;
      answer.outputs[o].resize(buffers_.size(index) / task::dtype_size(dtype));
      task::decode_values(dtype, buffers_.data(index), answer.outputs[o].size(),
                          answer.outputs[o].data());
    }
  }

  const task::Task& task_;
  SharedBuffers buffers_;
  std::optional<Runner> runner_;
  std::chrono::milliseconds timeout_{0};
  std::unique_ptr<PythonReference> python_;
};

std::unique_ptr<ReferenceRunner> CpuPlatform::start_reference(const task::Task& task,
                                                              const task::Workload& workload,
                                                              const std::atomic<bool>* abandon,
                                                              const std::vector<int>& cores) {
  require_supported_dtypes(task);
  if (task.python_reference) {
    PythonReferenceOptions python;
    python.call_timeout = options_.reference_timeout;
    python.cpus = cores.empty() ? runner_cpus(1) : cores;
    python.abandon = abandon;
    return std::make_unique<ReferenceRunner>(
        task, std::make_unique<PythonReference>(task, workload, std::move(python)));
  }
  std::string reference_source = read_file(task.reference_path());
  std::string header = task::generate_kernel_header(task, workload);
  CompileResult compiled =
      compiler_.compile(reference_source, header, task.compile_flags, SourceTrust::kAgentKernel,
                        [&] { return compile_cores(cores); });
  if (compiled.machine_busy) {
    throw MachineBusy("compiling " + task.reference_path().string() + ": " + compiled.diagnostics);
  }
  if (!compiled.ok) {
    throw UserError(task.reference_path().string() + " does not compile:\n" + compiled.diagnostics);
  }
  return std::make_unique<ReferenceRunner>(task, buffer_sizes(task, workload),
                                           runner_options(task, compiled.library, abandon, cores),
                                           options_.reference_timeout);
}

namespace {

// The reference's answers for `specs`, each case's inputs drawn here from its seed, its constant
// inputs `constants` where given.
std::vector<ReferenceCase> answer_cases(ReferenceRunner& reference, const task::Task& task,
                                        const task::Workload& workload,
                                        const std::vector<CaseSpec>& specs,
                                        const SharedConstants& constants,
                                        bool public_seeds = false) {
  std::vector<ReferenceCase> cases;
  for (const CaseSpec& spec : specs) {
    ReferenceCase reference_case;
    reference_case.seed = spec.seed;
    reference_case.set = spec.set;
    reference_case.label = spec.label;
    const task::InputSet* set = spec.set.empty() ? nullptr : &task.input_set(spec.set);
    reference_case.inputs =
        generate_inputs(task, workload, spec.seed, set, spec.variation, constants.get());
    reference.answer(reference_case, public_seeds);
    cases.push_back(std::move(reference_case));
  }
  return cases;
}

}  // namespace

std::vector<ReferenceCase> CpuPlatform::run_reference(
    const task::Task& task, const task::Workload& workload, const std::vector<CaseSpec>& specs,
    const std::atomic<bool>* abandon, const std::vector<int>& cores, bool public_seeds) {
  std::unique_ptr<ReferenceRunner> reference = start_reference(task, workload, abandon, cores);
  // Seeds a person chose make the same cases every time, constant inputs included.
  SharedConstants constants = public_seeds ? nullptr : constant_inputs(task, workload);
  return answer_cases(*reference, task, workload, specs, constants, public_seeds);
}

std::vector<SharedCase> CpuPlatform::correctness_answers(
    const task::Task& task, const task::Workload& workload, const std::atomic<bool>* stop,
    const std::vector<int>& cores, std::unique_ptr<ReferenceRunner>* answered_by) {
  std::string key = case_key(task, workload);
  std::vector<CaseSpec> specs = correctness_cases(task);
  std::unique_ptr<ReferenceRunner> reference = start_reference(task, workload, stop, cores);
  SharedConstants constants = constant_inputs(task, workload);
  std::optional<CaseCache::Kept> kept = kept_cases_.cases(key);
  if (kept && kept->cases.size() == specs.size()) {
    // The renewed case keeps its place, and so its kind (a seed of the task's own, or a set's).
    std::vector<ReferenceCase> fresh =
        answer_cases(*reference, task, workload, {specs[kept->renew]}, constants);
    auto renewed = std::make_shared<const ReferenceCase>(std::move(fresh.front()));
    kept->cases[kept->renew] = renewed;
    kept_cases_.renewed(key, kept->renew, std::move(renewed));
    if (answered_by) *answered_by = std::move(reference);
    return kept->cases;
  }
  std::vector<SharedCase> cases;
  for (ReferenceCase& answered : answer_cases(*reference, task, workload, specs, constants)) {
    cases.push_back(std::make_shared<const ReferenceCase>(std::move(answered)));
  }
  kept_cases_.keep_cases(key, cases);
  if (answered_by) *answered_by = std::move(reference);
  return cases;
}

RunnerOptions CpuPlatform::runner_options(const task::Task& task,
                                          const std::filesystem::path& library,
                                          const std::atomic<bool>* abandon,
                                          const std::vector<int>& cores) const {
  RunnerOptions options;
  options.abandon = abandon;
  options.program = runner_program_;
  options.library = library;
  options.entry_point = task.entry_point;
  options.threads = task.threads;
  options.cpus = cores.empty() ? runner_cpus(task.threads) : cores;
  options.memory_bytes = options_.memory_bytes;
  options.seccomp = options_.seccomp;
  return options;
}

namespace {

// The reference's answers to the correctness cases, computed on a thread of their own. The runner
// that answered them stays for the timed turns' checks, as long as that thread, which spawned it
// (a child dies with its spawning thread, subprocess.h): until this is dropped. Stopped and
// waited for when dropped unasked (the candidate failed to compile), so that nothing outlives the
// evaluation.
class ReferenceAlongside {
 public:
  using Answer = std::function<std::vector<SharedCase>(const std::atomic<bool>* stop,
                                                       std::unique_ptr<ReferenceRunner>& runner)>;
  explicit ReferenceAlongside(Answer answer)
      : thread_([this, answer = std::move(answer)] { run(answer); }) {}
  ReferenceAlongside(const ReferenceAlongside&) = delete;
  ReferenceAlongside& operator=(const ReferenceAlongside&) = delete;
  ~ReferenceAlongside() {
    stop_ = true;
    {
      std::lock_guard lock(mutex_);
      dropped_ = true;
    }
    dropped_signal_.notify_all();
    thread_.join();
  }

  // Waits for them; `abandon` (the request's) stops the reference as it would have before.
  std::vector<SharedCase> answers(const std::atomic<bool>* abandon) {
    while (answers_.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready) {
      if (abandon && *abandon) stop_ = true;
    }
    return answers_.get();
  }
  // The runner that answered them, once answers() returned, until this is dropped; null if none.
  ReferenceRunner* runner() const { return runner_.get(); }

 private:
  void run(const Answer& answer) {
    try {
      promised_.set_value(answer(&stop_, runner_));
    } catch (...) {
      promised_.set_exception(std::current_exception());
    }
    std::unique_lock lock(mutex_);
    dropped_signal_.wait(lock, [&] { return dropped_; });
    runner_.reset();
  }

  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::condition_variable dropped_signal_;
  bool dropped_ = false;
  std::unique_ptr<ReferenceRunner> runner_;
  std::promise<std::vector<SharedCase>> promised_;
  std::future<std::vector<SharedCase>> answers_ = promised_.get_future();
  std::thread thread_;  // last: it starts once the rest exists
};

}  // namespace

Verdict CpuPlatform::evaluate(const EvalRequest& request) {
  try {
    return evaluate_unguarded(request);
  } catch (const MachineBusy& busy) {
    // The reference or the anchor could not finish: the candidate was not judged.
    VerdictStart started(request, request.task->workload_or_default(request.workload));
    return started.finish(Status::kMachineBusy, busy.what());
  }
}

Verdict CpuPlatform::evaluate_unguarded(const EvalRequest& asked) {
  const task::Task& task = *asked.task;
  require_supported_dtypes(task);
  // A timed evaluation's cores are held against every other evaluation on this machine, this
  // process's or another's: a second `accelopt eval` times on another core, not on the same one.
  EvalRequest request = asked;
  CoreClaim claim;
  if (request.measure_time) {
    claim = claim_cores(request.cores.empty() ? runner_cpus(task.threads) : request.cores,
                        allowed_cpus());
    request.cores = claim.cores();
  }
  const task::Workload& workload = task.workload_or_default(request.workload);
  VerdictStart started(request, workload);
  Verdict& verdict = started.verdict;

  if (auto rejection = check_kernel_source(request.source, task.entry_point);
      rejection && !request.trusted) {
    return started.finish(Status::kRejectedSource, *rejection);
  }
  std::string header = task::generate_kernel_header(task, workload);
  // Secret seeds, at least one case drawn afresh for every evaluation: see inputs.h and
  // case_cache.h. The cases and the reference's answers need nothing from the candidate, so they
  // are made while it compiles (the compiler runs on the cores no timing holds, the reference on
  // the evaluation's own). The runner that answers them stays for the timed turns' checks: one
  // reference process and one set of its buffers per evaluation (new pages cost dearly on these
  // machines, docs/harness.md "Round five").
  ReferenceAlongside reference(
      [&](const std::atomic<bool>* stop, std::unique_ptr<ReferenceRunner>& runner) {
        return correctness_answers(task, workload, stop, request.cores, &runner);
      });
  std::optional<CompileResult> compiled = compile_candidate(request, header, verdict);
  if (!compiled) return started.finish(verdict.status, "");
  std::vector<size_t> sizes = buffer_sizes(task, workload);
  SlotLayout layout = timing_layout(task, sizes);
  // The timed turns' pool is drawn here while the reference answers the correctness cases,
  // unless its cases are large enough to matter beside theirs (the MoE's are 1.4 GB each).
  SharedPool pool;
  uint64_t set_bytes = 0;
  for (size_t i = 0; i < task.inputs.size(); ++i) set_bytes += sizes[i];
  if (request.measure_time && set_bytes * timing_pool_cases(task, layout) <= kPoolAlongsideBytes) {
    pool = timing_pool(task, workload, layout);
  }
  std::vector<SharedCase> cases = reference.answers(request.abandon);
  if (reference.runner()) reference.runner()->abandon_when(request.abandon);
  double reference_seconds = 0, answer_seconds = 0;
  for (const SharedCase& reference_case : cases) {
    reference_seconds = std::max(reference_seconds, reference_case->reference_seconds);
    answer_seconds = std::max(answer_seconds, reference_case->answer_seconds);
  }
  Milliseconds call_timeout = std::max(
      options_.call_timeout, Milliseconds(static_cast<int64_t>(reference_seconds * 10 * 1000)));

  BuffersOnLoan loan(buffer_shelf_, slot_sizes(sizes, layout));  // outlives every runner below
  SharedBuffers& buffers = loan.buffers();
  RunnerOptions candidate_options =
      runner_options(task, compiled->library, request.abandon, request.cores);
  candidate_options.call_while_loading = request.trusted;
  candidate_options.slots = layout;
  Runner candidate(candidate_options, buffers);
  if (!load_candidate(task, candidate, verdict)) return started.finish(verdict.status, "");
  double compare_seconds = 0;
  if (!check_correctness(task, cases, buffers, candidate, layout, call_timeout, verdict,
                         compare_seconds)) {
    return started.finish(verdict.status, "");
  }
  if (!request.measure_time)
    return started.finish(Status::kPassed, "correct on every case (not timed)");
  // Timing needs only how long the reference took: cases no longer kept (case_cache.h) go back
  // to the heap, where the timed turns' pool and checks reuse them.
  cases.clear();

  // Before a check of a timed call was measured, it is taken to cost what the correctness check
  // did: the reference's whole answer, and the comparison on both sides.
  TurnChecks turn_checks{reference.runner(), answer_seconds + 2 * compare_seconds};
  std::optional<CeilingAlongside> alongside;
  if (std::optional<TurnFailure> failure =
          time_against_anchor(request, header, turn_checks, std::move(pool), layout,
                              {candidate, buffers}, call_timeout, verdict, alongside)) {
    return started.finish(failure->status, failure->message);
  }
  // Where the turns ran, and whether no other evaluation could time there meanwhile.
  verdict.profile["timed_cores"] = request.cores;
  verdict.profile["timed_cores_held"] = claim.held();
  if (options_.profile) {
    verdict.profile["vectorization"] = vectorization_report(compiled->remarks, request.source);
    verdict.profile["instruction_mix"] = instruction_mix(compiled->library);
  }
  return finish_timed(started, task, workload, peaks_.for_task(task), "this machine's CPU",
                      alongside);
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
  CompileResult compiled = compiler_.compile(request.source, header, flags, trust,
                                             [&] { return compile_cores(request.cores); });
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
  if (compiled.machine_busy) {
    verdict.status = Status::kMachineBusy;
    verdict.message = compiled.diagnostics;
    return std::nullopt;
  }
  verdict.status = Status::kCompileError;
  verdict.message =
      compiled.timed_out ? compiled.diagnostics : "the kernel does not compile (see the log)";
  return std::nullopt;
}

bool CpuPlatform::load_candidate(const task::Task& task, Runner& candidate, Verdict& verdict) {
  if (auto failure = candidate.start()) {
    verdict.log = candidate.output();
    bool missing_entry = failure->find("does not define") != std::string::npos;
    verdict.status = missing_entry ? Status::kRejectedSource : Status::kRuntimeError;
    if (candidate.start_was_busy()) verdict.status = Status::kMachineBusy;
    verdict.message = "the kernel could not be loaded: " + *failure;
    return false;
  }
  verdict.sandbox.update(candidate.sandbox());
  // A thread started while loading (threads may still be made then) is there before the first
  // call; the harness counts from outside, as after every call.
  if (int threads = candidate.thread_count();
      candidate.sandbox().value("thread_limit", false) && threads > task.threads) {
    verdict.status = Status::kRuntimeError;
    verdict.message = fmt::format(
        "the kernel left {} thread(s) running before the call, started while it loaded (the task "
        "allows {} thread(s))",
        threads - 1, task.threads);
    return false;
  }
  return true;
}

bool CpuPlatform::check_correctness(const task::Task& task, const std::vector<SharedCase>& cases,
                                    SharedBuffers& buffers, Runner& candidate,
                                    const SlotLayout& layout, Milliseconds call_timeout,
                                    Verdict& verdict, double& compare_seconds) {
  compare_seconds = 0;
  size_t per_turn = static_cast<size_t>(std::max(layout.slots, 1));
  size_t per_slot = layout.inputs + layout.outputs;
  for (size_t first = 0; first < cases.size(); first += per_turn) {
    std::vector<const ReferenceCase*> turn;
    for (size_t i = first; i < std::min(cases.size(), first + per_turn); ++i) {
      turn.push_back(cases[i].get());
    }
    load_cases_as_turn(buffers, task, layout, turn);
    int calls = static_cast<int>(turn.size());
    candidate.resume();
    CallResult call = candidate.turn(calls, call_timeout * calls);
    verdict.correctness.kernel_seconds += call.seconds;
    verdict.log = candidate.output();
    if (call.outcome == CallOutcome::kWroteInput) {
      record_input_write(task, buffers, layout, call.input_written, 0, turn.size() * per_slot,
                         turn[std::min(call.input_written / per_slot, turn.size() - 1)]->label,
                         verdict);
      return false;
    }
    if (call.outcome != CallOutcome::kDone) {
      std::string which = calls == 1
                              ? turn.front()->label
                              : fmt::format("cases {} to {}", first + 1, first + turn.size());
      verdict.status = outcome_status(call.outcome);
      verdict.message = which + ": " + call.message;
      return false;
    }
    if (!check_cases_of_turn(task, buffers, candidate, layout, turn, verdict, compare_seconds)) {
      return false;
    }
  }
  return true;
}

SlotLayout CpuPlatform::timing_layout(const task::Task& task,
                                      const std::vector<size_t>& sizes) const {
  SlotLayout layout = single_slot(task);
  uint64_t set_bytes = 0;
  for (size_t bytes : sizes) set_bytes += bytes;
  // A slot per call: small workloads get up to `slots` (a turn of a fast kernel is then that many
  // calls: 1024 silu small calls of 1 us); large ones as many as slot_bytes holds, at least one.
  uint64_t fit = options_.slot_bytes / std::max<uint64_t>(set_bytes, 1);
  layout.slots = static_cast<int>(std::clamp<uint64_t>(fit, 1, std::max(1, options_.slots)));
  return layout;
}

SharedPool CpuPlatform::timing_pool(const task::Task& task, const task::Workload& workload,
                                    const SlotLayout& layout) {
  std::string key = case_key(task, workload);
  if (SharedPool kept = kept_cases_.pool(key)) return kept;
  SharedConstants constants = constant_inputs(task, workload);
  std::vector<ReferenceCase> pool;
  for (const CaseSpec& spec : timing_cases(task, static_cast<int>(timing_pool_size(layout)))) {
    ReferenceCase pool_case;
    pool_case.label = spec.label;
    pool_case.set = spec.set;
    const task::InputSet* set = spec.set.empty() ? nullptr : &task.input_set(spec.set);
    pool_case.inputs =
        generate_inputs(task, workload, spec.seed, set, spec.variation, constants.get());
    pool.push_back(std::move(pool_case));
  }
  auto drawn = std::make_shared<const std::vector<ReferenceCase>>(std::move(pool));
  kept_cases_.keep_pool(key, drawn);
  return drawn;
}

std::optional<TurnFailure> CpuPlatform::time_against_anchor(
    const EvalRequest& request, const std::string& header, TurnChecks checks, SharedPool pool,
    const SlotLayout& layout, TimedKernel candidate, Milliseconds call_timeout, Verdict& verdict,
    std::optional<CeilingAlongside>& alongside) {
  const task::Task& task = *request.task;
  // The anchor: the task's baseline unless the caller names another kernel (a parent, say).
  std::string baseline_source = read_file(task.baseline_path());
  std::string anchor_source =
      request.anchor_source.empty() ? baseline_source : request.anchor_source;
  CompileResult anchor_compiled =
      compiler_.compile(anchor_source, header, task.compile_flags, SourceTrust::kAgentKernel,
                        [&] { return compile_cores(request.cores); });
  if (anchor_compiled.machine_busy) {
    throw MachineBusy("compiling the anchor kernel (" + request.anchor_name +
                      "): " + anchor_compiled.diagnostics);
  }
  if (!anchor_compiled.ok) {
    throw UserError("the anchor kernel (" + request.anchor_name + ") does not compile:\n" +
                    anchor_compiled.diagnostics);
  }
  // The anchor calls on the candidate's buffers (runner_turns.h says why that is safe): the same
  // physical pages for both, so where the memory happens to lie cannot favour a side.
  RunnerOptions anchor_options =
      runner_options(task, anchor_compiled.library, request.abandon, request.cores);
  anchor_options.slots = layout;
  Runner anchor(anchor_options, candidate.buffers);
  if (auto failure = anchor.start()) {
    std::string message = "the anchor kernel (" + request.anchor_name + ") cannot run: " + *failure;
    if (anchor.start_was_busy()) throw MachineBusy(message);
    throw UserError(message);
  }
  // Timed turns run on fresh inputs mixed from a pool of their own (runner_turns.h), never the
  // correctness cases, and are checked against the reference kept running beside them.
  const task::Workload& workload = task.workload_or_default(request.workload);
  std::unique_ptr<ReferenceRunner> started_here;
  ReferenceRunner* reference = checks.reference;
  if (reference == nullptr) {
    started_here = start_reference(task, workload, request.abandon, request.cores);
    reference = started_here.get();
  }
  TurnReference turn_reference;
  turn_reference.pool = pool ? std::move(pool) : timing_pool(task, workload, layout);
  turn_reference.workload = &workload;
  turn_reference.answer = [&](const std::vector<std::span<const unsigned char>>& inputs,
                              ReferenceCase& answer) { reference->answer(inputs, answer); };
  turn_reference.seconds_per_check = checks.seconds_per_check;
  std::vector<int> timed = request.cores.empty() ? runner_cpus(task.threads) : request.cores;
  // The baseline's answers witness the candidate's; a kernel an agent wrote (a parent, or the
  // candidate itself) could share its faults, so against one the reference checks as much as
  // before.
  bool witness_trusted = anchor_source == baseline_source;
  RunnerTurns turns(task, std::move(turn_reference), layout, candidate, {anchor, candidate.buffers},
                    request.anchor_name, call_timeout, timed, witness_trusted);
  if (options_.in_place_bytes) turns.set_in_place_bytes(*options_.in_place_bytes);
  if (options_.check_shares) turns.set_check_shares(*options_.check_shares);
  if (verdict.correctness.seeds_checked > 0) {
    turns.set_candidate_seconds_per_call_before(verdict.correctness.kernel_seconds /
                                                verdict.correctness.seeds_checked);
  }
  turns.set_least_timed_turns(request.timing.warmup_turns + request.timing.min_pairs);
  TimingOn timing(*this, timed);
  // The ceiling that binds the task, sampled after every anchor turn on the same core (one-core
  // tasks: the probe's ceilings are one core's).
  std::optional<CeilingSampler> sampler;
  if (request.time_ceiling && task.threads <= 1 && !peaks_.empty()) {
    task::RooflineCounts counts = task.roofline_counts(workload);
    sampler.emplace(score_roofline(counts, peaks_.for_task(task), 1.0).bound, counts.bytes,
                    timed.front(), 0.004, peaks_.matrix_ceiling_is_bf16_dot(task));
  }
  CeilingBetweenTurns sampled(turns, sampler ? &*sampler : nullptr);
  PairedTiming paired = time_paired(sampled, request.timing, request.anchor_name);
  if (paired.failure) return paired.failure;
  verdict.timing = std::move(paired.timing);
  if (sampler && sampler->result().value > 0) alongside = sampler->result();
  return std::nullopt;
}

}  // namespace accelopt::platform::cpu
