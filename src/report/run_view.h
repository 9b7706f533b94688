// One run of the kernel database, read back whole for the commands that show it (show, export,
// report, compare): its candidates and their verdicts, the beam after each iteration, the memory
// entries it saw and wrote, and its model calls.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "llm/ledger.h"
#include "roles/roles.h"
#include "search/confirmation.h"
#include "search/figures.h"
#include "search/run_settings.h"
#include "search/selection.h"
#include "store/store.h"

namespace accelopt::report {

// A setting as tables show it: "?" when the run did not record it.
inline std::string or_unknown(const std::string& value) {
  return value.empty() ? "?" : value;
}

struct RunView {
  store::RunRecord run;
  search::RunSettings settings;                    // run.config, read
  std::vector<store::CandidateRecord> candidates;  // oldest first
  std::map<int64_t, store::TraceRecord> traces;    // by candidate id
  std::vector<store::Checkpoint> checkpoints;
  std::vector<search::Scored> final_beam;                // fastest first
  std::vector<store::MemoryEntryRecord> memory_used;     // visible to the run when it started
  std::vector<store::MemoryEntryRecord> memory_written;  // made by the run
  std::vector<llm::CallRecord> calls;
  // The run's one scale of % of peak (a kept baseline's latency, or the baseline's careful timing
  // in the run) and, when the run ended with one, the confirmation of its final beam
  // (search/confirmation.h).
  search::RunScale scale;
  std::string scale_origin;  // which reading of the baseline that is; empty: the run's own
  std::optional<search::Confirmation> confirmation;
  // The run's head-to-head re-timings (memory, confirmation), as its selection used them.
  search::Comparisons comparisons;
  std::vector<search::NamedMeasurement> memory_retimings;  // the last checkpoint's

  // What tables show of candidate `id`: derived from the scale and its speedup over the baseline
  // (1x for the baseline itself; else the most precise of its measurements against the baseline,
  // as kernel_figures says); zeros for a failed candidate. Its trace keeps what its own moment
  // measured.
  search::Figures figures(int64_t id) const;
  // The measurements of candidate `id` against the baseline taken apart from the search's own
  // paired timing, named and dated as the search names them to the agents: the memory's
  // re-timings it kept (a rewrite whose slow side is the baseline) and the final confirmation's.
  std::vector<roles::NamedSpeedup> retimings(int64_t id) const;
  // Candidate `id`'s figure as the agents were told it (search::kernel_figures, whose rule says
  // which of retimings(id) disagree with it); nullopt for a kernel that failed or was not timed.
  std::optional<roles::KernelFigures> kernel_figures(int64_t id) const;
  struct Best {
    int64_t candidate = 0;
    search::Figures figures;  // the kernel's one figure, as figures(candidate)
    bool confirmed = false;   // the run's confirmation chose it
    std::string origin;       // which measurement the figure is (KernelFigures::origin)
    std::vector<roles::NamedSpeedup> disagreeing;  // its measurements disjoint from the figure
  };
  // The run's best: the confirmed winner, else the final beam's fastest; nullopt with no beam.
  // Its figure is the kernel's one figure, the most precise of its measurements against the
  // baseline (the confirmation's among them), as every table shows it.
  std::optional<Best> best() const;

  const store::CandidateRecord* candidate(int64_t id) const;
  const kernel::Verdict* verdict(int64_t id) const;
  // The baseline's verdict (the run's first candidate), when it was evaluated.
  const kernel::Verdict* baseline() const;
  int64_t baseline_id() const;  // 0 when there is none
  // The beam recorded by `checkpoint`, fastest first.
  std::vector<search::Scored> beam_of(const store::Checkpoint& checkpoint) const;
  // Evaluations the run spent up to `iteration`, as its budget and Store::evaluation_count count
  // them: candidates other than the baseline whose evaluation was not reused.
  int64_t evaluations(int iteration = std::numeric_limits<int>::max()) const;
  std::string task() const { return or_unknown(settings.task); }
  std::string label() const;  // "run 3 (silu, tuner)"

 private:
  std::map<int64_t, size_t> index_;
  friend RunView load_run_view(const store::Store& store, int64_t run_id);
};

// UserError "there is no run N in this workspace" when the store has none.
RunView load_run_view(const store::Store& store, int64_t run_id);

// A text on one line of at most `width` characters: Markdown headings, list marks and line breaks
// become spaces between sentences, runs of spaces collapse, and a cut ends in "...".
std::string one_line(std::string_view text, size_t width);

}  // namespace accelopt::report
