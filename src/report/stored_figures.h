// What a workspace already knows of a kernel: for `accelopt eval`, the figure each run gave the
// same source on the same task and workload, so that a new measurement is read beside the stored
// one and a disagreement is said, not left for a person to notice.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernel/verdict.h"
#include "search/figures.h"
#include "store/store.h"

namespace accelopt::report {

struct StoredFigure {
  int64_t run = 0, candidate = 0;
  search::Figures figures;     // the kernel's one figure in that run (RunView::figures)
  std::string origin;          // which measurement it is
  bool same_baseline = false;  // the run's baseline is the source `eval` timed against
};

// Every run of `task` on `workload` that evaluated `source` and timed it, oldest first.
// `anchor_source`: what the new evaluation is timed against (the task's baseline).
std::vector<StoredFigure> stored_figures(const store::Store& store, const std::string& task,
                                         const std::string& workload, const std::string& source,
                                         const std::string& anchor_source);

// The lines `eval` prints under its verdict: each stored figure beside the new `verdict`'s, and
// "DISJOINT" where their 95 % intervals do not overlap; empty when nothing is stored.
std::string stored_figures_text(const std::vector<StoredFigure>& stored,
                                const kernel::Verdict& verdict);

// The line `eval` prints where the workspace keeps a quiet baseline of the task on this machine
// (search/kept_baseline.h): the new verdict's latency and % of peak derived from it, as a run
// derives them, beside the verdict's own (which rest on this evaluation's reading of the anchor).
// Empty when none is kept, or when it is for another baseline source (`anchor_source`) or probe.
std::string kept_baseline_text(const std::optional<store::KeptBaseline>& kept,
                               const std::string& anchor_source, const kernel::Verdict& verdict);

}  // namespace accelopt::report
