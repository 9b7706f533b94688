// Absolute figures from a kept baseline. A run's speedups are paired measurements and hold on a
// busy machine; its latencies and % of peak derive from the baseline's latency, which a busy
// moment inflates. So the first quiet reading of a baseline's latency on a machine is kept in the
// workspace (store::KeptBaseline, per task, workload, platform and machine) and every later run
// derives its absolute figures from it, until the baseline's source or the probe's ceilings
// change, or a run asks to measure again (optimize --remeasure-baseline). A run that finds none
// and reads its baseline on a busy machine uses that reading, marked busy, and keeps nothing; so
// does a run on remote workers, whose kernels are timed on other machines.
#pragma once

#include <optional>
#include <string>

#include "common/json.h"
#include "kernel/verdict.h"
#include "search/figures.h"
#include "store/store.h"

namespace accelopt::search {

// What a run's latencies and % of peak rest on, and a sentence saying which reading that is.
struct ScaleSource {
  RunScale scale;
  std::string origin;  // "the kept baseline: 1.23 ms, measured quietly by run 3 at …"

  Json to_json() const;
  static ScaleSource from_json(const Json& json);
};

// The probe's side of the key: the binding ceiling the baseline was scored against ("fma ceiling
// 231.2"), or its peak time where the platform gives no probe figure.
std::string probe_identity(const kernel::RooflineScore& roofline);

struct BaselineReading {
  std::string task, workload, platform;
  std::string baseline_source;
  const kernel::Verdict* verdict = nullptr;  // the run's careful timing of its baseline, passed
  int64_t run_id = 0, candidate_id = 0;
  bool remeasure = false;  // keep this reading in place of the kept one, if it is quiet
};

// The scale a run uses: the kept baseline where one holds for `reading`, else the run's own
// reading (kept for later runs when it was quiet).
ScaleSource choose_scale(store::Store& store, const BaselineReading& reading);

}  // namespace accelopt::search
