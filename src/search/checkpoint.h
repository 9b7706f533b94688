// The search's state after an iteration, as it is checkpointed. The store keeps a checkpoint's
// state as JSON (store::Checkpoint); this type is its meaning, and the only code that reads or
// writes that JSON:
//   {"beam": [candidate ids, fastest first], "baseline": id, "wall_seconds": s, "stop": "why",
//    "iterations": T, "confirmation": {...}, "retimings": [{"name": ..., "measurement": {...}}],
//    "scale": {"latency": s, "percent_of_peak": p, "busy": b, "origin": "the kept baseline: …"}}
// "iterations" (the run's target) is absent in runs checkpointed before `resume --iterations`; the
// run's settings give it then. "confirmation" (confirmation.h) is in the last checkpoint of a run
// that ended, rewritten after each of its measurements. Other readers (`accelopt runs`, `show`)
// read "beam" and "confirmation". "retimings" holds every head-to-head re-timing the memory took
// up to this iteration, kept or not (the memory entries hold only the kept ones): selection and
// the figures of a resumed run, and `show`, see what the uninterrupted run saw. "scale" is what the
// run's latencies and % of peak derive from (kept_baseline.h); absent, the baseline's own reading.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "search/confirmation.h"
#include "search/kept_baseline.h"
#include "store/store.h"

namespace accelopt::search {

struct SearchCheckpoint {
  int iteration = 0;
  std::vector<int64_t> beam;
  int64_t baseline = 0;
  double wall_seconds = 0;                   // spent by the run so far, all its processes together
  std::string stop_reason;                   // a budget that stopped the run; empty: none
  std::optional<int> iterations;             // the run's target T, when extended past its settings
  std::optional<Confirmation> confirmation;  // the final beam re-timed, once the run ended
  std::vector<NamedMeasurement> retimings;   // the memory's re-timings so far, in order
  std::optional<ScaleSource> scale;          // absent in runs from before kept baselines

  store::Checkpoint to_store(int64_t run_id) const;
  // InternalError naming the run for a state without a beam or baseline.
  static SearchCheckpoint from_store(const store::Checkpoint& checkpoint);
  // The "retimings" of a checkpoint's state alone (readers that need nothing else).
  static std::vector<NamedMeasurement> retimings_of(const Json& state);
};

}  // namespace accelopt::search
