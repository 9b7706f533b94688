// The confirmed winner. At the end of a run each kernel of the final beam is re-timed head to head
// against the baseline with careful timing (figures.h), and the leader against each beam kernel
// whose interval overlaps its own; the winner's interval then says whether the run improved on the
// baseline at all ("no significant improvement" when it holds 1.0; when its median is below 1.0
// the baseline itself is the winner, so a run never reports a best slower than where it started).
// The confirmation is kept in the last checkpoint (checkpoint.h), one measurement at a time, so
// `show` reads it instead of redoing it and a run killed while confirming resumes into it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/json.h"
#include "search/measurement.h"

namespace accelopt::search {

struct Confirmation {
  int64_t baseline = 0;
  std::vector<Measurement> measurements;  // in the order they were taken
  bool done = false;
  // Set when done: the winner (the baseline when no kernel passed, or the best re-timed slower
  // than it) and its speedup over the baseline.
  int64_t winner = 0;
  double speedup = 1, speedup_low = 1, speedup_high = 1;
  bool significant = false;   // the winner's interval lies above 1.0
  std::vector<int64_t> tied;  // beam kernels the winner could not be told apart from
  int iterations = -1;        // the iterations the run made before it; -1: not known (older runs)
  bool shortened = false;     // re-timed within what was left of the wall-time budget

  const Measurement* find(int64_t candidate, int64_t against) const;
  // "confirmed: #12 1.31x [1.27, 1.35] over the baseline, re-timed head to head", or
  // "no significant improvement: ..."; a shortened one says so at its end.
  std::string outcome() const;

  Json to_json() const;
  static Confirmation from_json(const Json& json);

 private:
  std::string decision() const;  // the outcome without the note that it was shortened
};

// Keeps the confirmation as it stands (after each measurement, and once decided).
using SaveConfirmation = std::function<void(const Confirmation&)>;

// Completes `confirmation` for `beam` (the final beam; the baseline in it is skipped): measures
// what it does not hold yet, through `measure`, then decides the winner. The pairs go out in two
// batches, each asked of `measure` at once: every beam kernel against the baseline, then the
// leader against each kernel its interval overlaps. When `places` (the evaluations that may run
// at once) hold them, the first batch also times the beam's first kernel against each other one,
// so that the second batch has nothing left to measure when that kernel leads (a run then waits
// for one batch, not two). False when `measure` was stopped first (the confirmation keeps what it
// measured).
bool confirm(Confirmation& confirmation, const std::vector<int64_t>& beam,
             const MeasureAll& measure, const SaveConfirmation& save, int places = 1);

}  // namespace accelopt::search
