// What an iteration adds to the optimization memory: each measured rewrite (beam kernel → a child
// made for it) whose median clears a threshold, at most TopK (memory.h picks them), is re-timed
// head to head (child against parent) and kept only when the re-timed interval clears that
// threshold; it is summarized by the summarizer of the agent family that made the child (the tuner
// summarizes its own moves in hybrid runs). Repeated sampling keeps no memory.
//
// Why the re-timing: each of the two kernels was timed against the baseline in its own moment, so
// the search's figure for the rewrite is a ratio of two ratios: one lucky moment is enough to make
// it look real, and its interval (both intervals' widths together) is too wide to clear anything
// when timing is short. A direct measurement of the child against its parent has one ratio's noise
// and seldom repeats the luck; its figures are the ones remembered. It gets the careful timing (as
// the baseline does): an entry outlives the run, and the candidates' timing is too short to clear a
// threshold of 1.04 with a rewrite of 1.06x on a large workload.
#pragma once

#include <functional>
#include <vector>

#include "search/answers.h"
#include "search/evaluator.h"
#include "search/figures.h"
#include "search/measurement.h"

namespace accelopt::search {

struct MemoryWriterParts {
  const task::Task* task = nullptr;
  std::string workload;
  int64_t run_id = 0;
  store::Store* store = nullptr;
  roles::Summarizer* summarizer = nullptr;        // null: no entries from the main agents
  roles::Summarizer* tuner_summarizer = nullptr;  // for tuner candidates in hybrid runs
  bool llm = false;  // the summaries cost LLM budget: none once the run is stopped
  CandidateBook* book = nullptr;
  AnswerCache* answers = nullptr;
  Progress* progress = nullptr;
  StopSignal* stop = nullptr;
};

class MemoryWriter {
 public:
  MemoryWriter(const SearchConfig& config, MemoryWriterParts parts)
      : config_(config), parts_(parts) {}

  // The entries for `attempts` of `iteration`, not yet stored; `retime` times each chosen child
  // against its parent, all of them asked at once (and keeps the measurements for the run: the
  // agents' figures, selection). roles::BudgetExhausted stops the run; a summarizer that cannot be
  // reached loses its entry, with a note.
  std::vector<store::MemoryEntryRecord> entries(int iteration, const std::vector<Attempt>& attempts,
                                                const MeasureAll& retime);

 private:
  // `rewrite` with its re-timed figures `measured`, or nullopt when the re-timing did not clear the
  // threshold the search's figures cleared (noted).
  std::optional<memory::Rewrite> retimed(int iteration, const memory::Rewrite& rewrite,
                                         const Measurement& measured);

  // The rewrite's one figure, the one its summarizer is given and its entry keeps: the most
  // precise of the pair's head-to-head measurements (issue 43). With the baseline as the kernel
  // before, the child's own evaluation was timed paired against it too, and the child's figure
  // everywhere (its profile, the siblings' list) is that most precise one; else the re-timing.
  memory::Rewrite one_figure(const memory::Rewrite& retimed, const RunScale& scale) const;

  const SearchConfig& config_;
  MemoryWriterParts parts_;
};

}  // namespace accelopt::search
