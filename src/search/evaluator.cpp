#include "search/evaluator.h"

#include <fmt/format.h>

#include <sstream>
#include <thread>

#include "common/error.h"
#include "common/hash.h"
#include "kernel/knobs.h"
#include "search/answers.h"
#include "search/figures.h"
#include "search/normalize.h"

namespace accelopt::search {

std::string knob_structure_hash(const std::string& source) {
  std::vector<kernel::Knob> knobs = kernel::parse_knobs(source);
  if (knobs.empty()) return {};
  std::map<int, std::string> knob_at;  // line → name
  for (const kernel::Knob& knob : knobs) knob_at[knob.line] = knob.name;
  std::istringstream stream(source);
  std::string line, structure;
  for (int number = 1; std::getline(stream, line); ++number) {
    auto knob = knob_at.find(number);
    // Code, not a comment: normalizing drops comments, and the knob's name must count.
    structure += knob == knob_at.end() ? line : "ACCELOPT_KNOB " + knob->second + ";";
    structure += '\n';
  }
  return normalized_hash(structure);
}

void CandidateBook::add(const store::CandidateRecord& candidate) {
  std::string structure = knob_structure_hash(candidate.source);  // outside the lock: it parses
  std::lock_guard lock(mutex_);
  candidates_[candidate.id] = candidate;
  if (!structure.empty()) structures_[candidate.id] = std::move(structure);
}

void CandidateBook::set_verdict(int64_t id, const kernel::Verdict& verdict) {
  std::lock_guard lock(mutex_);
  verdicts_[id] = verdict;
}

void CandidateBook::add_measurement(int64_t id, roles::NamedSpeedup measured) {
  std::lock_guard lock(mutex_);
  std::vector<roles::NamedSpeedup>& list = measurements_[id];
  for (const roles::NamedSpeedup& known : list) {
    if (known.name == measured.name) return;  // a resumed run hands the same one again
  }
  list.push_back(std::move(measured));
}

std::optional<store::CandidateRecord> CandidateBook::record_of(int64_t id) const {
  std::lock_guard lock(mutex_);
  auto found = candidates_.find(id);
  if (found == candidates_.end()) return std::nullopt;
  return found->second;
}

std::optional<kernel::Verdict> CandidateBook::verdict_of(int64_t id) const {
  std::lock_guard lock(mutex_);
  auto found = verdicts_.find(id);
  if (found == verdicts_.end()) return std::nullopt;
  return found->second;
}

std::vector<roles::NamedSpeedup> CandidateBook::measurements_of(int64_t id) const {
  std::lock_guard lock(mutex_);
  auto found = measurements_.find(id);
  return found == measurements_.end() ? std::vector<roles::NamedSpeedup>{} : found->second;
}

std::vector<int64_t> CandidateBook::knob_siblings(int64_t id) const {
  std::lock_guard lock(mutex_);
  std::vector<int64_t> siblings;
  auto mine = structures_.find(id);
  if (mine == structures_.end()) return siblings;
  for (const auto& [other, structure] : structures_) {
    if (structure == mine->second) siblings.push_back(other);
  }
  return siblings;
}

std::string CandidateBook::source_of(int64_t id) const {
  std::lock_guard lock(mutex_);
  auto found = candidates_.find(id);
  return found == candidates_.end() ? std::string() : found->second.source;
}

std::optional<store::CandidateKind> CandidateBook::kind_of(int64_t id) const {
  std::lock_guard lock(mutex_);
  auto found = candidates_.find(id);
  if (found == candidates_.end()) return std::nullopt;
  return found->second.kind;
}

std::set<std::string> CandidateBook::plans_tried_on(int64_t kernel, int iteration) const {
  std::lock_guard lock(mutex_);
  std::set<std::string> tried;
  for (const auto& [id, candidate] : candidates_) {
    if (candidate.parent == kernel && candidate.iteration < iteration &&
        candidate.kind != store::CandidateKind::kFixer) {
      tried.insert(candidate.plan.value("text", ""));
    }
  }
  return tried;
}

std::vector<store::CandidateRecord> CandidateBook::all() const {
  std::lock_guard lock(mutex_);
  std::vector<store::CandidateRecord> result;
  for (const auto& [id, candidate] : candidates_) result.push_back(candidate);
  return result;
}

namespace {

int places_or(const std::function<int()>& places_now, int fallback) {
  try {
    return places_now();
  } catch (const std::exception&) {
    return fallback;  // the database away for a moment: the count stands until it is back
  }
}

}  // namespace

Evaluator::Evaluator(const SearchConfig& config, EvaluatorParts parts)
    : config_(config),
      parts_(std::move(parts)),
      gate_(parts_.slots.empty() ? config.eval_concurrency
                                 : static_cast<int>(parts_.slots.size())) {
  if (!parts_.places_now) return;
  if (!parts_.slots.empty()) {
    throw InternalError("evaluator: places that follow the workers take no pinned slots");
  }
  gate_.resize(places_or(parts_.places_now, 1));
  follow_places_ = std::jthread([this](std::stop_token stop) {
    std::mutex mutex;
    std::condition_variable_any tick;
    while (!stop.stop_requested()) {
      std::unique_lock lock(mutex);
      tick.wait_for(lock, stop, parts_.places_refresh, [] { return false; });
      if (stop.stop_requested()) return;
      gate_.resize(places_or(parts_.places_now, gate_.places()));
    }
  });
}

void Evaluator::load_stored() {
  std::map<int64_t, store::CandidateRecord> by_id;
  for (const auto& candidate : parts_.store->candidates(parts_.run_id)) {
    parts_.book->add(candidate);
    by_id[candidate.id] = candidate;
  }
  std::lock_guard lock(mutex_);
  for (const auto& trace : parts_.store->traces(parts_.run_id)) {
    const store::CandidateRecord& candidate = by_id[trace.candidate_id];
    bool evaluated = !trace.reused_from && !candidate.normalized_hash.empty();
    // A busy machine's verdict stands for no source: the next candidate with it runs again.
    if (evaluated && !trace.verdict.machine_busy()) {
      evaluated_by_hash_.emplace(candidate.normalized_hash, trace.candidate_id);
    }
    parts_.book->set_verdict(trace.candidate_id, trace.verdict);
    if (candidate.kind == store::CandidateKind::kBaseline) continue;
    if (evaluated) ++started_;
    parts_.progress->count(trace.verdict, evaluated);
  }
}

std::string Evaluator::budget_spent() const {
  if (config_.max_evaluations && started_ >= *config_.max_evaluations) {
    return fmt::format("the evaluation budget ({}) is spent", *config_.max_evaluations);
  }
  if (config_.max_wall_seconds && parts_.clock->seconds() >= *config_.max_wall_seconds) {
    return fmt::format("the wall-time budget ({:.0f} s) is spent", *config_.max_wall_seconds);
  }
  return {};
}

kernel::Verdict Evaluator::run_platform(platform::EvalRequest request) {
  request.task = parts_.task;
  request.workload = parts_.workload;
  request.abandon = parts_.stop->interrupt_flag();
  if (request.anchor_source.empty()) request.anchor_source = baseline_source_;
  Gate::Pass slot(gate_);
  if (!parts_.slots.empty()) request.cores = parts_.slots[static_cast<size_t>(slot.place())];
  return parts_.platform->evaluate(request);
}

kernel::Verdict Evaluator::run_candidate(const platform::EvalRequest& request, int iteration) {
  kernel::Verdict verdict = run_platform(request);
  if (!verdict.machine_busy() || parts_.stop->stopped()) return verdict;
  parts_.progress->emit(EventKind::kNote, iteration,
                        "the machine was busy; evaluating again in a moment: " + verdict.message);
  std::this_thread::sleep_for(parts_.busy_pause);
  if (parts_.stop->stopped()) return verdict;
  return run_platform(request);
}

kernel::Verdict Evaluator::time_head_to_head(const std::string& source,
                                             const std::string& anchor_source,
                                             const std::string& anchor_name,
                                             const platform::TimingOptions& timing) {
  platform::EvalRequest request;
  request.source = source;
  request.anchor_source = anchor_source;
  request.anchor_name = anchor_name;
  request.timing = timing;
  return run_platform(std::move(request));
}

std::optional<kernel::Verdict> Evaluator::check_correctness(const std::string& source) {
  platform::EvalRequest request;
  request.source = source;
  request.anchor_source = source;
  request.measure_time = false;
  try {
    return run_platform(std::move(request));
  } catch (const platform::EvaluationAbandoned&) {
    return std::nullopt;
  }
}

std::optional<Attempt> Evaluator::evaluate(store::CandidateRecord record, int64_t beam_parent,
                                           const roles::Plan& plan) {
  Attempt attempt;
  attempt.beam_parent = beam_parent;
  attempt.plan = plan;
  attempt.source = record.source;
  attempt.kind = record.kind;
  store::Store& store = *parts_.store;
  // A stored key: this evaluation finished before (a resumed run); read it back.
  if (auto stored = store.candidate_by_key(parts_.run_id, record.key)) {
    auto trace = store.trace(stored->id);
    if (!trace) throw InternalError(fmt::format("candidate {} has no trace", stored->id));
    attempt.candidate = stored->id;
    attempt.verdict = trace->verdict;
    attempt.reused = trace->reused_from.has_value();
    return attempt;
  }
  record.run_id = parts_.run_id;
  record.task = parts_.task->name;
  record.workload = parts_.workload;
  record.plan = plan_to_json(plan);
  record.source_hash = sha256_hex(record.source);
  record.normalized_hash = record.source.empty() ? "" : normalized_hash(record.source);
  bool baseline = record.kind == store::CandidateKind::kBaseline;

  std::optional<int64_t> reused_from;
  std::shared_future<kernel::Verdict> pending;
  std::promise<kernel::Verdict> promise;
  bool mine = false;
  if (!record.source.empty()) {
    std::lock_guard lock(mutex_);
    if (auto found = evaluated_by_hash_.find(record.normalized_hash);
        found != evaluated_by_hash_.end()) {
      reused_from = found->second;
    } else if (auto flying = in_flight_.find(record.normalized_hash); flying != in_flight_.end()) {
      pending = flying->second;
    } else {
      if (!baseline) {  // the baseline is measured whatever the budgets: a run needs it
        if (parts_.stop->stopped()) return std::nullopt;
        if (std::string spent = budget_spent(); !spent.empty()) {
          parts_.stop->stop(spent);
          return std::nullopt;
        }
        ++started_;
      }
      mine = true;
      in_flight_[record.normalized_hash] = promise.get_future().share();
    }
  }

  kernel::Verdict verdict;
  if (record.source.empty()) {
    verdict.status = kernel::Status::kRejectedSource;
    verdict.message = "The agent's answer held no kernel: " +
                      plan.detail.value("parse_error", std::string("no source"));
    verdict.task = parts_.task->name;
    verdict.workload = parts_.workload;
  } else if (reused_from) {
    verdict = store.trace(*reused_from)->verdict;
  } else if (pending.valid()) {
    try {
      verdict = pending.get();
    } catch (const platform::EvaluationAbandoned&) {
      return std::nullopt;
    }
    std::lock_guard lock(mutex_);
    // Busy there, busy here: recorded as this candidate's own, standing for no source.
    if (!verdict.machine_busy()) reused_from = evaluated_by_hash_.at(record.normalized_hash);
  } else {
    try {
      platform::EvalRequest request;
      request.source = record.source;
      request.timing = baseline ? careful_timing(config_.timing) : config_.timing;
      request.time_ceiling = baseline;  // the run's one % of peak: its ceiling in the same minutes
      verdict = run_candidate(request, record.iteration);
    } catch (const platform::EvaluationAbandoned&) {
      std::lock_guard lock(mutex_);
      in_flight_.erase(record.normalized_hash);
      promise.set_exception(std::current_exception());
      return std::nullopt;  // interrupted: nothing recorded, a resumed run evaluates it again
    } catch (...) {
      std::lock_guard lock(mutex_);
      in_flight_.erase(record.normalized_hash);
      promise.set_exception(std::current_exception());
      throw;
    }
  }
  if (baseline && verdict.machine_busy()) {
    // Not recorded: the run cannot start without its baseline, and a resumed run evaluates it
    // afresh (a stored key would be read back as it is).
    if (mine) {
      {
        std::lock_guard lock(mutex_);
        in_flight_.erase(record.normalized_hash);
      }
      promise.set_value(verdict);
    }
    attempt.verdict = verdict;
    return attempt;
  }
  // The row carries the run's figure (figures.h); the baseline's own timing is the run's scale.
  std::optional<store::TraceFigures> row;
  if (!baseline && verdict.passed() && verdict.timing) {
    Figures figures = parts_.progress->scale().of(verdict);
    row = store::TraceFigures{figures.speedup, figures.latency_seconds, figures.percent_of_peak};
  }
  attempt.candidate = store.record_evaluation(record, verdict, reused_from, row);
  attempt.verdict = verdict;
  attempt.reused = reused_from.has_value();
  record.id = attempt.candidate;
  parts_.book->add(record);
  parts_.book->set_verdict(record.id, verdict);
  if (mine) {
    {
      std::lock_guard lock(mutex_);
      if (!verdict.machine_busy()) evaluated_by_hash_[record.normalized_hash] = record.id;
      in_flight_.erase(record.normalized_hash);
    }
    promise.set_value(verdict);
  }
  if (!baseline) parts_.progress->count(verdict, mine);
  parts_.progress->emit(EventKind::kCandidateFinished, record.iteration, {},
                        std::string(kernel::status_name(verdict.status)));
  return attempt;
}

}  // namespace accelopt::search
