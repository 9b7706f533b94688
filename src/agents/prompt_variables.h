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
// plain-text profile summary (the run's figure, % of peak, bound, loops left scalar, instruction
// mix), the run's figures (`figures`), the timed values of its knobs (`knob_timings`), the plans
// already proposed for it this iteration, and the run's `noise_note`.
Json kernel_variables(const roles::KernelView& kernel);

// `memory`: the insights, positive and negative, with their measured speedups and where each was
// learned (`origin`).
Json memory_variables(const std::vector<roles::Insight>& insights);

// `failure`: status, message and the log cut to at most `max_log_chars` (head and tail kept), the
// kernel's own output in it only as quote_kernel_output leaves it.
Json failure_variables(const kernel::Verdict& verdict, size_t max_log_chars);

// What the kernel printed (the lines filter_kernel_output marked "kernel| ") kept as a bounded
// quotation: at most `max_kernel_chars` of it, every line still marked, and no backtick, so that
// text a kernel prints can neither pass for the harness's words nor close the prompt's fenced
// block and speak to the model outside it (issue 44). The log's other lines are left as they are.
inline constexpr size_t kMaxKernelOutputChars = 1000;
std::string quote_kernel_output(const std::string& log,
                                size_t max_kernel_chars = kMaxKernelOutputChars);

// The same with every figure measured in this run set to 0 (latencies, speedups, % of peak, the
// figures of the kernel, of its knob siblings and of the insights, and the sentence of a timed
// verdict that states them), the disagreeing measurements dropped and the insights' run and
// candidate ids (store ids) set to 0: what is the same from run to run, so that a replayed run
// finds its recorded calls (llm/replay.h). Compile facts stay (vectorized loops, instruction mix),
// and so do statuses, knob settings and where a figure comes from.
roles::KernelView without_measurements(roles::KernelView kernel);
std::vector<roles::Insight> without_measurements(std::vector<roles::Insight> insights);

// A long text cut to `max_chars`: its first and last parts with a line saying what was cut.
std::string trim_middle(const std::string& text, size_t max_chars);

// The profile summary, in the words the planner reads: the run's figures where given (the
// baseline said to be the baseline; disagreeing measurements of the same pair named), the verdict's
// own otherwise.
std::string profile_summary(const kernel::Verdict& verdict, const std::string& source,
                            const roles::KernelFigures* figures = nullptr);

// One sentence on what counts as noise at a run's timing target (a 95 % half-width, 0.02 for
// ±2 %); empty for 0.
std::string noise_note(double timing_target);

}  // namespace accelopt::agents
