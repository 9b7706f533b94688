// What `accelopt runs`, `show`, `cost` and `compare` print: a run read back as terminal tables.
#pragma once

#include <ostream>
#include <string_view>

#include "llm/ledger.h"
#include "report/run_view.h"
#include "store/store.h"

namespace accelopt::report {

// One line per run of the workspace; "no runs in WORKSPACE" when there are none.
void print_runs(std::ostream& out, const store::Store& store, const std::string& workspace);

// The story of a run: settings, a row per iteration, the final beam, the lineage of the best,
// the memory entries made and the cost by role. `workspace_option` ("--workspace DIR", or empty
// for the default workspace) goes into the command it suggests.
void print_show(std::ostream& out, const RunView& view, std::string_view workspace_option = {});

// The model calls' totals per role, per model and overall. Returns 0; 1 when there are none,
// unless the run's `agents` were the tuner, which calls no model.
int print_cost(std::ostream& out, const std::string& run_id, const std::string& agents,
               const std::vector<llm::CallRecord>& calls);

// Two runs side by side (settings, best, evaluations, cost), then a diff of their best kernels.
void print_compare(std::ostream& out, const RunView& left, const RunView& right);
// `compare --retime`'s line: `verdict` times right's best kernel against left's, head to head.
std::string head_to_head_text(const RunView& left, const RunView& right,
                              const kernel::Verdict& verdict);

// "1.42x [1.38, 1.46]  31.0% of peak": figures derived from the run's scale (search/figures.h),
// what tables show; " [busy]" after a figure measured on a busy machine (search::kBusyLegend under
// the table says what it means), and a % of peak over 100 said to be over the measured ceiling.
std::string figures_text(const search::Figures& figures);

// The figures of candidate `id` as tables show them; the status name when it failed.
std::string candidate_figures(const RunView& view, int64_t id);

// Where candidate `id`'s measurements against the baseline disagree beyond their 95 % intervals:
// each that disagrees with another, in the order taken, named and dated ("search, iteration 2:
// 1.60x [1.55, 1.65]", "final confirmation after iteration 2: 1.02x [0.97, 1.07] (the run's
// figure)": the most precise); empty when they agree.
std::vector<std::string> moved_figures(const RunView& view, int64_t id);

// The same on one line, "figures moved between measurements (1.60x → 1.02x): the machine's load
// changed: A; B"; empty when they agree.
std::string moved_line(const RunView& view, int64_t id);
// Its head, "figures moved between measurements (1.60x → 1.02x): the machine's load changed".
std::string moved_head(const RunView& view, int64_t id);

}  // namespace accelopt::report
