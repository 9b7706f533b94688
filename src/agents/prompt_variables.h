// The named variables the prompt templates are rendered from, built from what the search hands the
// agents. docs/agents.md lists them; each function here fills one top-level name.
#pragma once

#include <string>
#include <vector>

#include "common/json.h"
#include "roles/roles.h"

namespace accelopt::agents {

// `task`: name, description, axes, inputs/outputs with shapes, the generated header, the reference
// source, the roofline counts, threads. Reads the reference from the task's folder.
Json task_variables(const task::Task& task, const std::string& workload);

// `kernel` (and `slow`/`fast` for the summarizer): source, knobs, status, profile numbers and a
// plain-text profile summary (latency, % of peak, bound, loops left scalar, instruction mix).
Json kernel_variables(const roles::KernelView& kernel);

// `memory`: the insights, positive and negative, with their measured speedups.
Json memory_variables(const std::vector<roles::Insight>& insights);

// `failure`: status, message and the log cut to at most `max_log_chars` (head and tail kept).
Json failure_variables(const kernel::Verdict& verdict, size_t max_log_chars);

// The same with every figure measured in this run set to 0 (latencies, speedups, % of peak, and
// the sentence of a timed verdict that states them): what is the same from run to run, so that a
// replayed run finds its recorded calls (llm/replay.h). Compile facts stay (vectorized loops,
// instruction mix), and so do statuses.
roles::KernelView without_measurements(roles::KernelView kernel);
std::vector<roles::Insight> without_measurements(std::vector<roles::Insight> insights);

// A long text cut to `max_chars`: its first and last parts with a line saying what was cut.
std::string trim_middle(const std::string& text, size_t max_chars);

// The profile summary, in the words the planner reads.
std::string profile_summary(const kernel::Verdict& verdict, const std::string& source);

}  // namespace accelopt::agents
