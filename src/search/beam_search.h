// The AccelOpt loop: beam search (or repeated sampling) over candidate kernels of one task.
//
//   start_run ──► evaluate the baseline (iteration 0) ──► for t in 1..T: iteration(t) ──► end
//   iteration(t):
//     for each beam kernel b (repeated sampling: the baseline, B times):
//       planner(b, memory) → N plans (exact duplicates dropped), each handed on as it is drawn
//       for each plan p, as soon as it is drawn: executor → K kernels; each evaluated; a failure
//       goes to the fixer for up to F rounds, every attempt a candidate of its own (parent: the
//       attempt it repairs)
//     select: newcomers enter the beam elitistly, beyond noise (selection.h)
//     hybrid: each LLM kernel entering the beam gets hybrid_tuner_evals tuner moves, selected again
//     memory: slow→fast rewrites beyond the thresholds, TopK, summarized into entries
//     checkpoint: memory entries + beam, one transaction
//
// The parts, one job each (as Ninja's build.h splits Plan, Builder and CommandRunner):
//   beam_search.cpp   Run: the iterations, the beam, selection, hybrid refinement, checkpoints, and
//                     how the run ends
//   proposer.h        asks planner, executor and fixer, with answers kept in the store
//   evaluator.h       evaluates candidates: once per distinct source, within budgets, in slots
//   memory_writer.h   turns measured rewrites into memory entries
//   candidate_key.h   the keys of candidates and answers, and the agents' seeds (resume's contract)
//   checkpoint.h      the typed checkpoint, and the JSON the store keeps of it
//   figures.h         the run's one scale of % of peak: the baseline timed once, carefully
//   confirmation.h    the final beam re-timed head to head: the confirmed winner
//   progress.h, stop.h   counters and events; budgets and stop requests
//
// Pipeline: agent calls run at most agent_concurrency at once; a kernel is evaluated as soon as its
// answer arrives, at most eval_concurrency at once (SearchContext::eval_slots: each on cores of its
// own here, or a job each for remote workers). With eval_concurrency above 1 every plan of the
// iteration runs at once and the K implementations of a plan are evaluated together, so the
// iteration's N×K candidates are in flight as soon as they exist; the iteration waits for them all.
// Their attempts are kept in the order of their keys, not of their completion. The memory's
// re-timings of an iteration go out together, and so do the confirmation's pairs (each kernel
// against the baseline, then the leader against the kernels it overlaps). Remote, the evaluations
// at once follow the workers connected (SearchContext::eval_places), so late workers are used.
// The next iteration's plans wait for the re-timings: what they measure decides the beam (a child
// faster than its parent head to head takes its place) and which lessons the memory keeps, and
// the next planner is shown both, so planning earlier would change what a run decides.
//
// How a run ends (its state in the store):
//   finished           T iterations done, or no beam kernel got a new plan (converged); the final
//                      beam then is re-timed against the baseline (confirmation.h), also after a
//                      budget stop; an interrupt while confirming leaves the run "interrupted"
//   stopped: <budget>  max_evaluations, max_wall_seconds or the LLM budget: no new evaluation or
//                      agent call starts, the iteration in progress is finished with what it has
//   interrupted        SearchContext::interrupt was set (Ctrl-C): no new work starts, the work in
//                      flight ends, and the iteration in progress is not checkpointed
//   failed: <why>      the baseline does not pass, or no agent could be reached in an iteration
//                      (every call failed with roles::AgentUnavailable, or they produced nothing)
// Every state but "finished" can be resumed; a finished run can be extended by more iterations.
//
// Resume. Everything a run decides is a function of its settings, the seed and what the store
// holds: each candidate has a key fixed by its place (candidate_key.h), each agent answer is
// stored under such a key, and each agent call gets a seed derived from (seed, iteration, place). A
// resumed run restarts at the iteration after its last checkpoint; an evaluation whose key is
// stored is read back, an answer whose key is stored is not asked again. So a run killed at any
// moment and resumed ends in the state an uninterrupted run reaches (with agent_concurrency 1
// exactly; with more, which of two identical sources is evaluated and which reuses it can differ,
// not the verdicts).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "platform/platform.h"
#include "roles/roles.h"
#include "search/config.h"
#include "search/events.h"
#include "search/run_settings.h"
#include "store/store.h"
#include "task/task.h"

namespace accelopt::search {

// The run's agents, one per role (roles::RoleAgents: a null fixer repairs no failure, a null
// summarizer makes no memory entries), and the tuner's for hybrid refinement.
struct AgentSet : roles::RoleAgents {
  // Hybrid mode: the tuner refines each LLM kernel entering the beam and summarizes its own moves.
  roles::Planner* refine_planner = nullptr;
  roles::Executor* refine_executor = nullptr;
  roles::Summarizer* refine_summarizer = nullptr;
  // What planner and executor make: kTuner for the tuner's agents, kExecutor for an LLM's. Only
  // LLM kernels are refined in hybrid runs; tuner moves are summarized by refine_summarizer.
  store::CandidateKind proposes = store::CandidateKind::kExecutor;
  // A task without a baseline (task/baseline_stub.h): the executor writes the run's first kernel
  // (baseline_writing.h). Null: such a task's run fails, saying how to give it one.
  roles::BaselineWriter* baseline_writer = nullptr;
};

struct SearchContext {
  const task::Task* task = nullptr;
  platform::Platform* platform = nullptr;
  store::Store* store = nullptr;
  AgentSet agents;
  EventSink* events = nullptr;        // may be null
  std::function<double()> spend_usd;  // the LLM spend so far; empty: no LLM
  // Set (by a signal handler, say) to stop the run: it ends "interrupted". Null: not stoppable.
  const std::atomic<bool>* interrupt = nullptr;
  // One entry per evaluation that may run at once, with the cores its runners are pinned to (empty:
  // the platform's choice): cli gives platform/cpu/machine.h's evaluation_cores for a local run,
  // empty sets for remote workers. Empty: the configuration's eval_concurrency, unpinned.
  std::vector<std::vector<int>> eval_slots;
  // Set instead of eval_slots where the evaluations that may run at once change during the run
  // (remote workers connecting and leaving): asked at the start and every eval_places_refresh.
  std::function<int()> eval_places;
  std::chrono::milliseconds eval_places_refresh{250};
  // A candidate the machine was too busy to judge (MACHINE_BUSY) is evaluated again once, after
  // this pause (evaluator.h).
  std::chrono::milliseconds busy_pause{10000};
};

struct RunSummary {
  int64_t run_id = 0;
  std::string state;
  int iterations_done = 0;
  int64_t evaluations = 0;
  int64_t baseline_candidate = 0, best_candidate = 0;
  // The best: the confirmed winner when the run ended with a confirmation, else the beam's
  // fastest. Its figure is its one figure, the most precise of its measurements against the
  // baseline, as `show` and `export` give it; `best_origin` says which measurement that is. % of
  // peak derives from the baseline's (figures.h): best_percent_of_peak / baseline_percent_of_peak
  // == best_speedup.
  double best_speedup = 1, best_speedup_low = 1, best_speedup_high = 1;
  std::string best_origin;
  double baseline_percent_of_peak = 0, best_percent_of_peak = 0;
  double baseline_latency_seconds = 0;
  std::string scale_origin;  // which reading of the baseline those derive from (kept_baseline.h)
  bool baseline_busy = false, best_busy = false;  // measured while the machine was busy
  bool confirmed = false;    // the final beam was re-timed against the baseline
  bool significant = false;  // confirmed, and the winner's interval lies above 1.0
  std::string outcome;  // the confirmation's line ("no significant improvement: ..."); or empty
};

// Records a new run and runs it to its end. `settings` (run_settings.h) gives the search's
// configuration, the workload (empty: the task's default), the caller's fields (the agents mode,
// say) and the user's own kernel to start from (empty: none): evaluated after the baseline, timed
// against it, it is the beam's first kernel instead. The search fills in the task, the workload
// chosen, the memory horizon and the baseline's timing.
RunSummary start_run(RunSettings settings, SearchContext& context);
// The same with a configuration, a workload and a start kernel only.
RunSummary start_run(const SearchConfig& config, const std::string& workload,
                     SearchContext& context, const std::string& start_kernel = {});

// True for an end state that resuming is for: "interrupted", failed because the agents could not
// be reached, or stopped because the machine was too busy to evaluate the baseline (a budget stop
// or a failing baseline ends the same way again).
bool worth_resuming(const std::string& state);
// True for the end state of a run stopped because the machine was too busy to evaluate its
// baseline (MACHINE_BUSY).
bool stopped_by_busy_machine(const std::string& state);

// The two halves of start_run, for callers that need the run's id before it runs (the LLM ledger
// records calls under it): create_run records the run, run_created runs it.
int64_t create_run(RunSettings settings, SearchContext& context);
RunSummary run_created(int64_t run_id, SearchContext& context);

// Continues `run_id` from its last checkpoint with the settings it was started with. With
// `more_iterations` > 0 the run's target becomes its last checkpointed iteration plus that many, so
// a finished run goes on; without, a finished run is refused (UserError).
RunSummary resume_run(int64_t run_id, SearchContext& context, int more_iterations = 0);

}  // namespace accelopt::search
