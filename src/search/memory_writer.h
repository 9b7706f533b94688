// What an iteration adds to the optimization memory: each measured rewrite (beam kernel → a child
// made for it) whose interval clears the thresholds, at most TopK (memory.h picks them), summarized
// by the summarizer of the agent family that made the child: the tuner summarizes its own moves in
// hybrid runs. Repeated sampling keeps no memory.
#pragma once

#include <functional>
#include <vector>

#include "search/answers.h"
#include "search/evaluator.h"

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

  // The entries for `attempts` of `iteration`, not yet stored. roles::BudgetExhausted stops the
  // run; a summarizer that cannot be reached loses its entry, with a note.
  std::vector<store::MemoryEntryRecord> entries(int iteration,
                                                const std::vector<Attempt>& attempts);

 private:
  const SearchConfig& config_;
  MemoryWriterParts parts_;
};

}  // namespace accelopt::search
