#include "search/beam_search.h"

#include <fmt/format.h>

#include <algorithm>
#include <future>
#include <map>
#include <mutex>

#include "common/error.h"
#include "common/files.h"
#include "memory/memory.h"
#include "search/answers.h"
#include "search/baseline_writing.h"
#include "search/candidate_key.h"
#include "search/checkpoint.h"
#include "search/confirmation.h"
#include "search/evaluator.h"
#include "search/figures.h"
#include "search/kept_baseline.h"
#include "search/memory_writer.h"
#include "search/normalize.h"
#include "search/progress.h"
#include "search/proposer.h"
#include "search/selection.h"
#include "search/stop.h"
#include "search/thread_pool.h"
#include "task/baseline_stub.h"

namespace accelopt::search {
namespace {

constexpr std::string_view kUnreachable = "failed: the agents could not be reached";
constexpr std::string_view kBusyBaseline =
    "stopped: the machine was too busy to evaluate the baseline";

// The passing, timed attempts that were not measured before: candidates for the beam.
std::vector<Scored> newcomers_of(const std::vector<Attempt>& attempts) {
  std::vector<Scored> newcomers;
  for (const Attempt& attempt : attempts) {
    // A reused verdict belongs to a source already offered to the beam (or in it).
    if (attempt.verdict.passed() && attempt.verdict.timing && !attempt.reused) {
      newcomers.push_back(Scored{attempt.candidate, attempt.verdict});
    }
  }
  return newcomers;
}

// Of identical sources first evaluated in this iteration, the first by key is the one offered to
// the beam and the memory, whichever evaluation started first: with evaluations (or agent calls) in
// parallel they do not start in the keys' order, and the iteration's outcome must depend on its
// verdicts only. `attempts` are in the keys' order; each keeps its own candidate and verdict.
void offer_first_by_key(std::vector<Attempt>& attempts) {
  std::map<std::string, std::vector<Attempt*>> by_source;
  for (Attempt& attempt : attempts) {
    if (!attempt.source.empty()) by_source[normalized_hash(attempt.source)].push_back(&attempt);
  }
  for (auto& [hash, same] : by_source) {
    bool fresh = std::any_of(same.begin(), same.end(),
                             [](const Attempt* attempt) { return !attempt->reused; });
    if (!fresh || same.size() < 2) continue;
    for (size_t index = 0; index < same.size(); ++index) same[index]->reused = index > 0;
  }
}

bool contains(const std::vector<Scored>& kernels, int64_t candidate) {
  return std::any_of(kernels.begin(), kernels.end(),
                     [&](const Scored& kernel) { return kernel.candidate == candidate; });
}

class Run {
 public:
  Run(SearchConfig config, std::string workload, std::string start_kernel, SearchContext& context,
      int64_t run_id, memory::Visibility visibility, bool remeasure_baseline)
      : config_(std::move(config)),
        workload_(std::move(workload)),
        start_kernel_(std::move(start_kernel)),
        context_(context),
        run_id_(run_id),
        visibility_(std::move(visibility)),
        remeasure_baseline_(remeasure_baseline),
        stop_(context.interrupt),
        progress_(context.events, context.spend_usd, run_id, config_.iterations),
        answers_(*context.store, run_id),
        evaluator_(config_, EvaluatorParts{context.task, workload_, run_id, context.platform,
                                           context.store, &book_, &progress_, &stop_, &clock_,
                                           context.eval_slots, context.busy_pause,
                                           context.eval_places, context.eval_places_refresh}),
        proposer_(config_, *context.task, workload_, answers_, evaluator_, book_, progress_, stop_),
        memory_(config_,
                MemoryWriterParts{context.task, workload_, run_id, context.store,
                                  context.agents.summarizer, context.agents.refine_summarizer,
                                  static_cast<bool>(context.spend_usd), &book_, &answers_,
                                  &progress_, &stop_}) {}

  // `more_iterations` > 0: the target becomes the last checkpoint's iteration plus that many.
  RunSummary go(bool resuming, int more_iterations);

 private:
  // Iteration 0: the baseline, and the user's kernel when given: the beam's first kernel. False
  // (the run ended "failed") when it does not pass.
  bool start();
  // A task without a baseline: `record` and `plan` become the naive kernel the executor wrote
  // (baseline_writing.h). False (the run ended) when none passed or no model may write one.
  bool write_stub_baseline(store::CandidateRecord& record, roles::Plan& plan);
  // One iteration's attempts, its tally of agent calls, and the beam after it.
  std::vector<Attempt> iterate(int iteration, const std::vector<roles::Insight>& insights);
  std::vector<Attempt> refine(int iteration, const std::vector<Scored>& entering,
                              const std::vector<roles::Insight>& insights);
  std::vector<roles::Insight> insights();
  void checkpoint(int iteration, std::vector<store::MemoryEntryRecord>& entries);
  void restore(const SearchCheckpoint& checkpoint);
  // Re-times the final beam against the baseline (confirmation.h); false when interrupted first.
  bool confirm();
  // Hands the book the measurements against the baseline that the confirmation and the memory's
  // re-timings took (a resumed run's too), for the agents' figures, and every head-to-head
  // re-timing to the comparisons selection uses.
  void note_measurements();
  // A re-timing just taken: said when it disagrees with an earlier measurement of the same pair
  // ("figures moved between measurements …"); one against the baseline is kept beside the others
  // for the agents' figures, and the kernel's stored row gets the run's figure (the most precise).
  void note_retiming(const Measurement& measured, const std::string& name);
  // The careful timing of a re-timing (memory, confirmation), cut to what is left of the wall-time
  // budget: once it is spent, the fewest pairs a candidate gets and no time beyond them.
  // `shortened` is set when it was cut.
  platform::TimingOptions retiming(bool* shortened = nullptr) const;
  // `candidate` timed head to head against `against` with `timing`, noted as progress.
  std::optional<Measurement> measure(int64_t candidate, int64_t against,
                                     const platform::TimingOptions& timing);
  // Each pair measured so, all at once when evaluations may run in parallel, each handed to
  // `taken` as it comes (one at a time).
  void measure_together(const std::vector<MeasurePair>& pairs,
                        const platform::TimingOptions& timing, const MeasureTaken& taken);
  // A re-timing named `name` taken: noted, and kept for selection (the comparisons).
  void keep_retiming(const Measurement& measured, const std::string& name);
  RunSummary end(const std::string& state);
  RunSummary summary(const std::string& state) const;
  // The run's best (the confirmed winner, else the beam's fastest) at its one figure: the most
  // precise of its measurements against the baseline (figures.h), and which measurement that is.
  struct BestFigure {
    int64_t candidate = 0;
    Figures figures;
    std::string origin;
  };
  std::optional<BestFigure> best_figure() const;
  // Hands the progress line the run's best at its one figure.
  void note_best();

  SearchConfig config_;
  std::string workload_;
  std::string start_kernel_;  // the user's kernel to start from; empty: the baseline
  SearchContext& context_;
  int64_t run_id_;
  memory::Visibility visibility_;
  bool remeasure_baseline_;                 // a quiet reading of the baseline replaces the kept one
  std::optional<int> extended_iterations_;  // the target, when extended past the settings
  ScaleSource scale_;  // what latencies and % of peak derive from (kept_baseline.h)

  StopSignal stop_;
  RunClock clock_;
  Progress progress_;
  CandidateBook book_;
  AnswerCache answers_;
  Evaluator evaluator_;
  Proposer proposer_;
  MemoryWriter memory_;

  // The driver's own state: touched by the driver's thread only.
  std::vector<Scored> beam_;
  Scored baseline_;
  int iterations_done_ = 0;
  std::optional<Confirmation> confirmation_;  // of the last checkpoint, once the run ended
  // The memory's re-timings so far, checkpointed with each iteration.
  std::vector<NamedMeasurement> retimings_;
  // The head-to-head re-timings the run took (memory, confirmation), for selection.
  Comparisons comparisons_;
};

bool Run::start() {
  store::CandidateRecord record;
  record.key = CandidateKey::baseline().str();
  record.source = read_file(context_.task->baseline_path());
  record.iteration = 0;
  record.author = "baseline";
  record.kind = store::CandidateKind::kBaseline;
  roles::Plan plan;
  plan.text = "the task's baseline";
  plan.author = "baseline";
  if (task::is_baseline_stub(record.source)) {
    if (!write_stub_baseline(record, plan)) return false;
    evaluator_.use_baseline_source(record.source);
  }
  auto attempt = evaluator_.evaluate(record, 0, plan);
  if (!attempt && stop_.interrupted()) {
    end("interrupted");
    return false;
  }
  if (!attempt) throw InternalError("the baseline was not evaluated");
  if (attempt->verdict.machine_busy()) {
    end(fmt::format("{} ({})", kBusyBaseline, attempt->verdict.message));
    return false;
  }
  if (!attempt->verdict.passed()) {
    end(fmt::format("failed: the baseline does not pass ({}: {})",
                    kernel::status_name(attempt->verdict.status), attempt->verdict.message));
    return false;
  }
  baseline_ = Scored{attempt->candidate, attempt->verdict};
  scale_ = choose_scale(
      *context_.store,
      BaselineReading{context_.task->name, workload_, context_.platform->name(), record.source,
                      &baseline_.verdict, run_id_, baseline_.candidate, remeasure_baseline_});
  progress_.set_scale(scale_.scale);
  Figures scaled = scale_.scale.baseline();  // the baseline's row shows the scale's figures too
  context_.store->set_trace_figures(
      baseline_.candidate, store::TraceFigures{1, scaled.latency_seconds, scaled.percent_of_peak});
  if (!scale_.origin.empty()) {
    progress_.emit(EventKind::kNote, 0, "latencies and % of peak derive from " + scale_.origin);
  }
  comparisons_ = Comparisons(baseline_.candidate);
  beam_ = {baseline_};
  if (!start_kernel_.empty()) {
    store::CandidateRecord user;
    user.key = CandidateKey::start_kernel().str();
    user.source = start_kernel_;
    user.parent = baseline_.candidate;
    user.author = "user";
    user.kind = store::CandidateKind::kExecutor;
    roles::Plan given;
    given.text = "the user's kernel (optimize --kernel)";
    given.author = "user";
    auto mine = evaluator_.evaluate(user, baseline_.candidate, given);
    if (!mine) {  // a stop request or a budget came first
      end(stop_.interrupted() ? "interrupted" : "stopped: " + stop_.reason());
      return false;
    }
    if (!mine->verdict.passed() || !mine->verdict.timing) {
      end(fmt::format("failed: your kernel does not pass ({}: {})",
                      kernel::status_name(mine->verdict.status), mine->verdict.message));
      return false;
    }
    beam_ = {Scored{mine->candidate, mine->verdict}};
  }
  std::vector<store::MemoryEntryRecord> none;
  checkpoint(0, none);
  return true;
}

bool Run::write_stub_baseline(store::CandidateRecord& record, roles::Plan& plan) {
  // Written and recorded by an earlier process of this run, killed before its first checkpoint.
  if (auto stored = context_.store->candidate_by_key(run_id_, record.key)) {
    record.source = stored->source;
    record.author = stored->author;
    return true;
  }
  const AgentSet& agents = context_.agents;
  if (agents.baseline_writer == nullptr) {
    end("failed: " + task::baseline_stub_message(context_.task->baseline_path()));
    return false;
  }
  progress_.emit(EventKind::kNote, 0,
                 "the task has no baseline (its baseline is a stub): the executor writes a naive "
                 "kernel to start from");
  BaselineWriting writing;
  writing.task = context_.task;
  writing.workload = workload_;
  writing.stub = record.source;
  writing.writer = agents.baseline_writer;
  writing.fixer = agents.fixer;
  writing.repairs = std::max(1, config_.fix_rounds);
  writing.seed = config_.seed;
  writing.check = [this](const std::string& source) {
    return evaluator_.check_correctness(source);
  };
  writing.note = [this](const std::string& line) { progress_.emit(EventKind::kNote, 0, line); };
  std::string why;
  std::optional<WrittenBaseline> written;
  try {
    written = write_baseline(writing, &why);
  } catch (const roles::BudgetExhausted& error) {
    end(fmt::format("stopped: the LLM budget is spent ({})", error.what()));
    return false;
  } catch (const roles::AgentUnavailable& error) {
    end(fmt::format("failed: no naive baseline could be written: {}", error.what()));
    return false;
  }
  if (!written) {
    if (why.empty()) {
      end("interrupted");
    } else {
      end(fmt::format("failed: no naive kernel the executor wrote passed (the last: {}); {}", why,
                      task::baseline_stub_message(context_.task->baseline_path())));
    }
    return false;
  }
  record.source = written->source;
  record.author = written->author;
  plan.text = "a naive kernel " + written->how + ": the task had no baseline";
  plan.author = written->author;
  return true;
}

std::vector<Attempt> Run::iterate(int iteration, const std::vector<roles::Insight>& insights) {
  bool beam = config_.strategy == Strategy::kBeam;
  // Repeated sampling draws afresh from the baseline each time, with no memory.
  std::vector<Scored> parents =
      beam ? beam_ : std::vector<Scored>(static_cast<size_t>(config_.beam_width), baseline_);
  const std::vector<roles::Insight> no_insights;
  const auto& given = beam ? insights : no_insights;
  std::vector<std::set<std::string>> tried(parents.size());
  if (beam) {
    for (size_t slot = 0; slot < parents.size(); ++slot) {
      tried[slot] = book_.plans_tried_on(parents[slot].candidate, iteration);
    }
  }
  const AgentSet& agents = context_.agents;
  auto budget_spent = [this](const roles::BudgetExhausted& error) {
    stop_.stop(fmt::format("the LLM budget is spent ({})", error.what()));
  };
  // Agent calls are limited by the proposer (agent_concurrency); with evaluations in parallel every
  // plan's job runs at once, so that a job waiting for its evaluations holds back no other, beside
  // the beam kernels' planning jobs, which hand each plan to a job of its own as it is drawn.
  size_t plan_jobs = parents.size() * static_cast<size_t>(std::max(1, config_.plans));
  int threads = evaluator_.parallel() ? std::max(config_.agent_concurrency,
                                                 static_cast<int>(plan_jobs + parents.size()))
                                      : config_.agent_concurrency;
  ThreadPool pool(threads);
  roles::Fixer* fixer = agents.proposes == store::CandidateKind::kTuner ? nullptr : agents.fixer;
  std::mutex mutex;                                                   // guards the two below
  std::map<std::pair<size_t, size_t>, std::vector<Attempt>> results;  // by (slot, plan)
  std::vector<std::future<void>> waits;
  // Plan `index` of beam kernel `slot`: its implementations, evaluations and repairs.
  auto implement = [&](size_t slot, size_t index, const roles::Plan& plan) {
    CandidateKey place =
        CandidateKey::beam_slot(iteration, static_cast<int>(slot)).plan(static_cast<int>(index));
    try {
      std::vector<Attempt> made =
          proposer_.attempts(place, parents[slot], plan, *agents.executor, fixer,
                             config_.implementations, agents.proposes);
      std::lock_guard lock(mutex);
      results[{slot, index}] = std::move(made);
    } catch (const roles::BudgetExhausted& error) {
      budget_spent(error);
    } catch (const roles::AgentUnavailable& error) {
      progress_.emit(EventKind::kNote, iteration, fmt::format("executor failed: {}", error.what()));
    } catch (...) {
      stop_.stop("an error ended the run");  // the other jobs stop starting work
      throw;
    }
  };
  // Plans for every beam kernel, concurrently; each plan's job starts as soon as it is drawn.
  std::vector<std::future<void>> planning;
  for (size_t slot = 0; slot < parents.size(); ++slot) {
    planning.push_back(pool.submit([&, slot] {
      try {
        proposer_.plans_each(
            CandidateKey::beam_slot(iteration, static_cast<int>(slot)), parents[slot], tried[slot],
            given, *agents.planner, config_.plans, [&, slot](size_t index, roles::Plan plan) {
              std::lock_guard lock(mutex);
              waits.push_back(pool.submit([&implement, slot, index, plan = std::move(plan)] {
                implement(slot, index, plan);
              }));
            });
      } catch (const roles::BudgetExhausted& error) {
        budget_spent(error);
      } catch (const roles::AgentUnavailable& error) {
        progress_.emit(EventKind::kNote, iteration,
                       fmt::format("planner failed: {}", error.what()));
      } catch (...) {
        stop_.stop("an error ended the run");  // the other jobs stop starting work
        throw;
      }
    }));
  }
  // Every job ends before the first failure goes up: the jobs use this frame.
  std::exception_ptr failure;
  auto settle = [&](std::future<void>& wait) {
    try {
      wait.get();
    } catch (...) {
      if (!failure) failure = std::current_exception();
    }
  };
  for (auto& wait : planning) settle(wait);
  for (auto& wait : waits) settle(wait);  // complete: no planning job is left to add one
  if (failure) std::rethrow_exception(failure);
  std::vector<Attempt> all;  // in the order of the keys: (slot, plan)
  for (auto& [place, list] : results) {
    for (auto& attempt : list) all.push_back(std::move(attempt));
  }
  return all;
}

std::vector<Attempt> Run::refine(int iteration, const std::vector<Scored>& entering,
                                 const std::vector<roles::Insight>& insights) {
  std::vector<Attempt> all;
  const AgentSet& agents = context_.agents;
  if (agents.refine_planner == nullptr || agents.refine_executor == nullptr ||
      config_.hybrid_tuner_evals <= 0) {
    return all;
  }
  for (const Scored& kernel : entering) {
    auto kind = book_.kind_of(kernel.candidate);
    bool llm = kind == store::CandidateKind::kExecutor || kind == store::CandidateKind::kFixer;
    if (!llm) continue;  // only LLM kernels are refined
    CandidateKey slot = CandidateKey::refinement(iteration, kernel.candidate);
    auto plans = proposer_.plans(slot, kernel, book_.plans_tried_on(kernel.candidate, iteration),
                                 insights, *agents.refine_planner, config_.hybrid_tuner_evals);
    for (size_t index = 0; index < plans.size(); ++index) {
      auto attempts =
          proposer_.attempts(slot.plan(static_cast<int>(index)), kernel, plans[index],
                             *agents.refine_executor, nullptr, 1, store::CandidateKind::kTuner);
      for (auto& attempt : attempts) all.push_back(std::move(attempt));
    }
  }
  return all;
}

std::vector<roles::Insight> Run::insights() {
  if (config_.strategy != Strategy::kBeam) return {};
  return memory::planner_insights(*context_.store, *context_.task, config_.memory, run_id_,
                                  visibility_);
}

void Run::checkpoint(int iteration, std::vector<store::MemoryEntryRecord>& entries) {
  SearchCheckpoint checkpoint;
  checkpoint.iteration = iteration;
  for (const Scored& kernel : beam_) checkpoint.beam.push_back(kernel.candidate);
  checkpoint.baseline = baseline_.candidate;
  checkpoint.wall_seconds = clock_.seconds();
  checkpoint.stop_reason = stop_.reason();
  checkpoint.iterations = extended_iterations_;
  checkpoint.confirmation = confirmation_;
  checkpoint.retimings = retimings_;
  checkpoint.scale = scale_;
  context_.store->commit_iteration(checkpoint.to_store(run_id_), entries);
  iterations_done_ = iteration;
  note_best();
}

void Run::restore(const SearchCheckpoint& checkpoint) {
  auto verdict_of = [&](int64_t id) {
    auto trace = context_.store->trace(id);
    if (!trace) throw InternalError(fmt::format("run {}: candidate {} has no trace", run_id_, id));
    return trace->verdict;
  };
  baseline_ = Scored{checkpoint.baseline, verdict_of(checkpoint.baseline)};
  // The run's baseline as the store keeps it: the kernel its start wrote where the task had none
  // (the folder still holds the stub), or a file edited since.
  std::string recorded = book_.source_of(baseline_.candidate);
  if (!recorded.empty() && recorded != read_file(context_.task->baseline_path())) {
    evaluator_.use_baseline_source(recorded);
  }
  // Runs from before the kept baselines derive from their own reading, as they did.
  scale_ = checkpoint.scale ? *checkpoint.scale : ScaleSource{RunScale(baseline_.verdict), ""};
  progress_.set_scale(scale_.scale);
  comparisons_ = Comparisons(baseline_.candidate);
  confirmation_ = checkpoint.confirmation;
  retimings_ = checkpoint.retimings;
  note_measurements();
  beam_.clear();
  for (int64_t id : checkpoint.beam) beam_.push_back(Scored{id, verdict_of(id)});
  clock_.add_earlier(checkpoint.wall_seconds);
  iterations_done_ = checkpoint.iteration;
  if (checkpoint.iterations) {
    extended_iterations_ = checkpoint.iterations;
    config_.iterations = *checkpoint.iterations;
  }
}

platform::TimingOptions Run::retiming(bool* shortened) const {
  platform::TimingOptions careful = careful_timing(config_.timing);
  if (!config_.max_wall_seconds) return careful;
  double left = *config_.max_wall_seconds - clock_.seconds();
  if (left >= careful.budget_seconds) return careful;
  if (shortened != nullptr) *shortened = true;
  if (left > 0) {
    careful.budget_seconds = left;
    return careful;
  }
  platform::TimingOptions fewest = config_.timing;
  fewest.budget_seconds = 0;
  return fewest;
}

std::optional<Measurement> Run::measure(int64_t candidate, int64_t against,
                                        const platform::TimingOptions& timing) {
  if (stop_.interrupted()) return std::nullopt;
  bool baseline = against == baseline_.candidate;
  kernel::Verdict verdict;
  try {
    verdict = evaluator_.time_head_to_head(
        book_.source_of(candidate), baseline ? std::string() : book_.source_of(against),
        baseline ? "baseline" : fmt::format("#{}", against), timing);
  } catch (const platform::EvaluationAbandoned&) {
    return std::nullopt;  // Ctrl-C
  } catch (const UserError& error) {
    if (baseline) throw;  // the task itself is broken
    // The other beam kernel failed this time: no verdict between the two.
    verdict.status = kernel::Status::kRuntimeError;
    verdict.message = fmt::format("#{} failed as the anchor: {}", against, error.what());
  }
  if (stop_.interrupted()) return std::nullopt;  // timed while stopping: not to be trusted
  Measurement result;
  result.candidate = candidate;
  result.against = against;
  result.status = kernel::status_name(verdict.status);
  result.message = verdict.message;
  if (verdict.passed() && verdict.timing) {
    result.speedup = verdict.timing->speedup;
    result.speedup_low = verdict.timing->speedup_low;
    result.speedup_high = verdict.timing->speedup_high;
    result.pairs = verdict.timing->pairs;
    result.busy = verdict.timing->busy();
  }
  progress_.emit(
      EventKind::kNote, iterations_done_,
      fmt::format("  #{} against {}: {}", candidate,
                  baseline ? "the baseline" : fmt::format("#{}", against),
                  verdict.passed()
                      ? fmt::format("{:.2f}x [{:.2f}, {:.2f}]{}", result.speedup,
                                    result.speedup_low, result.speedup_high, busy_mark(result.busy))
                      : result.status));
  return result;
}

void Run::measure_together(const std::vector<MeasurePair>& pairs,
                           const platform::TimingOptions& timing, const MeasureTaken& taken) {
  std::mutex handing;
  auto one = [&](size_t index) {
    auto measured = measure(pairs[index].first, pairs[index].second, timing);
    if (!measured) return;
    std::lock_guard lock(handing);
    taken(index, *measured);
  };
  if (evaluator_.parallel()) {
    run_together(pairs.size(), one);
  } else {
    for (size_t index = 0; index < pairs.size(); ++index) one(index);
  }
}

void Run::keep_retiming(const Measurement& measured, const std::string& name) {
  note_retiming(measured, name);
  if (measured.passed()) {  // selection may use it
    comparisons_.add(
        measured.candidate, measured.against,
        {name, measured.speedup, measured.speedup_low, measured.speedup_high, measured.busy});
  }
}

void Run::note_retiming(const Measurement& measured, const std::string& name) {
  if (!measured.passed()) return;
  roles::NamedSpeedup now{name, measured.speedup, measured.speedup_low, measured.speedup_high,
                          measured.busy};
  bool baseline = measured.against == baseline_.candidate;
  std::vector<roles::NamedSpeedup> earlier = comparisons_.of(measured.candidate, measured.against);
  if (baseline) {
    if (auto verdict = book_.verdict_of(measured.candidate)) {
      auto record = book_.record_of(measured.candidate);
      earlier.insert(earlier.begin(), search_measurement(*verdict, record ? record->iteration : 0));
    }
  }
  for (const roles::NamedSpeedup& before : earlier) {
    if (before.name == name || !disjoint(before, now)) continue;
    progress_.emit(
        EventKind::kNote, iterations_done_,
        fmt::format("  ! #{} against {}: {} ({}: {:.2f}x [{:.2f}, {:.2f}]{}; {}: {:.2f}x [{:.2f}, "
                    "{:.2f}]{}); both kept, the most precise is the run's figure",
                    measured.candidate,
                    baseline ? "the baseline" : fmt::format("#{}", measured.against),
                    moved_text(before, now), before.name, before.speedup, before.speedup_low,
                    before.speedup_high, busy_mark(before.busy), name, now.speedup, now.speedup_low,
                    now.speedup_high, busy_mark(now.busy)));
    break;
  }
  if (!baseline) return;
  book_.add_measurement(measured.candidate, now);
  // The stored row carries the run's one figure: the most precise of the pair's measurements.
  if (auto verdict = book_.verdict_of(measured.candidate)) {
    auto record = book_.record_of(measured.candidate);
    auto figures =
        kernel_figures(progress_.scale(), *verdict, false, record ? record->iteration : 0,
                       book_.measurements_of(measured.candidate));
    if (figures) {
      context_.store->set_trace_figures(
          measured.candidate,
          {figures->speedup, figures->latency_seconds, figures->percent_of_peak});
    }
  }
}

bool Run::confirm() {
  if (!confirmation_) {
    confirmation_ = Confirmation{};
    confirmation_->baseline = baseline_.candidate;
    confirmation_->iterations = iterations_done_;
  }
  if (confirmation_->done) return true;
  std::vector<int64_t> beam;
  for (const Scored& kernel : beam_) beam.push_back(kernel.candidate);
  progress_.emit(EventKind::kNote, iterations_done_,
                 "confirming: the final beam re-timed head to head against the baseline");
  std::vector<store::MemoryEntryRecord> none;
  bool done = search::confirm(
      *confirmation_, beam,
      [this](const std::vector<MeasurePair>& pairs, const MeasureTaken& taken) {
        std::string name = confirmation_name(confirmation_->iterations);
        measure_together(pairs, retiming(&confirmation_->shortened),
                         [&](size_t index, const Measurement& measured) {
                           keep_retiming(measured, name);  // kept in the checkpoint as well
                           taken(index, measured);
                         });
      },
      [&](const Confirmation& now) {
        confirmation_ = now;
        checkpoint(iterations_done_, none);
      },
      evaluator_.concurrency());
  note_measurements();
  note_best();
  if (done) {
    // The last progress line carries the confirmed best at its figure, as the run's end does.
    progress_.emit(EventKind::kIterationFinished, iterations_done_);
    progress_.emit(EventKind::kNote, iterations_done_, confirmation_->outcome());
  }
  return done;
}

void Run::note_measurements() {
  for (const PairRetiming& retiming :
       run_retimings(run_id_, context_.store->memory_entries(), confirmation_, retimings_)) {
    comparisons_.add(retiming.candidate, retiming.against, retiming.measured);
    if (retiming.against == baseline_.candidate) {
      book_.add_measurement(retiming.candidate, retiming.measured);
    }
  }
}

RunSummary Run::summary(const std::string& state) const {
  RunSummary result;
  result.run_id = run_id_;
  result.state = state;
  result.iterations_done = iterations_done_;
  result.evaluations = context_.store->evaluation_count(run_id_);
  result.baseline_candidate = baseline_.candidate;
  const RunScale& scale = scale_.scale;
  result.scale_origin = scale_.origin;
  result.baseline_percent_of_peak = scale.baseline_percent();
  result.baseline_latency_seconds = scale.baseline_latency();
  if (confirmation_ && confirmation_->done) {
    result.confirmed = true;
    result.significant = confirmation_->significant;
    result.outcome = confirmation_->outcome();
  }
  result.baseline_busy = scale.baseline_busy();
  if (auto best = best_figure()) {
    result.best_candidate = best->candidate;
    result.best_speedup = best->figures.speedup;
    result.best_speedup_low = best->figures.speedup_low;
    result.best_speedup_high = best->figures.speedup_high;
    result.best_busy = best->figures.busy;
    result.best_percent_of_peak = best->figures.percent_of_peak;
    result.best_origin = best->origin;
  }
  return result;
}

std::optional<Run::BestFigure> Run::best_figure() const {
  BestFigure best;
  if (confirmation_ && confirmation_->done) {
    best.candidate = confirmation_->winner;
  } else if (!beam_.empty()) {
    best.candidate = fastest(beam_, comparisons_).candidate;
  } else {
    return std::nullopt;
  }
  const RunScale& scale = scale_.scale;
  if (best.candidate == baseline_.candidate) {
    best.figures = scale.baseline();
    best.origin = "the baseline, timed carefully at the start of the run";
    return best;
  }
  auto verdict = book_.verdict_of(best.candidate);
  auto record = book_.record_of(best.candidate);
  std::optional<roles::KernelFigures> told;
  if (verdict) {
    told = kernel_figures(scale, *verdict, false, record ? record->iteration : 0,
                          book_.measurements_of(best.candidate));
  }
  if (!told) return std::nullopt;
  best.figures = scale.of(told->speedup, told->speedup_low, told->speedup_high, told->busy);
  best.origin = told->origin;
  return best;
}

void Run::note_best() {
  if (auto best = best_figure()) progress_.set_best(best->candidate, best->figures);
}

RunSummary Run::end(const std::string& state) {
  context_.store->set_run_state(run_id_, state);
  progress_.emit(EventKind::kRunFinished, iterations_done_, state);
  return summary(state);
}

RunSummary Run::go(bool resuming, int more_iterations) {
  evaluator_.load_stored();
  proposer_.load_repairs();
  progress_.emit(EventKind::kRunStarted, 0, resuming ? "resumed" : "started");
  auto last = context_.store->last_checkpoint(run_id_);
  if (last) {
    restore(SearchCheckpoint::from_store(*last));
  } else if (!start()) {
    return summary(context_.store->run(run_id_)->state);
  }
  if (more_iterations > 0) {
    extended_iterations_ = iterations_done_ + more_iterations;
    config_.iterations = *extended_iterations_;
  }
  progress_.set_iterations(config_.iterations);

  for (int iteration = iterations_done_ + 1; iteration <= config_.iterations; ++iteration) {
    if (stop_.stopped()) break;
    confirmation_.reset();  // a new iteration: the beam it ends with is confirmed afresh
    progress_.emit(EventKind::kIterationStarted, iteration);
    auto given = insights();
    std::vector<Attempt> attempts = iterate(iteration, given);
    offer_first_by_key(attempts);
    AgentTally tally = proposer_.take_tally();
    if (stop_.interrupted()) break;
    bool nothing_reached =
        tally.unavailable > 0 && (tally.unavailable == tally.calls || attempts.empty());
    if (nothing_reached) {
      // Not checkpointed: a resumed run asks again what could not be asked now.
      return end(fmt::format("{} in iteration {} ({} of {} calls failed; the last: {})",
                             kUnreachable, iteration, tally.unavailable, tally.calls,
                             tally.last_error));
    }
    std::vector<Scored> previous = beam_;
    int width = config_.strategy == Strategy::kBeam ? config_.beam_width : 1;  // sampling: best
    beam_ = update_beam(beam_, newcomers_of(attempts), width, comparisons_);
    std::vector<Scored> entering;
    for (const Scored& kernel : beam_) {
      if (!contains(previous, kernel.candidate)) entering.push_back(kernel);
    }
    if (config_.strategy == Strategy::kBeam && !entering.empty() && !stop_.stopped()) {
      std::vector<Attempt> refined = refine(iteration, entering, given);
      beam_ = update_beam(beam_, newcomers_of(refined), config_.beam_width, comparisons_);
      attempts.insert(attempts.end(), refined.begin(), refined.end());
    }
    // Rewrites are measured against the beam kernels the plans were made for (Attempt keeps its
    // beam parent), so the memory needs nothing of the beam itself.
    std::vector<store::MemoryEntryRecord> entries = memory_.entries(
        iteration, attempts,
        [this, iteration](const std::vector<MeasurePair>& pairs, const MeasureTaken& taken) {
          std::string name = memory_retiming_name(iteration);
          measure_together(pairs, retiming(), [&](size_t index, const Measurement& measured) {
            keep_retiming(measured, name);
            retimings_.push_back({name, measured});
            taken(index, measured);
          });
        });
    if (stop_.interrupted()) break;
    // What the memory re-timed head to head decides over the search's figures of two moments: a
    // child measured faster than its beam parent beyond noise in one sitting takes its place. The
    // re-timings are checkpointed with the beam, so a resumed run selects as this one did.
    if (config_.strategy == Strategy::kBeam) {
      beam_ = update_beam(beam_, newcomers_of(attempts), config_.beam_width, comparisons_);
    }
    checkpoint(iteration, entries);
    progress_.emit(EventKind::kIterationFinished, iteration,
                   fmt::format("{} memory entries", entries.size()));
    if (attempts.empty() && !stop_.stopped()) {
      progress_.emit(EventKind::kNote, iteration,
                     "no new plans for any beam kernel: the search has converged");
      break;
    }
  }
  if (stop_.interrupted()) return end("interrupted");
  std::string reason = stop_.reason();
  if (!confirm()) return end("interrupted");
  return end(reason.empty() ? "finished" : "stopped: " + reason);
}

void check_context(const SearchContext& context) {
  if (context.task == nullptr || context.platform == nullptr || context.store == nullptr ||
      context.agents.planner == nullptr || context.agents.executor == nullptr) {
    throw InternalError("search: the context lacks a task, platform, store, planner or executor");
  }
}

RunSummary run_stored(int64_t run_id, SearchContext& context, bool resuming, int more_iterations) {
  check_context(context);
  auto record = context.store->run(run_id);
  if (!record) throw UserError(fmt::format("there is no run {} in this workspace", run_id));
  if (record->state == "finished" && more_iterations <= 0) {
    throw UserError(fmt::format(
        "run {} has finished; nothing to resume (`accelopt resume {} --iterations N` extends it by "
        "N iterations)",
        run_id, run_id));
  }
  RunSettings settings = RunSettings::from_json(record->config);
  if (resuming) context.store->set_run_state(run_id, "running");
  Run run(settings.search, settings.workload, settings.start_kernel, context, run_id,
          settings.memory_visibility(), settings.remeasure_baseline);
  return run.go(resuming, more_iterations);
}

}  // namespace

int64_t create_run(RunSettings settings, SearchContext& context) {
  if (context.task == nullptr || context.store == nullptr) {
    throw InternalError("search: create_run needs a task and a store");
  }
  settings.workload = context.task->workload_or_default(settings.workload).name;
  context.store->upsert_task(*context.task);
  settings.task = context.task->name;
  settings.task_directory = std::filesystem::absolute(context.task->directory).string();
  settings.kernel_extension = context.task->kernel_extension;
  settings.memory_horizon = context.store->max_memory_id();
  settings.baseline_timing = careful_timing(settings.search.timing);
  return context.store->create_run(settings.to_json());
}

bool worth_resuming(const std::string& state) {
  return state == "interrupted" || state.rfind(kUnreachable, 0) == 0 ||
         stopped_by_busy_machine(state);
}

bool stopped_by_busy_machine(const std::string& state) {
  return state.rfind(kBusyBaseline, 0) == 0;
}

RunSummary run_created(int64_t run_id, SearchContext& context) {
  return run_stored(run_id, context, false, 0);
}

RunSummary start_run(RunSettings settings, SearchContext& context) {
  return run_created(create_run(std::move(settings), context), context);
}

RunSummary start_run(const SearchConfig& config, const std::string& workload,
                     SearchContext& context, const std::string& start_kernel) {
  RunSettings settings;
  settings.search = config;
  settings.workload = workload;
  settings.start_kernel = start_kernel;
  return start_run(std::move(settings), context);
}

RunSummary resume_run(int64_t run_id, SearchContext& context, int more_iterations) {
  return run_stored(run_id, context, true, more_iterations);
}

}  // namespace accelopt::search
