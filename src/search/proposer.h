// Asking the agents for candidates, the search's Builder: plans for a beam kernel, implementations
// of a plan, and repairs of a failed implementation (up to fix_rounds), each evaluated as it
// arrives. Answers are kept in the store under the place's key (answers.h), so a resumed run asks
// nothing twice; a source judged before keeps its repair too: the fixer is not asked again for it.
//
// The agents' errors: roles::BudgetExhausted goes up to the caller, which stops the run;
// roles::AgentUnavailable is counted in the tally (the run fails when nothing could be reached) and
// goes up too, except from the fixer, whose failure only ends the repairs. (thread-safe)
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "roles/roles.h"
#include "search/answers.h"
#include "search/candidate_key.h"
#include "search/evaluator.h"
#include "search/figures.h"
#include "search/selection.h"
#include "search/thread_pool.h"

namespace accelopt::search {

// Fills `view`'s figures (figures.h) and the timed knob values of its structure from what `book`
// holds of `candidate`.
void add_kernel_figures(roles::KernelView& view, int64_t candidate, const CandidateBook& book,
                        const RunScale& scale);

// The agent calls of an iteration, for deciding whether the agents could be reached at all.
struct AgentTally {
  int calls = 0;        // asked (answers read back from the store not counted)
  int unavailable = 0;  // failed with roles::AgentUnavailable
  std::string last_error;
};

class Proposer {
 public:
  Proposer(const SearchConfig& config, const task::Task& task, std::string workload,
           AnswerCache& answers, Evaluator& evaluator, CandidateBook& book, Progress& progress,
           StopSignal& stop);

  // Takes in the repairs the store holds (a resumed run).
  void load_repairs();

  // Up to `count` new plans for `parent` at `slot` (a beam slot or a refinement): the planner is
  // asked for more when some were tried on this kernel before (`tried`), and those and exact
  // duplicates are dropped, so a kernel that stays in the beam explores further.
  std::vector<roles::Plan> plans(const CandidateKey& slot, const Scored& parent,
                                 const std::set<std::string>& tried,
                                 const std::vector<roles::Insight>& insights,
                                 roles::Planner& planner, int count);
  // The same plans, each handed to `each` with its index among them as soon as the planner draws
  // it (roles::Planner::propose_each), so that its implementations start while the next is drawn.
  // A stored answer (a resumed run) hands them all at once. The answer is stored once every plan
  // is drawn: a run stopped in between asks the planner again on resume.
  void plans_each(const CandidateKey& slot, const Scored& parent,
                  const std::set<std::string>& tried, const std::vector<roles::Insight>& insights,
                  roles::Planner& planner, int count,
                  const std::function<void(size_t, roles::Plan)>& each);

  // `implementations` kernels of `plan` (at `place`, a plan's key) applied to `parent`, each
  // evaluated and, if it fails and `fixer` is given, repaired. One attempt per implementation: the
  // last of its repairs.
  std::vector<Attempt> attempts(const CandidateKey& place, const Scored& parent,
                                const roles::Plan& plan, roles::Executor& executor,
                                roles::Fixer* fixer, int implementations,
                                store::CandidateKind kind);

  AgentTally take_tally();  // this iteration's so far; starts a new one

 private:
  // Calls `ask` once, counting it in the tally.
  template <typename Ask>
  Json call(const std::string& key, Ask ask);
  // The attempt after up to fix_rounds repairs of `attempt` (implementation key `key`).
  Attempt repaired(const CandidateKey& key, Attempt attempt, const Scored& parent,
                   const roles::Plan& plan, roles::Fixer& fixer);
  roles::KernelView view_of(int64_t candidate, uint64_t seed) const;
  void add_figures(roles::KernelView& view, int64_t candidate) const;

  const SearchConfig& config_;
  const task::Task& task_;
  std::string workload_;
  AnswerCache& answers_;
  Evaluator& evaluator_;
  CandidateBook& book_;
  Progress& progress_;
  StopSignal& stop_;

  std::mutex mutex_;                            // guards the two below
  std::map<std::string, std::string> repairs_;  // normalized hash of a failed source → repair key
  AgentTally tally_;
  Gate agent_gate_;  // agent calls in flight at once, at most agent_concurrency
};

}  // namespace accelopt::search
