#include "search/proposer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "kernel/knobs.h"
#include "search/normalize.h"

namespace accelopt::search {
namespace {

// Two plans with the same words (case and spacing aside) and the same detail are one plan.
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

}  // namespace

Proposer::Proposer(const SearchConfig& config, const task::Task& task, std::string workload,
                   AnswerCache& answers, Evaluator& evaluator, CandidateBook& book,
                   Progress& progress, StopSignal& stop)
    : config_(config),
      task_(task),
      workload_(std::move(workload)),
      answers_(answers),
      evaluator_(evaluator),
      book_(book),
      progress_(progress),
      stop_(stop),
      agent_gate_(config.agent_concurrency) {}

void Proposer::load_repairs() {
  std::map<int64_t, std::string> hash_of;
  auto candidates = book_.all();
  for (const auto& candidate : candidates) hash_of[candidate.id] = candidate.normalized_hash;
  std::lock_guard lock(mutex_);
  for (const auto& candidate : candidates) {
    if (candidate.kind != store::CandidateKind::kFixer || !candidate.parent) continue;
    auto key = CandidateKey::parse(candidate.key);
    const std::string& failed = hash_of[*candidate.parent];
    if (key && !failed.empty()) repairs_.emplace(failed, key->repair_answer());
  }
}

AgentTally Proposer::take_tally() {
  std::lock_guard lock(mutex_);
  return std::exchange(tally_, AgentTally{});
}

template <typename Ask>
Json Proposer::call(const std::string& key, Ask ask) {
  return answers_.get_or_ask(key, [&]() -> Json {
    {
      std::lock_guard lock(mutex_);
      ++tally_.calls;
    }
    try {
      Gate::Pass turn(agent_gate_);  // at most agent_concurrency calls in flight
      return ask();
    } catch (const roles::AgentUnavailable& error) {
      std::lock_guard lock(mutex_);
      ++tally_.unavailable;
      tally_.last_error = error.what();
      throw;
    }
  });
}

roles::KernelView Proposer::view_of(int64_t candidate, uint64_t seed) const {
  roles::KernelView view;
  view.task = &task_;
  view.workload = workload_;
  view.seed = seed;
  view.source = book_.source_of(candidate);
  view.timing_target = config_.timing.target_half_width;
  return view;
}

void Proposer::add_figures(roles::KernelView& view, int64_t candidate) const {
  add_kernel_figures(view, candidate, book_, progress_.scale());
}

void add_kernel_figures(roles::KernelView& view, int64_t candidate, const CandidateBook& book,
                        const RunScale& scale) {
  auto kernel_verdict = book.verdict_of(candidate);
  auto record = book.record_of(candidate);
  if (kernel_verdict && record) {
    view.figures =
        kernel_figures(scale, *kernel_verdict, record->kind == store::CandidateKind::kBaseline,
                       record->iteration, book.measurements_of(candidate));
  }
  std::vector<int64_t> siblings = book.knob_siblings(candidate);
  if (siblings.size() < 2) return;  // only the kernel itself: no other value was timed
  for (int64_t sibling : siblings) {
    auto verdict = book.verdict_of(sibling);
    if (!verdict) continue;  // being evaluated
    roles::KnobTiming timing;
    for (const kernel::Knob& knob : kernel::parse_knobs(book.source_of(sibling))) {
      timing.setting +=
          fmt::format("{}{} = {}", timing.setting.empty() ? "" : ", ", knob.name, knob.value);
    }
    timing.status = kernel::status_name(verdict->status);
    timing.current = sibling == candidate;
    auto record_of_sibling = book.record_of(sibling);
    bool baseline = record_of_sibling && record_of_sibling->kind == store::CandidateKind::kBaseline;
    if (auto figures =
            kernel_figures(scale, *verdict, baseline, 0, book.measurements_of(sibling))) {
      timing.speedup = figures->speedup;
      timing.speedup_low = figures->speedup_low;
      timing.speedup_high = figures->speedup_high;
    }
    // The same setting evaluated again (a repeat source) is listed once.
    bool repeat = std::any_of(
        view.knob_timings.begin(), view.knob_timings.end(),
        [&](const roles::KnobTiming& known) { return known.setting == timing.setting; });
    if (repeat) {
      if (timing.current) {
        for (auto& known : view.knob_timings) known.current |= known.setting == timing.setting;
      }
      continue;
    }
    view.knob_timings.push_back(std::move(timing));
  }
  if (view.knob_timings.size() < 2) view.knob_timings.clear();
}

std::vector<roles::Plan> Proposer::plans(const CandidateKey& slot, const Scored& parent,
                                         const std::set<std::string>& tried,
                                         const std::vector<roles::Insight>& insights,
                                         roles::Planner& planner, int count) {
  std::vector<roles::Plan> result;
  plans_each(slot, parent, tried, insights, planner, count,
             [&](size_t, roles::Plan plan) { result.push_back(std::move(plan)); });
  return result;
}

void Proposer::plans_each(const CandidateKey& slot, const Scored& parent,
                          const std::set<std::string>& tried,
                          const std::vector<roles::Insight>& insights, roles::Planner& planner,
                          int count, const std::function<void(size_t, roles::Plan)>& each) {
  if (stop_.stopped()) return;
  int asked =
      count + static_cast<int>(std::min<size_t>(tried.size(), static_cast<size_t>(2 * count)));
  roles::KernelView view = view_of(parent.candidate, slot.plans_seed(config_.seed));
  view.verdict = parent.verdict;
  add_figures(view, parent.candidate);
  view.tried_plans.assign(tried.begin(), tried.end());
  view.place = slot.str();
  std::set<std::string> seen;
  size_t handed = 0;
  auto offer = [&](const Json& json) {
    roles::Plan plan = plan_from_json(json);  // as a resumed run reads it back
    if (static_cast<int>(handed) >= count) return;
    if (!seen.insert(plan_signature(plan)).second) return;  // a duplicate plan
    if (tried.count(plan.text) > 0) return;                 // tried on this kernel before
    each(handed++, std::move(plan));
  };
  bool drawn = false;
  Json answer = call(slot.plans_answer(), [&] {
    drawn = true;
    Json plans = Json::array();
    planner.propose_each(view, insights, asked, [&](roles::Plan plan) {
      plans.push_back(plan_to_json(plan));
      offer(plans.back());
    });
    return plans;
  });
  if (drawn) return;
  for (const Json& json : answer) offer(json);
}

std::vector<Attempt> Proposer::attempts(const CandidateKey& place, const Scored& parent,
                                        const roles::Plan& plan, roles::Executor& executor,
                                        roles::Fixer* fixer, int implementations,
                                        store::CandidateKind kind) {
  std::vector<Attempt> finals;
  if (stop_.stopped()) return finals;
  roles::KernelView view = view_of(parent.candidate, place.implementations_seed(config_.seed));
  view.verdict = parent.verdict;
  add_figures(view, parent.candidate);
  view.place = place.str();
  Json answer = call(place.implementations_answer(), [&] {
    Json list = Json::array();
    for (const auto& implementation : executor.implement(view, plan, implementations)) {
      list.push_back(implementation_to_json(implementation));
    }
    return list;
  });
  size_t count = std::min(answer.size(), static_cast<size_t>(std::max(0, implementations)));
  // Each implementation is evaluated (and repaired) on its own; with evaluations in parallel all
  // of them at once. The attempts keep the implementations' order whatever finishes first.
  std::vector<std::optional<Attempt>> results(count);
  auto one = [&](size_t index) {
    roles::Implementation implementation = implementation_from_json(answer[index]);
    CandidateKey key = place.implementation(static_cast<int>(index));
    store::CandidateRecord record;
    record.key = key.str();
    record.source = implementation.source;
    record.parent = parent.candidate;
    record.iteration = key.iteration();
    record.author = implementation.author.empty() ? plan.author : implementation.author;
    record.kind = kind;
    roles::Plan recorded = plan;
    if (!implementation.parse_error.empty()) {
      recorded.detail["parse_error"] = implementation.parse_error;
    }
    std::optional<Attempt> attempt = evaluator_.evaluate(record, parent.candidate, recorded);
    // A busy machine's verdict is no error of the kernel's for the fixer to repair.
    if (attempt && fixer != nullptr && attempt->verdict.failed()) {
      attempt = repaired(key, std::move(*attempt), parent, plan, *fixer);
    }
    results[index] = std::move(attempt);
  };
  if (evaluator_.parallel()) {
    run_together(count, one);
  } else {
    for (size_t index = 0; index < count; ++index) one(index);
  }
  for (auto& attempt : results) {
    if (attempt) finals.push_back(std::move(*attempt));
  }
  return finals;
}

Attempt Proposer::repaired(const CandidateKey& key, Attempt attempt, const Scored& parent,
                           const roles::Plan& plan, roles::Fixer& fixer) {
  for (int round = 1; attempt.verdict.failed() && round <= config_.fix_rounds; ++round) {
    if (stop_.stopped()) break;
    CandidateKey repair = key.repair(round);
    std::string failed_hash = attempt.source.empty() ? "" : normalized_hash(attempt.source);
    std::optional<std::string> earlier;  // the repair this source got before
    if (attempt.reused && !failed_hash.empty()) {
      std::lock_guard lock(mutex_);
      if (auto found = repairs_.find(failed_hash); found != repairs_.end()) earlier = found->second;
    }
    if (attempt.reused && !earlier) break;  // judged before and not repaired then: not now either
    Json fixed;
    try {
      if (earlier) {
        fixed = answers_.get_or_ask(repair.repair_answer(),
                                    [&] { return answers_.stored(*earlier).value_or(nullptr); });
      } else {
        roles::KernelView failed = view_of(parent.candidate, key.repair_seed(config_.seed, round));
        failed.source = attempt.source;
        failed.verdict = attempt.verdict;
        failed.place = repair.str();
        fixed = call(repair.repair_answer(), [&]() -> Json {
          auto answer = fixer.fix(failed, plan);
          return answer ? implementation_to_json(*answer) : Json(nullptr);
        });
      }
    } catch (const roles::AgentUnavailable& error) {
      progress_.emit(EventKind::kNote, key.iteration(),
                     fmt::format("fixer failed: {}", error.what()));
      break;
    }
    if (!failed_hash.empty()) {
      std::lock_guard lock(mutex_);
      repairs_.emplace(failed_hash, repair.repair_answer());
    }
    if (fixed.is_null()) break;
    roles::Implementation implementation = implementation_from_json(fixed);
    store::CandidateRecord record;
    record.key = repair.str();
    record.source = implementation.source;
    record.parent = attempt.candidate;
    record.iteration = key.iteration();
    record.author = implementation.author.empty() ? plan.author : implementation.author;
    record.kind = store::CandidateKind::kFixer;
    roles::Plan fix_plan = plan;
    if (!implementation.parse_error.empty()) {
      fix_plan.detail["parse_error"] = implementation.parse_error;
    }
    auto next = evaluator_.evaluate(record, parent.candidate, fix_plan);
    if (!next) break;
    attempt = std::move(*next);
  }
  return attempt;
}

}  // namespace accelopt::search
