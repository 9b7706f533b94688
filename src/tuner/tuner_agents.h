// The built-in tuner as AccelOpt agents, so the whole loop runs with no model server.
//
//   TunerPlanner     proposes moves of one knob (or two, when asked for more plans than single
//                    moves exist; then jumps of two steps) to a neighbouring allowed value, ranked
//                    by a Thompson bandit over
//                    move types whose evidence comes from the memory's tuner insights, weighted by
//                    relatedness (same task 1, same op_type 0.75, shared tag 0.5, else 0.25).
//   TunerExecutor    applies a plan's moves to the source (one implementation per plan: an edit is
//                    deterministic, K copies would be identical).
//   TunerSummarizer  writes an insight with statistics for a measured tuner rewrite:
//                    "TILE_N 64 → 128 on matmul kernels: 1.31× [1.27, 1.35], 5 of 6 tries faster",
//                    where the tries count the plan's prior evidence (from memory) plus this one.
// A plan's detail: {"moves": [{"knob", "from", "to"}], "op_type", "tags", "prior": {"tries",
// "faster"}}. An insight's detail adds "tries", "faster", "speedup", "speedup_low", "speedup_high".
// Everything is a function of the inputs and KernelView::seed: deterministic.
#pragma once

#include "roles/roles.h"

namespace accelopt::tuner {

class TunerPlanner : public roles::Planner {
 public:
  std::vector<roles::Plan> propose(const roles::KernelView& kernel,
                                   const std::vector<roles::Insight>& memory, int count) override;
};

class TunerExecutor : public roles::Executor {
 public:
  std::vector<roles::Implementation> implement(const roles::KernelView& kernel,
                                               const roles::Plan& plan, int count) override;
};

class TunerSummarizer : public roles::Summarizer {
 public:
  // nullopt for a plan the tuner did not make.
  std::optional<roles::Insight> summarize(const roles::RewritePair& pair) override;
};

// The tuner family: a planner, an executor and a summarizer (it repairs nothing); `roles()` lends
// them to the search.
struct TunerAgents {
  TunerPlanner planner;
  TunerExecutor executor;
  TunerSummarizer summarizer;

  roles::RoleAgents roles() { return {&planner, &executor, nullptr, &summarizer}; }
};

// "TILE_N 64 → 128" or "TILE_N 64 → 128, K_UNROLL 2 → 4".
std::string describe_moves(const Json& moves);

}  // namespace accelopt::tuner
