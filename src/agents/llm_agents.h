// The LLM family of the four roles: each renders its prompts from template files (prompts.h),
// calls its role's model through the ModelSet, and reads the answer (answer_parsing.h).
//
// Errors: a model error becomes a role outcome (roles.h): a spent budget roles::BudgetExhausted,
// any other failed call roles::AgentUnavailable, whose message names the role, the model and why.
// No llm error type leaves an agent. An answer that cannot be read is a value: an Implementation
// with parse_error, a plan dropped, a summary that is nullopt. Template problems are UserError when
// the agent is made.
//
// Record/replay: each call's replay_key (llm/replay.h) is the role, the kernel's place and seed,
// and the prompt rendered with the run's measured figures left out (without_measurements), so a
// replayed run finds its recordings although its latencies differ.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "common/json.h"
#include "platform/machine_description.h"
#include "roles/roles.h"

namespace accelopt::llm {
class ModelSet;
}

namespace accelopt::agents {

struct LlmAgentOptions {
  std::filesystem::path prompts_dir;          // the user's templates; empty: the built-in ones only
  std::filesystem::path builtin_prompts_dir;  // empty: builtin_prompts_dir()
  std::string platform = "cpu";               // selects prompts/platform/<platform>.mustache
  // What the platform says of its device, handed over by the CLI; the agents add the ceilings each
  // task meets (platform/machine_prompt.h). Empty: nothing is said of it.
  platform::MachineDescription machine;
  bool plans_in_one_call = false;  // N plans from one call instead of N independent calls
  double dedup_similarity = 0.9;   // plans at least this similar to a kept one are dropped
  bool structural_only = false;    // hybrid mode: structural changes; the tuner sets constants
  int64_t max_tokens = 0;          // per answer; 0: the model's configured default
  size_t max_log_chars = 6000;     // the fixer's log is cut to this (head and tail kept)
};

// The LLM family: one agent per role, owned here; `roles()` lends them to the search.
struct LlmAgents {
  std::unique_ptr<roles::Planner> planner;
  std::unique_ptr<roles::Executor> executor;
  std::unique_ptr<roles::Fixer> fixer;
  std::unique_ptr<roles::Summarizer> summarizer;
  // The executor's other job: a task's first kernel where it has none (lent to the search apart
  // from roles(), since only a run of a task without a baseline needs it).
  std::unique_ptr<roles::BaselineWriter> baseline_writer;

  roles::RoleAgents roles() const {
    return {planner.get(), executor.get(), fixer.get(), summarizer.get()};
  }
};
LlmAgents make_llm_agents(llm::ModelSet& models, const LlmAgentOptions& options);

std::unique_ptr<roles::Planner> make_llm_planner(llm::ModelSet& models,
                                                 LlmAgentOptions options = {});
std::unique_ptr<roles::Executor> make_llm_executor(llm::ModelSet& models,
                                                   LlmAgentOptions options = {});
std::unique_ptr<roles::Fixer> make_llm_fixer(llm::ModelSet& models, LlmAgentOptions options = {});
std::unique_ptr<roles::Summarizer> make_llm_summarizer(llm::ModelSet& models,
                                                       LlmAgentOptions options = {});
std::unique_ptr<roles::BaselineWriter> make_llm_baseline_writer(llm::ModelSet& models,
                                                                LlmAgentOptions options = {});

// The messages a role's agent sends, rendered exactly as the agent renders them, and sent nowhere:
// the first call of the job (the planner's first draw, the executor's first implementation). For
// `accelopt prompt` and the tests of what each role is told.
struct RolePrompt {
  std::string system, user;
};
RolePrompt planner_prompt(const LlmAgentOptions& options, const roles::KernelView& kernel,
                          const std::vector<roles::Insight>& memory, int count);
RolePrompt executor_prompt(const LlmAgentOptions& options, const roles::KernelView& kernel,
                           const roles::Plan& plan, int count);
// Throws UserError for a kernel that did not fail: the fixer is asked about failures only.
RolePrompt fixer_prompt(const LlmAgentOptions& options, const roles::KernelView& failed,
                        const roles::Plan& plan);
RolePrompt summarizer_prompt(const LlmAgentOptions& options, const roles::RewritePair& pair);
// The executor's messages for a task without a baseline (`task.source` is its stub).
RolePrompt baseline_prompt(const LlmAgentOptions& options, const roles::KernelView& task);

}  // namespace accelopt::agents
