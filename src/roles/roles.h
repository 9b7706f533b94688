// The four roles of the AccelOpt loop, as the search sees them. Two families implement them: the
// LLM agents (prompt templates + a model server, llm_agents.h) and the built-in tuner (src/tuner),
// which edits a kernel's declared knobs without a model. The search talks only to these interfaces.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.h"
#include "kernel/verdict.h"
#include "task/task.h"

namespace accelopt::roles {

// The roles' names, declared here only: the keys of the configuration's [roles] table, the `role`
// of a model call in the ledger, the names of the prompt templates (<name>.system.mustache). A new
// role is a name here, its interface and its slot in RoleAgents below, its LLM agent (src/agents:
// made in make_llm_agents) and templates (prompts/), and where the search calls it. The llm part
// sits below this one, so it receives the names from its caller (llm::parse_llm_config) instead of
// including them.
inline constexpr std::string_view kPlanner = "planner";
inline constexpr std::string_view kExecutor = "executor";
inline constexpr std::string_view kFixer = "fixer";
inline constexpr std::string_view kSummarizer = "summarizer";
inline constexpr std::array<std::string_view, 4> kRoleNames = {kPlanner, kExecutor, kFixer,
                                                               kSummarizer};

// A speedup over the run's baseline measured apart from the search's own timing, named and dated:
// "memory re-timing, iteration 1", "final confirmation".
struct NamedSpeedup {
  std::string name;
  double speedup = 0, speedup_low = 0, speedup_high = 0;  // 95 % interval
  bool busy = false;  // measured while the machine was busy (platform/machine_load.h)
};

// A kernel's one figure as the run states it (search/figures.h): its speedup over the run's
// baseline (the most precise of its measurements against it), and the latency and % of peak
// derived from it and the baseline's careful latency. `disagreeing` holds the other measurements
// of the same pair (this kernel against the baseline) whose 95 % interval is disjoint from
// `speedup`'s: both are said, never one silently.
struct KernelFigures {
  bool baseline = false;  // the run's baseline: 1x by definition
  double speedup = 0, speedup_low = 0, speedup_high = 0;
  double latency_seconds = 0, latency_low = 0, latency_high = 0;
  double percent_of_peak = 0, percent_low = 0, percent_high = 0;
  std::string origin;  // where the figure comes from: "timed paired against the baseline in …"
  std::vector<NamedSpeedup> disagreeing = {};
  bool busy = false;  // the figure, or the baseline's it rests on, was measured on a busy machine
};

// A candidate of this run that shares a kernel's source apart from its knob values: which values
// were timed (or failed) for the kernel's structure.
struct KnobTiming {
  std::string setting;                                    // "TILE_N = 128, UNROLL = 4"
  std::string status;                                     // the verdict's status name
  double speedup = 0, speedup_low = 0, speedup_high = 0;  // over the run's baseline; 0: not timed
  bool current = false;                                   // the kernel shown
};

// A kernel with what is known of it: the planner's and the fixer's view.
struct KernelView {
  const task::Task* task = nullptr;
  std::string workload;
  std::string source;
  std::optional<kernel::Verdict> verdict;  // absent before its first evaluation
  uint64_t seed = 0;  // set by the search per call, so agents that sample are reproducible
  // Where the call sits in the run, as the search names it (e.g. "i3/b1/p4"). With the seed it
  // tells a recorded call apart from an identical prompt elsewhere in the run, for replay.
  std::string place = "";
  // The planner's view only: plan texts already tried on this kernel (it stayed in the beam), so a
  // planner proposes others instead of being asked the same question again.
  std::vector<std::string> tried_plans = {};
  // The planner's view only: plans already proposed for this kernel in this iteration (earlier
  // draws), so that the next draw proposes a different idea.
  std::vector<std::string> plans_this_iteration = {};
  std::optional<KernelFigures> figures = {};  // absent: not timed, or outside a run
  std::vector<KnobTiming> knob_timings = {};  // empty: no knobs, or no sibling timed
  // The run's target half-width of a candidate's 95 % interval (0.02: ±2 %); 0: not said.
  double timing_target = 0;
};

// One memory entry as an agent sees it (the memory part keeps provenance beside it).
struct Insight {
  std::string title;
  std::string description;  // the generalizable optimization
  std::string before_snippet, after_snippet;
  double speedup = 1;  // measured, slow→fast (below 1 for a negative entry)
  double speedup_low = 1, speedup_high = 1;
  bool positive = true;  // the rewrite measured faster (speedup at least 1)
  // Which way the lesson points, as its author says: "faster" (the change it names made kernels
  // faster) or "not faster" (it did not, or made them slower). It may differ from `positive`: a
  // rewrite that beat its parent can teach that one of its parts was not faster. Empty: unsaid,
  // and `positive` stands for it.
  std::string effect = "";
  Json detail = Json::object();  // agent-specific, e.g. the tuner's knob statistics
  // Where it was learned (empty or 0 where not known).
  std::string task = "", workload = "";
  int64_t run = 0, slow_candidate = 0, fast_candidate = 0;
  int iteration = 0;
};

struct Plan {
  std::string text;              // what to change and why, in words
  std::string author;            // "llm:<model>" or "tuner"
  Json detail = Json::object();  // agent-specific, e.g. {"knobs": {"TILE_N": [64, 128]}}
};

// A kernel as an executor or fixer returned it. `source` is empty when the answer could not be
// parsed into a kernel (no code, no entry point): `parse_error` says why, and it is never compiled.
struct Implementation {
  std::string source;
  std::string parse_error;
  std::string author;
};

// Another kernel made for the same parent in the same iteration (or the rewrite itself), so that
// a rewrite is judged against what its siblings reached.
struct Sibling {
  std::string plan;                                       // the plan's first line (its title)
  std::string status;                                     // the verdict's status name
  double speedup = 0, speedup_low = 0, speedup_high = 0;  // over the run's baseline; 0: not timed
  bool rewrite = false;                                   // the pair's fast side
};

// A slow→fast (or fast→slow) pair measured by the harness, for the summarizer.
struct RewritePair {
  KernelView slow, fast;
  Plan plan;
  double speedup = 1, speedup_low = 1, speedup_high = 1;  // fast over slow
  std::vector<Sibling> siblings = {};  // the rewrite among them; empty: not known
};

// Why an agent could not do its job, apart from the kernel: the search reacts to these and to no
// error type of the agents' own machinery (a model client's, say).
//   BudgetExhausted: a spending cap (dollars, tokens, calls) is reached; the run stops cleanly.
//   AgentUnavailable: the agent's model could not be reached or answered unusably after its
//   retries; the search records the failed call and, when nothing could be reached, fails the run.
class BudgetExhausted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class AgentUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Planner {
 public:
  virtual ~Planner() = default;
  // Up to `count` distinct plans for improving `kernel`, informed by the memory's insights.
  virtual std::vector<Plan> propose(const KernelView& kernel, const std::vector<Insight>& memory,
                                    int count) = 0;
  // The same plans, each handed to `each` as soon as it is drawn, so that work on it starts while
  // the next is drawn (a planner drawing one plan a call overrides it). By default all are drawn,
  // then handed over. What `each` throws ends the drawing.
  virtual void propose_each(const KernelView& kernel, const std::vector<Insight>& memory, int count,
                            const std::function<void(Plan)>& each) {
    for (Plan& plan : propose(kernel, memory, count)) each(std::move(plan));
  }
};

class Executor {
 public:
  virtual ~Executor() = default;
  // Up to `count` implementations of `plan` applied to `kernel`.
  virtual std::vector<Implementation> implement(const KernelView& kernel, const Plan& plan,
                                                int count) = 0;
};

class Fixer {
 public:
  virtual ~Fixer() = default;
  // A repaired kernel, from the failed one and its verdict (status, message, trimmed log).
  virtual std::optional<Implementation> fix(const KernelView& failed, const Plan& plan) = 0;
};

class Summarizer {
 public:
  virtual ~Summarizer() = default;
  // nullopt when there is nothing generalizable to keep ("no optimization found").
  virtual std::optional<Insight> summarize(const RewritePair& pair) = 0;
};

// The executor's other job: a task's first kernel where the task has none (its baseline is
// `accelopt task import`'s stub, task/baseline_stub.h), a straightforward and correct translation
// of the reference rather than a fast one. The search checks it and has the fixer repair it.
class BaselineWriter {
 public:
  virtual ~BaselineWriter() = default;
  // `task` carries the task, workload, place and seed; its source is the stub. `attempt` from 1.
  virtual Implementation write(const KernelView& task, int attempt) = 0;
};

// One agent for each role, as a family of agents offers them (the LLM agents, the tuner) and the
// search uses them; null where a family has none for a role (the tuner repairs nothing).
struct RoleAgents {
  Planner* planner = nullptr;
  Executor* executor = nullptr;
  Fixer* fixer = nullptr;
  Summarizer* summarizer = nullptr;
};

}  // namespace accelopt::roles
