#include "search/beam_search.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>

#include "common/error.h"
#include "common/files.h"
#include "common/hash.h"
#include "llm/client.h"
#include "memory/memory.h"
#include "search/normalize.h"
#include "search/selection.h"
#include "search/thread_pool.h"

namespace accelopt::search {
namespace {

using Clock = std::chrono::steady_clock;

uint64_t splitmix(uint64_t value) {
  value += 0x9E3779B97F4A7C15ull;
  value = (value ^ (value >> 30)) * 0xBF58476D1CE4E5B9ull;
  value = (value ^ (value >> 27)) * 0x94D049BB133111EBull;
  return value ^ (value >> 31);
}

uint64_t call_seed(uint64_t seed, int iteration, const std::string& place) {
  uint64_t value = splitmix(seed ^ splitmix(static_cast<uint64_t>(iteration)));
  for (char c : place) value = splitmix(value ^ static_cast<unsigned char>(c));
  return value;
}

Json plan_to_json(const roles::Plan& plan) {
  return Json{{"text", plan.text}, {"author", plan.author}, {"detail", plan.detail}};
}
roles::Plan plan_from_json(const Json& json) {
  roles::Plan plan;
  plan.text = json.value("text", "");
  plan.author = json.value("author", "");
  plan.detail = json.value("detail", Json::object());
  return plan;
}
Json implementation_to_json(const roles::Implementation& implementation) {
  return Json{{"source", implementation.source},
              {"parse_error", implementation.parse_error},
              {"author", implementation.author}};
}
roles::Implementation implementation_from_json(const Json& json) {
  roles::Implementation implementation;
  implementation.source = json.value("source", "");
  implementation.parse_error = json.value("parse_error", "");
  implementation.author = json.value("author", "");
  return implementation;
}

std::string plan_signature(const roles::Plan& plan) {
  std::string text;
  bool space = false;
  for (char c : plan.text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = true;
      continue;
    }
    if (space && !text.empty()) text += ' ';
    space = false;
    text += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return text + "\n" + plan.detail.dump();
}

// A counting semaphore that serializes evaluations.
class Gate {
 public:
  explicit Gate(int slots) : free_(std::max(1, slots)) {}
  void acquire() {
    std::unique_lock lock(mutex_);
    wake_.wait(lock, [this] { return free_ > 0; });
    --free_;
  }
  void release() {
    {
      std::lock_guard lock(mutex_);
      ++free_;
    }
    wake_.notify_one();
  }

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  int free_;
};

// One evaluated attempt, as the iteration sees it.
struct Attempt {
  int64_t candidate = 0;
  kernel::Verdict verdict;
  int64_t beam_parent = 0;  // the beam kernel the plan was made for
  roles::Plan plan;
  std::string source;
  std::string author;
  bool reused = false;
};

class Run {
 public:
  Run(SearchConfig config, std::string workload, SearchContext& context, int64_t run_id,
      int64_t horizon)
      : config_(std::move(config)),
        workload_(std::move(workload)),
        context_(context),
        run_id_(run_id),
        horizon_(horizon),
        gate_(config_.eval_concurrency),
        started_(Clock::now()) {}

  RunSummary go(bool resuming);

 private:
  // --- evaluation -----------------------------------------------------------------------------
  std::optional<Attempt> evaluate(store::CandidateRecord record, int64_t beam_parent,
                                  const roles::Plan& plan);
  kernel::Verdict run_platform(const std::string& source);
  // --- agents, with answers kept in the store ---------------------------------------------------
  template <typename Compute>
  Json cached(const std::string& key, Compute compute);
  // Plans already tried on a kernel (by text) in earlier iterations. (caller must hold mutex_)
  std::set<std::string> tried_on(int64_t kernel, int iteration) const;
  std::vector<roles::Plan> plans_for(int iteration, const std::set<std::string>& tried,
                                     const Scored& parent,
                                     const std::vector<roles::Insight>& insights,
                                     roles::Planner& planner, int count, const std::string& place);
  std::vector<Attempt> attempts_for_plan(int iteration, const std::string& place,
                                         const Scored& parent, const roles::Plan& plan,
                                         roles::Executor& executor, int implementations,
                                         store::CandidateKind kind);
  roles::KernelView view_of(int64_t candidate, uint64_t seed);
  // --- the loop ---------------------------------------------------------------------------------
  std::vector<Attempt> iterate(int iteration, const std::vector<roles::Insight>& insights);
  std::vector<Attempt> refine(int iteration, const std::vector<Scored>& entering,
                              const std::vector<roles::Insight>& insights);
  std::vector<store::MemoryEntryRecord> remember(int iteration,
                                                 const std::vector<Attempt>& attempts);
  std::vector<roles::Insight> insights();
  void checkpoint(int iteration, std::vector<store::MemoryEntryRecord>& entries);
  void restore(const store::Checkpoint& checkpoint);
  void stop(const std::string& reason);
  bool stopped() const;
  void emit(EventKind kind, int iteration, const std::string& message = {},
            const std::string& status = {});
  void note_result(const kernel::Verdict& verdict);
  RunSummary summary(const std::string& state) const;

  SearchConfig config_;
  std::string workload_;
  SearchContext& context_;
  int64_t run_id_;
  int64_t horizon_;
  Gate gate_;
  Clock::time_point started_;
  double wall_before_ = 0;  // wall seconds spent by earlier processes of this run

  mutable std::mutex mutex_;                          // guards everything below
  std::map<std::string, int64_t> evaluated_by_hash_;  // normalized hash → candidate evaluated
  std::map<std::string, std::shared_future<kernel::Verdict>> in_flight_;
  std::map<int64_t, store::CandidateRecord> candidates_;  // the run's, by id
  std::string stop_reason_;
  int done_ = 0, failed_ = 0;
  int64_t evaluations_ = 0;
  double best_speedup_ = 0, best_percent_ = 0;
  int current_iteration_ = 0;
  std::mutex event_mutex_;

  std::vector<Scored> beam_;
  Scored baseline_;
  int iterations_done_ = 0;
};

void Run::stop(const std::string& reason) {
  std::lock_guard lock(mutex_);
  if (stop_reason_.empty()) stop_reason_ = reason;
}

bool Run::stopped() const {
  std::lock_guard lock(mutex_);
  return !stop_reason_.empty();
}

void Run::emit(EventKind kind, int iteration, const std::string& message,
               const std::string& status) {
  if (context_.events == nullptr) return;
  SearchEvent event;
  event.kind = kind;
  event.run_id = run_id_;
  event.iteration = iteration;
  event.iterations = config_.iterations;
  {
    std::lock_guard lock(mutex_);
    event.candidates_done = done_;
    event.candidates_failed = failed_;
    event.evaluations = evaluations_;
    event.best_speedup = best_speedup_;
    event.best_percent_of_peak = best_percent_;
  }
  event.spend_usd = context_.spend_usd ? context_.spend_usd() : 0;
  event.message = message;
  event.status = status;
  std::lock_guard lock(event_mutex_);
  context_.events->on_event(event);
}

void Run::note_result(const kernel::Verdict& verdict) {  // caller must hold mutex_
  ++done_;
  if (!verdict.passed()) {
    ++failed_;
    return;
  }
  if (verdict.timing && verdict.timing->speedup > best_speedup_) {
    best_speedup_ = verdict.timing->speedup;
    best_percent_ = verdict.roofline ? verdict.roofline->percent_of_peak : 0;
  }
}

kernel::Verdict Run::run_platform(const std::string& source) {
  platform::EvalRequest request;
  request.task = context_.task;
  request.workload = workload_;
  request.source = source;
  request.timing = config_.timing;
  gate_.acquire();
  try {
    kernel::Verdict verdict = context_.platform->evaluate(request);
    gate_.release();
    return verdict;
  } catch (...) {
    gate_.release();
    throw;
  }
}

std::optional<Attempt> Run::evaluate(store::CandidateRecord record, int64_t beam_parent,
                                     const roles::Plan& plan) {
  Attempt attempt;
  attempt.beam_parent = beam_parent;
  attempt.plan = plan;
  attempt.source = record.source;
  attempt.author = record.author;
  // A stored key: this evaluation finished before (a resumed run); read it back.
  if (auto stored = context_.store->candidate_by_key(run_id_, record.key)) {
    auto trace = context_.store->trace(stored->id);
    if (!trace) throw InternalError("candidate " + std::to_string(stored->id) + " has no trace");
    attempt.candidate = stored->id;
    attempt.verdict = trace->verdict;
    attempt.reused = trace->reused_from.has_value();
    return attempt;
  }
  record.run_id = run_id_;
  record.task = context_.task->name;
  record.workload = workload_;
  record.plan = plan_to_json(plan);
  record.source_hash = sha256_hex(record.source);
  record.normalized_hash = record.source.empty() ? "" : normalized_hash(record.source);

  std::optional<int64_t> reused_from;
  std::shared_future<kernel::Verdict> pending;
  std::promise<kernel::Verdict> promise;
  bool mine = false;
  if (!record.source.empty()) {
    std::unique_lock lock(mutex_);
    if (auto found = evaluated_by_hash_.find(record.normalized_hash);
        found != evaluated_by_hash_.end()) {
      reused_from = found->second;
    } else if (auto flying = in_flight_.find(record.normalized_hash); flying != in_flight_.end()) {
      pending = flying->second;
    } else if (record.kind == store::CandidateKind::kBaseline) {
      // The baseline is measured whatever the budgets: a run needs it.
      ++evaluations_;
      mine = true;
      in_flight_[record.normalized_hash] = promise.get_future().share();
    } else {
      if (!stop_reason_.empty()) return std::nullopt;
      if (config_.max_evaluations && evaluations_ >= *config_.max_evaluations) {
        stop_reason_ = fmt::format("the evaluation budget ({}) is spent", *config_.max_evaluations);
        return std::nullopt;
      }
      double wall = wall_before_ + std::chrono::duration<double>(Clock::now() - started_).count();
      if (config_.max_wall_seconds && wall >= *config_.max_wall_seconds) {
        stop_reason_ =
            fmt::format("the wall-time budget ({:.0f} s) is spent", *config_.max_wall_seconds);
        return std::nullopt;
      }
      ++evaluations_;
      mine = true;
      in_flight_[record.normalized_hash] = promise.get_future().share();
    }
  }

  kernel::Verdict verdict;
  if (record.source.empty()) {
    verdict.status = kernel::Status::kRejectedSource;
    verdict.message = "The agent's answer held no kernel: " +
                      plan.detail.value("parse_error", std::string("no source"));
    verdict.task = context_.task->name;
    verdict.workload = workload_;
  } else if (reused_from) {
    verdict = context_.store->trace(*reused_from)->verdict;
  } else if (pending.valid()) {
    verdict = pending.get();
    std::lock_guard lock(mutex_);
    reused_from = evaluated_by_hash_.at(record.normalized_hash);
  } else {
    try {
      verdict = run_platform(record.source);
    } catch (...) {
      std::lock_guard lock(mutex_);
      in_flight_.erase(record.normalized_hash);
      promise.set_exception(std::current_exception());
      throw;
    }
  }
  attempt.candidate = context_.store->record_evaluation(record, verdict, reused_from);
  attempt.verdict = verdict;
  attempt.reused = reused_from.has_value();
  {
    std::lock_guard lock(mutex_);
    record.id = attempt.candidate;
    candidates_[record.id] = record;
    if (mine) {
      evaluated_by_hash_[record.normalized_hash] = record.id;
      in_flight_.erase(record.normalized_hash);
    }
    note_result(verdict);
    current_iteration_ = std::max(current_iteration_, record.iteration);
  }
  if (mine) promise.set_value(verdict);
  emit(EventKind::kCandidateFinished, record.iteration, {},
       std::string(kernel::status_name(verdict.status)));
  return attempt;
}

template <typename Compute>
Json Run::cached(const std::string& key, Compute compute) {
  if (auto stored = context_.store->answer(run_id_, key)) return *stored;
  Json answer = compute();
  context_.store->put_answer(run_id_, key, answer);
  return answer;
}

roles::KernelView Run::view_of(int64_t candidate, uint64_t seed) {
  roles::KernelView view;
  view.task = context_.task;
  view.workload = workload_;
  view.seed = seed;
  std::lock_guard lock(mutex_);
  auto found = candidates_.find(candidate);
  if (found != candidates_.end()) view.source = found->second.source;
  return view;
}

std::set<std::string> Run::tried_on(int64_t kernel, int iteration) const {
  std::set<std::string> tried;
  for (const auto& [id, candidate] : candidates_) {
    if (candidate.parent == kernel && candidate.iteration < iteration &&
        candidate.kind != store::CandidateKind::kFixer) {
      tried.insert(candidate.plan.value("text", ""));
    }
  }
  return tried;
}

std::vector<roles::Plan> Run::plans_for(int iteration, const std::set<std::string>& tried,
                                        const Scored& parent,
                                        const std::vector<roles::Insight>& insights,
                                        roles::Planner& planner, int count,
                                        const std::string& place) {
  if (stopped()) return {};
  // Ask for more plans than needed when some were tried on this kernel before, and drop those: a
  // kernel that stays in the beam explores further instead of repeating itself.
  int asked =
      count + static_cast<int>(std::min<size_t>(tried.size(), static_cast<size_t>(2 * count)));
  roles::KernelView view = view_of(parent.candidate, call_seed(config_.seed, iteration, place));
  view.verdict = parent.verdict;
  Json answer = cached(fmt::format("i{}/{}/plans", iteration, place), [&] {
    Json plans = Json::array();
    for (const roles::Plan& plan : planner.propose(view, insights, asked)) {
      plans.push_back(plan_to_json(plan));
    }
    return plans;
  });
  std::vector<roles::Plan> plans;
  std::set<std::string> seen;
  for (const Json& json : answer) {
    roles::Plan plan = plan_from_json(json);
    if (!seen.insert(plan_signature(plan)).second) continue;  // a duplicate plan
    if (tried.count(plan.text) > 0) continue;                 // tried on this kernel before
    plans.push_back(std::move(plan));
    if (static_cast<int>(plans.size()) >= count) break;
  }
  return plans;
}

std::vector<Attempt> Run::attempts_for_plan(int iteration, const std::string& place,
                                            const Scored& parent, const roles::Plan& plan,
                                            roles::Executor& executor, int implementations,
                                            store::CandidateKind kind) {
  std::vector<Attempt> finals;
  if (stopped()) return finals;
  roles::KernelView view =
      view_of(parent.candidate, call_seed(config_.seed, iteration, place + "/impl"));
  view.verdict = parent.verdict;
  Json answer = cached(fmt::format("i{}/{}/impl", iteration, place), [&] {
    Json list = Json::array();
    for (const auto& implementation : executor.implement(view, plan, implementations)) {
      list.push_back(implementation_to_json(implementation));
    }
    return list;
  });
  for (size_t index = 0; index < answer.size() && static_cast<int>(index) < implementations;
       ++index) {
    roles::Implementation implementation = implementation_from_json(answer[index]);
    std::string key = fmt::format("i{}/{}/k{}", iteration, place, index);
    store::CandidateRecord record;
    record.key = key;
    record.source = implementation.source;
    record.parent = parent.candidate;
    record.iteration = iteration;
    record.author = implementation.author.empty() ? plan.author : implementation.author;
    record.kind = kind;
    roles::Plan recorded = plan;
    if (!implementation.parse_error.empty())
      recorded.detail["parse_error"] = implementation.parse_error;
    std::optional<Attempt> attempt = evaluate(record, parent.candidate, recorded);
    for (int round = 1; attempt && !attempt->verdict.passed() && round <= config_.fix_rounds &&
                        context_.agents.fixer != nullptr && kind != store::CandidateKind::kTuner;
         ++round) {
      if (stopped()) break;
      roles::KernelView failed = view;
      failed.source = attempt->source;
      failed.verdict = attempt->verdict;
      failed.seed = call_seed(config_.seed, iteration, key + "/fix" + std::to_string(round));
      Json fixed = cached(fmt::format("{}/f{}/fix", key, round), [&]() -> Json {
        auto repaired = context_.agents.fixer->fix(failed, plan);
        return repaired ? implementation_to_json(*repaired) : Json(nullptr);
      });
      if (fixed.is_null()) break;
      roles::Implementation repaired = implementation_from_json(fixed);
      store::CandidateRecord fix_record;
      fix_record.key = fmt::format("{}/f{}", key, round);
      fix_record.source = repaired.source;
      fix_record.parent = attempt->candidate;
      fix_record.iteration = iteration;
      fix_record.author = repaired.author.empty() ? plan.author : repaired.author;
      fix_record.kind = store::CandidateKind::kFixer;
      roles::Plan fix_plan = plan;
      if (!repaired.parse_error.empty()) fix_plan.detail["parse_error"] = repaired.parse_error;
      auto next = evaluate(fix_record, parent.candidate, fix_plan);
      if (!next) break;
      attempt = next;
    }
    if (attempt) finals.push_back(std::move(*attempt));
  }
  return finals;
}

std::vector<Attempt> Run::iterate(int iteration, const std::vector<roles::Insight>& insights) {
  std::vector<Scored> parents;
  if (config_.strategy == Strategy::kBeam) {
    parents = beam_;
  } else {
    parents.assign(static_cast<size_t>(config_.beam_width), baseline_);
  }
  bool use_memory = config_.strategy == Strategy::kBeam;
  const std::vector<roles::Insight> no_insights;
  const auto& given = use_memory ? insights : no_insights;

  std::vector<std::set<std::string>> tried(parents.size());
  {
    std::lock_guard lock(mutex_);
    for (size_t slot = 0; slot < parents.size(); ++slot) {
      // Repeated sampling draws afresh from the baseline each time: nothing counts as tried.
      if (config_.strategy == Strategy::kBeam)
        tried[slot] = tried_on(parents[slot].candidate, iteration);
    }
  }
  ThreadPool pool(config_.agent_concurrency);
  // Plans for every beam kernel, concurrently.
  std::vector<std::vector<roles::Plan>> plans(parents.size());
  std::vector<std::future<void>> waits;
  for (size_t slot = 0; slot < parents.size(); ++slot) {
    waits.push_back(pool.submit([&, slot] {
      try {
        plans[slot] = plans_for(iteration, tried[slot], parents[slot], given,
                                *context_.agents.planner, config_.plans, fmt::format("b{}", slot));
      } catch (const roles::BudgetExhausted& error) {
        stop(fmt::format("the LLM budget is spent ({})", error.what()));
      } catch (const roles::AgentUnavailable& error) {
        emit(EventKind::kNote, iteration, fmt::format("planner failed: {}", error.what()));
      }
    }));
  }
  for (auto& wait : waits) wait.get();
  waits.clear();
  // Implementations, evaluations and fixes, one job per plan.
  std::vector<std::vector<Attempt>> results;
  std::vector<std::pair<size_t, size_t>> jobs;
  for (size_t slot = 0; slot < parents.size(); ++slot) {
    for (size_t index = 0; index < plans[slot].size(); ++index) jobs.emplace_back(slot, index);
  }
  results.resize(jobs.size());
  for (size_t job = 0; job < jobs.size(); ++job) {
    waits.push_back(pool.submit([&, job] {
      auto [slot, index] = jobs[job];
      try {
        results[job] = attempts_for_plan(
            iteration, fmt::format("b{}/p{}", slot, index), parents[slot], plans[slot][index],
            *context_.agents.executor, config_.implementations,
            plans[slot][index].author == "tuner" ? store::CandidateKind::kTuner
                                                 : store::CandidateKind::kExecutor);
      } catch (const roles::BudgetExhausted& error) {
        stop(fmt::format("the LLM budget is spent ({})", error.what()));
      } catch (const roles::AgentUnavailable& error) {
        emit(EventKind::kNote, iteration, fmt::format("executor failed: {}", error.what()));
      } catch (...) {
        stop("an error ended the run");  // the other jobs stop starting work; the error goes up
        throw;
      }
    }));
  }
  std::exception_ptr failure;
  for (auto& wait : waits) {
    try {
      wait.get();
    } catch (...) {
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
  std::vector<Attempt> all;
  for (auto& list : results) {
    for (auto& attempt : list) all.push_back(std::move(attempt));
  }
  return all;
}

std::vector<Attempt> Run::refine(int iteration, const std::vector<Scored>& entering,
                                 const std::vector<roles::Insight>& insights) {
  std::vector<Attempt> all;
  if (context_.agents.refine_planner == nullptr || context_.agents.refine_executor == nullptr ||
      config_.hybrid_tuner_evals <= 0) {
    return all;
  }
  for (const Scored& kernel : entering) {
    std::string author;
    {
      std::lock_guard lock(mutex_);
      author = candidates_[kernel.candidate].author;
    }
    if (author.rfind("llm", 0) != 0) continue;  // only LLM kernels are refined
    std::string place = fmt::format("refine/c{}", kernel.candidate);
    std::set<std::string> tried;
    {
      std::lock_guard lock(mutex_);
      tried = tried_on(kernel.candidate, iteration);
    }
    auto plans = plans_for(iteration, tried, kernel, insights, *context_.agents.refine_planner,
                           config_.hybrid_tuner_evals, place);
    for (size_t index = 0; index < plans.size(); ++index) {
      auto attempts =
          attempts_for_plan(iteration, fmt::format("{}/p{}", place, index), kernel, plans[index],
                            *context_.agents.refine_executor, 1, store::CandidateKind::kTuner);
      for (auto& attempt : attempts) all.push_back(std::move(attempt));
    }
  }
  return all;
}

std::vector<roles::Insight> Run::insights() {
  if (config_.strategy != Strategy::kBeam) return {};
  auto entries = memory::retrieve(context_.store->memory_entries(), *context_.task, config_.memory,
                                  run_id_, horizon_);
  std::vector<roles::Insight> result;
  for (const auto& entry : entries) {
    roles::Insight insight = memory::insight_from_json(entry.insight);
    insight.detail["task"] = entry.task;
    if (!insight.detail.contains("op_type")) insight.detail["op_type"] = entry.op_type;
    result.push_back(std::move(insight));
  }
  return result;
}

std::vector<store::MemoryEntryRecord> Run::remember(int iteration,
                                                    const std::vector<Attempt>& attempts) {
  std::vector<store::MemoryEntryRecord> entries;
  if (config_.strategy != Strategy::kBeam) return entries;
  std::vector<memory::Rewrite> rewrites;
  std::vector<const Attempt*> sources;
  std::set<std::string> seen;
  for (const Attempt& attempt : attempts) {
    // A reused verdict is a source measured before: its rewrite was offered then.
    if (!attempt.verdict.passed() || !attempt.verdict.timing || attempt.reused) continue;
    auto parent = context_.store->trace(attempt.beam_parent);
    if (!parent || !parent->verdict.timing) continue;
    if (!seen.insert(std::to_string(attempt.beam_parent) + "/" + normalized_hash(attempt.source))
             .second) {
      continue;
    }
    const kernel::Timing& fast = *attempt.verdict.timing;
    const kernel::Timing& slow = *parent->verdict.timing;
    if (slow.speedup <= 0 || slow.speedup_low <= 0) continue;
    rewrites.push_back(memory::Rewrite{
        attempt.beam_parent, attempt.candidate, fast.speedup / slow.speedup,
        fast.speedup_low / slow.speedup_high, fast.speedup_high / slow.speedup_low});
    sources.push_back(&attempt);
  }
  for (size_t index : memory::select_rewrites(rewrites, config_.memory)) {
    if (stopped() && context_.spend_usd) break;  // no LLM summaries past the budget
    const memory::Rewrite& rewrite = rewrites[index];
    const Attempt& attempt = *sources[index];
    roles::Summarizer* summarizer =
        attempt.plan.author == "tuner" && context_.agents.refine_summarizer != nullptr
            ? context_.agents.refine_summarizer
            : context_.agents.summarizer;
    if (summarizer == nullptr) continue;
    roles::RewritePair pair;
    pair.slow = view_of(rewrite.slow_candidate, 0);
    pair.slow.verdict = context_.store->trace(rewrite.slow_candidate)->verdict;
    pair.fast = view_of(rewrite.fast_candidate, 0);
    pair.fast.verdict = attempt.verdict;
    pair.plan = attempt.plan;
    pair.speedup = rewrite.speedup;
    pair.speedup_low = rewrite.speedup_low;
    pair.speedup_high = rewrite.speedup_high;
    Json answer;
    try {
      answer = cached(fmt::format("i{}/summary/{}-{}", iteration, rewrite.slow_candidate,
                                  rewrite.fast_candidate),
                      [&]() -> Json {
                        auto insight = summarizer->summarize(pair);
                        return insight ? memory::insight_to_json(*insight) : Json(nullptr);
                      });
    } catch (const roles::BudgetExhausted& error) {
      stop(fmt::format("the LLM budget is spent ({})", error.what()));
      break;
    } catch (const roles::AgentUnavailable& error) {
      emit(EventKind::kNote, iteration, fmt::format("summarizer failed: {}", error.what()));
      continue;
    }
    if (answer.is_null()) continue;
    entries.push_back(memory::make_entry(memory::insight_from_json(answer), rewrite, *context_.task,
                                         run_id_, iteration));
  }
  return entries;
}

void Run::checkpoint(int iteration, std::vector<store::MemoryEntryRecord>& entries) {
  Json beam = Json::array();
  for (const Scored& kernel : beam_) beam.push_back(kernel.candidate);
  double wall = wall_before_ + std::chrono::duration<double>(Clock::now() - started_).count();
  store::Checkpoint checkpoint{run_id_, iteration,
                               Json{{"beam", beam},
                                    {"baseline", baseline_.candidate},
                                    {"wall_seconds", wall},
                                    {"stop", stop_reason_}},
                               ""};
  context_.store->commit_iteration(checkpoint, entries);
  iterations_done_ = iteration;
}

void Run::restore(const store::Checkpoint& checkpoint) {
  auto verdict_of = [&](int64_t id) {
    auto trace = context_.store->trace(id);
    if (!trace) throw InternalError(fmt::format("run {}: candidate {} has no trace", run_id_, id));
    return trace->verdict;
  };
  baseline_ = Scored{checkpoint.state.at("baseline").get<int64_t>(), {}};
  baseline_.verdict = verdict_of(baseline_.candidate);
  beam_.clear();
  for (const Json& id : checkpoint.state.at("beam")) {
    beam_.push_back(Scored{id.get<int64_t>(), verdict_of(id.get<int64_t>())});
  }
  wall_before_ = checkpoint.state.value("wall_seconds", 0.0);
  iterations_done_ = checkpoint.iteration;
}

RunSummary Run::summary(const std::string& state) const {
  RunSummary result;
  result.run_id = run_id_;
  result.state = state;
  result.iterations_done = iterations_done_;
  result.evaluations = context_.store->evaluation_count(run_id_);
  result.baseline_candidate = baseline_.candidate;
  if (baseline_.verdict.roofline) {
    result.baseline_percent_of_peak = baseline_.verdict.roofline->percent_of_peak;
  }
  if (!beam_.empty()) {
    const Scored& best = fastest(beam_);
    result.best_candidate = best.candidate;
    result.best_speedup = rank_value(best.verdict);
    if (best.verdict.roofline) result.best_percent_of_peak = best.verdict.roofline->percent_of_peak;
  }
  return result;
}

RunSummary Run::go(bool resuming) {
  // What the store already holds of this run: candidates, the evaluated sources, the counters.
  for (const auto& candidate : context_.store->candidates(run_id_)) {
    candidates_[candidate.id] = candidate;
  }
  for (const auto& trace : context_.store->traces(run_id_)) {
    const auto& candidate = candidates_[trace.candidate_id];
    bool evaluated = !trace.reused_from && !candidate.normalized_hash.empty();
    if (evaluated) evaluated_by_hash_.emplace(candidate.normalized_hash, trace.candidate_id);
    if (candidate.kind == store::CandidateKind::kBaseline) continue;
    ++done_;
    if (!trace.verdict.passed()) ++failed_;
    if (evaluated) ++evaluations_;
    if (trace.verdict.passed() && trace.verdict.timing &&
        trace.verdict.timing->speedup > best_speedup_) {
      best_speedup_ = trace.verdict.timing->speedup;
      best_percent_ = trace.verdict.roofline ? trace.verdict.roofline->percent_of_peak : 0;
    }
  }
  emit(EventKind::kRunStarted, 0, resuming ? "resumed" : "started");

  int first_iteration = 1;
  auto last = context_.store->last_checkpoint(run_id_);
  if (last) {
    restore(*last);
    first_iteration = last->iteration + 1;
  } else {
    // Iteration 0: the baseline, the beam's first kernel.
    store::CandidateRecord record;
    record.key = "i0/baseline";
    record.source = read_file(context_.task->baseline_path());
    record.iteration = 0;
    record.author = "baseline";
    record.kind = store::CandidateKind::kBaseline;
    roles::Plan plan;
    plan.text = "the task's baseline";
    plan.author = "baseline";
    auto attempt = evaluate(record, 0, plan);
    if (!attempt) throw InternalError("the baseline was not evaluated");
    {
      std::lock_guard lock(mutex_);  // the baseline is not a candidate of the search
      --done_;
      if (!attempt->verdict.passed()) --failed_;
      if (!attempt->reused) --evaluations_;
    }
    if (!attempt->verdict.passed()) {
      std::string state =
          fmt::format("failed: the baseline does not pass ({}: {})",
                      kernel::status_name(attempt->verdict.status), attempt->verdict.message);
      context_.store->set_run_state(run_id_, state);
      emit(EventKind::kRunFinished, 0, state);
      return summary(state);
    }
    baseline_ = Scored{attempt->candidate, attempt->verdict};
    beam_ = {baseline_};
    std::vector<store::MemoryEntryRecord> none;
    checkpoint(0, none);
  }

  for (int iteration = first_iteration; iteration <= config_.iterations; ++iteration) {
    if (stopped()) break;
    emit(EventKind::kIterationStarted, iteration);
    auto given = insights();
    std::vector<Attempt> attempts = iterate(iteration, given);
    std::vector<Scored> newcomers;
    for (const Attempt& attempt : attempts) {
      // A reused verdict belongs to a source already offered to the beam (or in it).
      if (attempt.verdict.passed() && attempt.verdict.timing && !attempt.reused) {
        newcomers.push_back(Scored{attempt.candidate, attempt.verdict});
      }
    }
    std::vector<Scored> previous = beam_;
    if (config_.strategy == Strategy::kBeam) {
      beam_ = update_beam(beam_, newcomers, config_.beam_width);
    } else {
      beam_ = update_beam(beam_, newcomers, 1);  // repeated sampling keeps only its best
    }
    std::vector<Scored> entering;
    for (const Scored& kernel : beam_) {
      bool old = std::any_of(previous.begin(), previous.end(),
                             [&](const Scored& p) { return p.candidate == kernel.candidate; });
      if (!old) entering.push_back(kernel);
    }
    if (config_.strategy == Strategy::kBeam && !entering.empty() && !stopped()) {
      std::vector<Attempt> refined = refine(iteration, entering, given);
      std::vector<Scored> refined_passing;
      for (const Attempt& attempt : refined) {
        if (attempt.verdict.passed() && attempt.verdict.timing && !attempt.reused) {
          refined_passing.push_back(Scored{attempt.candidate, attempt.verdict});
        }
      }
      beam_ = update_beam(beam_, refined_passing, config_.beam_width);
      attempts.insert(attempts.end(), refined.begin(), refined.end());
    }
    std::vector<Scored> beam_after = beam_;
    beam_ = previous;  // rewrites are measured against the beam the plans were made for
    std::vector<store::MemoryEntryRecord> entries = remember(iteration, attempts);
    beam_ = beam_after;
    checkpoint(iteration, entries);
    emit(EventKind::kIterationFinished, iteration,
         fmt::format("{} memory entries", entries.size()));
    if (attempts.empty() && !stopped()) {
      emit(EventKind::kNote, iteration,
           "no new plans for any beam kernel: the search has converged");
      break;
    }
  }
  std::string state;
  {
    std::lock_guard lock(mutex_);
    state = stop_reason_.empty() ? "finished" : "stopped: " + stop_reason_;
  }
  context_.store->set_run_state(run_id_, state);
  emit(EventKind::kRunFinished, iterations_done_, state);
  return summary(state);
}

}  // namespace

namespace {
void check_context(const SearchContext& context) {
  if (context.task == nullptr || context.platform == nullptr || context.store == nullptr ||
      context.agents.planner == nullptr || context.agents.executor == nullptr) {
    throw InternalError("search: the context lacks a task, platform, store, planner or executor");
  }
}
}  // namespace

int64_t create_run(const SearchConfig& config, const std::string& workload, SearchContext& context,
                   const Json& extra) {
  if (context.task == nullptr || context.store == nullptr) {
    throw InternalError("search: create_run needs a task and a store");
  }
  const task::Workload& chosen = context.task->workload_or_default(workload);
  context.store->upsert_task(*context.task);
  Json record = extra;
  record["search"] = config.to_json();
  record["task"] = context.task->name;
  record["task_directory"] = std::filesystem::absolute(context.task->directory).string();
  record["workload"] = chosen.name;
  record["memory_horizon"] = context.store->max_memory_id();
  return context.store->create_run(record);
}

namespace {
RunSummary run_stored(int64_t run_id, SearchContext& context, bool resuming) {
  check_context(context);
  auto record = context.store->run(run_id);
  if (!record) throw UserError(fmt::format("there is no run {} in this workspace", run_id));
  if (record->state == "finished") {
    throw UserError(fmt::format("run {} has finished; nothing to resume", run_id));
  }
  SearchConfig config = SearchConfig::from_json(record->config.at("search"));
  if (resuming) context.store->set_run_state(run_id, "running");
  Run run(config, record->config.at("workload").get<std::string>(), context, run_id,
          record->config.value("memory_horizon", int64_t{0}));
  return run.go(resuming);
}
}  // namespace

RunSummary run_created(int64_t run_id, SearchContext& context) {
  return run_stored(run_id, context, false);
}

RunSummary start_run(const SearchConfig& config, const std::string& workload,
                     SearchContext& context, const Json& extra) {
  return run_created(create_run(config, workload, context, extra), context);
}

RunSummary resume_run(int64_t run_id, SearchContext& context) {
  return run_stored(run_id, context, true);
}

}  // namespace accelopt::search
