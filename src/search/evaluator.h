// Evaluating candidates, the search's CommandRunner: each distinct source (equal after normalizing,
// normalize.h) runs on the platform once, within the run's budgets, at most eval_concurrency at a
// time, each in a slot of its own (with the cores its runners are pinned to, when the caller gave
// them); a repeat is recorded as a candidate whose trace copies the first. Every candidate lands in
// the store with its verdict, one transaction each, under its key: a key already stored (a resumed
// run) is read back instead of evaluated. Budgets count evaluations as they start, so the ones in
// flight never take a run past max_evaluations. A verdict of MACHINE_BUSY (the machine too busy to
// judge the kernel) is evaluated again once after a pause; still busy, it is recorded as such but
// never stands for its source: the next candidate with that source is evaluated afresh, in this run
// or a resumed one. (thread-safe)
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "platform/platform.h"
#include "roles/roles.h"
#include "search/config.h"
#include "search/progress.h"
#include "search/stop.h"
#include "search/thread_pool.h"
#include "store/store.h"
#include "task/task.h"

namespace accelopt::search {

// One evaluated candidate, as the iteration sees it.
struct Attempt {
  int64_t candidate = 0;
  kernel::Verdict verdict;
  int64_t beam_parent = 0;  // the beam kernel the plan was made for
  roles::Plan plan;
  std::string source;
  store::CandidateKind kind = store::CandidateKind::kExecutor;
  bool reused = false;  // the verdict copies an earlier evaluation of the same source
};

// The run's candidates by id: what agents are shown of a kernel, what was tried on it, and the
// measurements of a kernel against the baseline taken apart from its own timing (the memory's
// re-timings, the confirmation). (thread-safe)
class CandidateBook {
 public:
  void add(const store::CandidateRecord& candidate);
  void set_verdict(int64_t id, const kernel::Verdict& verdict);
  void add_measurement(int64_t id, roles::NamedSpeedup measured);
  std::string source_of(int64_t id) const;  // empty for an unknown id
  std::optional<store::CandidateKind> kind_of(int64_t id) const;
  std::optional<store::CandidateRecord> record_of(int64_t id) const;
  std::optional<kernel::Verdict> verdict_of(int64_t id) const;
  std::vector<roles::NamedSpeedup> measurements_of(int64_t id) const;
  // The candidates whose source equals `id`'s apart from knob values (`id` included), by id;
  // empty when its source declares no knobs.
  std::vector<int64_t> knob_siblings(int64_t id) const;
  // The plan texts tried on `kernel` before `iteration` (repairs not counted).
  std::set<std::string> plans_tried_on(int64_t kernel, int iteration) const;
  std::vector<store::CandidateRecord> all() const;  // by id

 private:
  mutable std::mutex mutex_;
  std::map<int64_t, store::CandidateRecord> candidates_;
  std::map<int64_t, kernel::Verdict> verdicts_;
  std::map<int64_t, std::vector<roles::NamedSpeedup>> measurements_;
  std::map<int64_t, std::string> structures_;  // knob values left out, normalized; with knobs only
};

// The hash of `source` normalized with its knobs' values left out; empty when it has no knobs.
std::string knob_structure_hash(const std::string& source);

// The run's wall time: what earlier processes spent plus this one's.
class RunClock {
 public:
  void add_earlier(double seconds) { before_ = seconds; }
  double seconds() const {
    return before_ + std::chrono::duration<double>(Clock::now() - started_).count();
  }

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point started_ = Clock::now();
  double before_ = 0;
};

struct EvaluatorParts {
  const task::Task* task = nullptr;
  std::string workload;
  int64_t run_id = 0;
  platform::Platform* platform = nullptr;
  store::Store* store = nullptr;
  CandidateBook* book = nullptr;
  Progress* progress = nullptr;
  StopSignal* stop = nullptr;
  const RunClock* clock = nullptr;
  // One entry per evaluation that may run at once: the cores its runners are pinned to (empty: the
  // platform's choice). Empty: config.eval_concurrency slots (at least one), none pinned.
  std::vector<std::vector<int>> slots;
  std::chrono::milliseconds busy_pause{10000};  // before a MACHINE_BUSY evaluation's second try
  // How many evaluations may run at once now (remote: the workers connected now), asked when the
  // evaluator starts and every `places_refresh` after, so that workers arriving late are used.
  // Empty: `slots` (or eval_concurrency) for the whole run. Takes `slots` empty (none pinned).
  std::function<int()> places_now;
  std::chrono::milliseconds places_refresh{250};
};

class Evaluator {
 public:
  Evaluator(const SearchConfig& config, EvaluatorParts parts);

  // Takes in what the store holds of the run: its candidates, sources evaluated, counters.
  void load_stored();
  // How many evaluations may run at once now.
  int concurrency() const { return gate_.places(); }
  // Whether evaluations may ever run at once (more than one place, or places that follow the
  // workers): the iteration's jobs then run at once instead of one after another.
  bool parallel() const { return static_cast<bool>(parts_.places_now) || gate_.places() > 1; }

  // Evaluates `record` (key, source, parent, iteration, author, kind set by the caller) made for
  // beam kernel `beam_parent` from `plan`. nullopt when a budget or a stop request keeps it from
  // starting, or when Ctrl-C abandons it on the way (nothing is recorded then). The baseline is
  // evaluated whatever the budgets, with careful timing (figures.h): the run's % of peak rests on
  // it; a baseline the machine was too busy to judge is not recorded (candidate 0). Platform
  // errors propagate.
  std::optional<Attempt> evaluate(store::CandidateRecord record, int64_t beam_parent,
                                  const roles::Plan& plan);

  // Times `source` against `anchor_source` (empty: the baseline) with `timing`, for the run's
  // confirmation and the memory's re-timing: not a candidate, not recorded, not counted against
  // the budgets. Throws platform::EvaluationAbandoned when Ctrl-C abandons it.
  kernel::Verdict time_head_to_head(const std::string& source, const std::string& anchor_source,
                                    const std::string& anchor_name,
                                    const platform::TimingOptions& timing);

  // Checks `source` for correctness only (no timing): not a candidate, not recorded, not counted.
  // nullopt when Ctrl-C abandons it.
  std::optional<kernel::Verdict> check_correctness(const std::string& source);

  // The baseline every evaluation is timed against where the task's own file is not it (a task
  // without a baseline, whose run starts from a kernel the executor wrote). Set before any
  // evaluation starts; empty: the task's baseline file.
  void use_baseline_source(std::string source) { baseline_source_ = std::move(source); }

 private:
  // Why a new evaluation may not start now; empty: it may. (caller must hold mutex_)
  std::string budget_spent() const;
  kernel::Verdict run_platform(platform::EvalRequest request);
  // run_platform for a candidate, tried again once after busy_pause when the machine was busy.
  kernel::Verdict run_candidate(const platform::EvalRequest& request, int iteration);

  const SearchConfig& config_;
  EvaluatorParts parts_;
  std::string baseline_source_;  // empty: the task's baseline file

  std::mutex mutex_;                                  // guards the three below
  std::map<std::string, int64_t> evaluated_by_hash_;  // normalized hash → candidate evaluated
  std::map<std::string, std::shared_future<kernel::Verdict>> in_flight_;
  int64_t started_ = 0;  // evaluations started (the baseline's not counted): the budget's count

  Gate gate_;  // evaluations running at once, one slot each
  // Resizes gate_ to places_now() every places_refresh; last, so it stops before the rest goes.
  std::jthread follow_places_;
};

}  // namespace accelopt::search
