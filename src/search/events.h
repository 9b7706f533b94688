// What a search tells the world while it runs. The search emits events; a sink renders them
// (report's progress line) or keeps them (tests). Ninja's status.h makes the same split.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace accelopt::search {

enum class EventKind : uint8_t {
  kRunStarted = 0,
  kIterationStarted = 1,
  kCandidateFinished = 2,
  kIterationFinished = 3,
  kRunFinished = 4,
  kNote = 5,  // a line for a person: "no model configured: using the tuner", a budget stop
};

struct SearchEvent {
  EventKind kind = EventKind::kNote;
  int64_t run_id = 0;
  int iteration = 0, iterations = 0;
  int candidates_done = 0, candidates_failed = 0;  // this run so far
  int64_t evaluations = 0;                         // real evaluations (reused ones not counted)
  // The run's best so far: once a beam is chosen, its best (`best_candidate`) at its one figure
  // (figures.h), as the run's end names it; before, the fastest single measurement (candidate 0).
  int64_t best_candidate = 0;
  double best_speedup = 0, best_percent_of_peak = 0;
  double best_speedup_low = 0, best_speedup_high = 0;  // the best speedup's 95 % interval
  bool best_busy = false;  // the best, or the baseline, was measured while the machine was busy
  double spend_usd = 0;
  std::string status;   // kCandidateFinished: the verdict's status name
  std::string message;  // kNote, kRunFinished: the run's end state
};

class EventSink {
 public:
  virtual ~EventSink() = default;
  // Called from one thread at a time (the search serializes calls).
  virtual void on_event(const SearchEvent& event) = 0;
};

class RecordingSink : public EventSink {
 public:
  void on_event(const SearchEvent& event) override { events.push_back(event); }
  std::vector<SearchEvent> events;
};

}  // namespace accelopt::search
