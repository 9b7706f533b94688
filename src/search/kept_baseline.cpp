#include "search/kept_baseline.h"

#include <fmt/format.h>

#include "common/hash.h"

namespace accelopt::search {

Json ScaleSource::to_json() const {
  return Json{{"latency", scale.baseline_latency()},
              {"percent_of_peak", scale.baseline_percent()},
              {"busy", scale.baseline_busy()},
              {"origin", origin}};
}

ScaleSource ScaleSource::from_json(const Json& json) {
  return {RunScale(json.value("latency", 0.0), json.value("percent_of_peak", 0.0),
                   json.value("busy", false)),
          json.value("origin", "")};
}

std::string probe_identity(const kernel::RooflineScore& roofline) {
  if (roofline.ceiling_probe > 0) {
    return fmt::format("{} ceiling {:.6g}", roofline.bound, roofline.ceiling_probe);
  }
  return fmt::format("{} peak {:.6g} s", roofline.bound, roofline.peak_seconds);
}

namespace {

std::string kept_origin(const store::KeptBaseline& kept, const std::string& why) {
  return fmt::format("the kept baseline: {}, measured quietly by run {} at {}{}",
                     kernel::latency_text(kept.latency_seconds), kept.run_id, kept.measured_at,
                     why);
}

}  // namespace

ScaleSource choose_scale(store::Store& store, const BaselineReading& reading) {
  const kernel::Verdict& verdict = *reading.verdict;
  RunScale own(verdict);
  if (!verdict.passed() || !verdict.timing || !verdict.roofline) return {own, ""};
  if (verdict.remote) {  // which worker's machine times the run's kernels is not one machine
    return {own, fmt::format("this run's baseline, {} as remote worker {} read it{} (a run on "
                             "remote workers keeps no baseline: they are kept per machine)",
                             kernel::latency_text(own.baseline_latency()), verdict.remote->worker,
                             own.baseline_busy() ? " on a busy machine" : "")};
  }
  std::string hash = sha256_hex(reading.baseline_source);
  std::string probe = probe_identity(*verdict.roofline);
  auto kept = store.kept_baseline(reading.task, reading.workload, reading.platform);
  bool holds = kept && kept->baseline_hash == hash && kept->probe == probe;
  bool quiet = !verdict.timing->busy();
  if (holds && (!reading.remeasure || !quiet)) {
    RunScale scale(kept->latency_seconds, kept->percent_of_peak, false);
    std::string why =
        reading.remeasure
            ? " (measuring again was asked, but this run read its baseline on a busy "
              "machine: the kept one stays)"
            : fmt::format(" (this run read {})", kernel::latency_text(own.baseline_latency()));
    return {scale, kept_origin(*kept, why)};
  }
  if (!quiet) {
    return {own, fmt::format("this run's baseline, {} read on a busy machine ({}): a quiet run "
                             "keeps one for later runs",
                             kernel::latency_text(own.baseline_latency()),
                             kept ? "the kept one is for another baseline source or probe"
                                  : "none is kept")};
  }
  store::KeptBaseline keep;
  keep.task = reading.task;
  keep.workload = reading.workload;
  keep.platform = reading.platform;
  keep.baseline_hash = hash;
  keep.probe = probe;
  keep.latency_seconds = verdict.timing->latency_seconds;
  keep.latency_low = verdict.timing->latency_low;
  keep.latency_high = verdict.timing->latency_high;
  keep.percent_of_peak = verdict.roofline->percent_of_peak;
  keep.run_id = reading.run_id;
  keep.candidate_id = reading.candidate_id;
  store.keep_baseline(keep);
  std::string why = !kept    ? "kept for later runs"
                    : !holds ? "kept in place of one for another baseline source or probe"
                             : "kept in place of the earlier one, as asked";
  return {own, fmt::format("this run's baseline, {} measured quietly ({})",
                           kernel::latency_text(own.baseline_latency()), why)};
}

}  // namespace accelopt::search
