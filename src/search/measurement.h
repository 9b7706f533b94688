// One head-to-head timing between two of a run's kernels, taken after the search measured them:
// the confirmation re-times the final beam with it (confirmation.h), and the memory re-times a
// rewrite before remembering it (memory_writer.h).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/json.h"

namespace accelopt::search {

// `candidate` timed against `against` (the baseline, or another kernel of the run).
struct Measurement {
  int64_t candidate = 0, against = 0;
  std::string status = "PASSED";  // the verdict's status name; a kernel that failed is not a winner
  double speedup = 0, speedup_low = 0, speedup_high = 0;
  int pairs = 0;
  std::string message;
  bool busy = false;  // measured while the machine was busy (platform/machine_load.h)

  bool passed() const { return status == "PASSED"; }
};

// A re-timing with the name the run gives it ("memory re-timing, iteration 3").
struct NamedMeasurement {
  std::string name;
  Measurement measured;
};

// The JSON the checkpoint keeps of a measurement (confirmation.h, checkpoint.h).
Json measurement_to_json(const Measurement& measured);
Measurement measurement_from_json(const Json& json);

// Times `candidate` against `against`; nullopt when the run is being stopped.
using Measure = std::function<std::optional<Measurement>(int64_t candidate, int64_t against)>;

// (candidate, against): a pair to time.
using MeasurePair = std::pair<int64_t, int64_t>;
// Handed each measurement as it is taken (one call at a time), with its pair's index.
using MeasureTaken = std::function<void(size_t index, const Measurement& measured)>;
// Times every pair at once (each an evaluation of its own: on remote workers, all of them in the
// queue together), handing each measurement to `taken` as it comes; a pair the run's stop left
// untimed is not handed.
using MeasureAll =
    std::function<void(const std::vector<MeasurePair>& pairs, const MeasureTaken& taken)>;

// `measure` on each pair in turn: for callers with nothing to overlap.
inline MeasureAll one_by_one(Measure measure) {
  return [measure = std::move(measure)](const std::vector<MeasurePair>& pairs,
                                        const MeasureTaken& taken) {
    for (size_t index = 0; index < pairs.size(); ++index) {
      if (auto measured = measure(pairs[index].first, pairs[index].second)) {
        taken(index, *measured);
      }
    }
  };
}

}  // namespace accelopt::search
