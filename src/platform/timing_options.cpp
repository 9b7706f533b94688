// TimingOptions' one JSON form (platform.h).
#include "platform/platform.h"

namespace accelopt::platform {

Json TimingOptions::to_json() const {
  return Json{{"target_half_width", target_half_width},
              {"budget_seconds", budget_seconds},
              {"min_pairs", min_pairs},
              {"max_pairs", max_pairs},
              {"warmup_turns", warmup_turns},
              {"min_turn_seconds", min_turn_seconds},
              {"quiet_wait_seconds", quiet_wait_seconds}};
}

TimingOptions TimingOptions::from_json(const Json& json) {
  TimingOptions options;
  options.target_half_width = json.value("target_half_width", options.target_half_width);
  options.budget_seconds = json.value("budget_seconds", options.budget_seconds);
  options.min_pairs = json.value("min_pairs", options.min_pairs);
  options.max_pairs = json.value("max_pairs", options.max_pairs);
  options.warmup_turns = json.value("warmup_turns", options.warmup_turns);
  options.min_turn_seconds = json.value("min_turn_seconds", options.min_turn_seconds);
  options.quiet_wait_seconds = json.value("quiet_wait_seconds", options.quiet_wait_seconds);
  return options;
}

}  // namespace accelopt::platform
