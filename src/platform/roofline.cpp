#include "platform/roofline.h"

#include <algorithm>
#include <cmath>

namespace accelopt::platform {

kernel::RooflineScore score_roofline(const task::RooflineCounts& counts, const Ceilings& ceilings,
                                     double latency_seconds) {
  kernel::RooflineScore score;
  score.mm_flops = counts.mm_flops;
  score.vec_flops = counts.vec_flops;
  score.bytes = counts.bytes;
  double fma_seconds = counts.mm_flops / (ceilings.fma_gflops * 1e9);
  double vector_seconds = counts.vec_flops / (ceilings.vector_gflops * 1e9);
  double memory_seconds = counts.bytes / (ceilings.gbytes_per_second * 1e9);
  score.peak_seconds = std::max({fma_seconds, vector_seconds, memory_seconds});
  score.bound = score.peak_seconds == fma_seconds      ? "fma"
                : score.peak_seconds == vector_seconds ? "vector"
                                                       : "memory";
  if (latency_seconds > 0) {
    score.percent_of_peak = 100 * score.peak_seconds / latency_seconds;
    score.percent_fma = 100 * fma_seconds / latency_seconds;
    score.percent_vector = 100 * vector_seconds / latency_seconds;
    score.percent_memory = 100 * memory_seconds / latency_seconds;
    score.gflops = (counts.mm_flops + counts.vec_flops) / latency_seconds / 1e9;
    score.gbytes_per_second = counts.bytes / latency_seconds / 1e9;
  }
  return score;
}

double Peaks::bandwidth_at(double working_set_bytes) const {
  if (bandwidth.empty()) return 1;
  if (working_set_bytes <= bandwidth.front().working_set_bytes)
    return bandwidth.front().gbytes_per_second;
  if (working_set_bytes >= bandwidth.back().working_set_bytes)
    return bandwidth.back().gbytes_per_second;
  for (size_t i = 1; i < bandwidth.size(); ++i) {
    if (working_set_bytes <= bandwidth[i].working_set_bytes) {
      double x0 = std::log(bandwidth[i - 1].working_set_bytes),
             x1 = std::log(bandwidth[i].working_set_bytes);
      double t = (std::log(working_set_bytes) - x0) / (x1 - x0);
      return bandwidth[i - 1].gbytes_per_second +
             t * (bandwidth[i].gbytes_per_second - bandwidth[i - 1].gbytes_per_second);
    }
  }
  return bandwidth.back().gbytes_per_second;
}

std::string Peaks::narrow_matrix_dtype(const task::Task& task) const {
  std::string chosen;
  double fastest = fma_gflops;
  for (const task::TensorSpec& input : task.inputs) {
    // float8_e4m3fn values are exact in bfloat16: where the device has no float8 units of its own
    // (this CPU), a kernel may widen them and use the bfloat16 ones.
    std::vector<std::string> usable = {std::string(task::dtype_name(input.dtype))};
    if (input.dtype == task::DType::kFloat8E4M3) usable.emplace_back("bfloat16");
    for (const std::string& dtype : usable) {
      auto found = narrow_matrix_gflops.find(dtype);
      if (found != narrow_matrix_gflops.end() && found->second > fastest) {
        chosen = found->first;
        fastest = found->second;
      }
    }
  }
  return chosen;
}

Peaks Peaks::for_task(const task::Task& task) const {
  Peaks peaks = *this;
  std::string dtype = narrow_matrix_dtype(task);
  if (!dtype.empty()) peaks.fma_gflops = narrow_matrix_gflops.at(dtype);
  return peaks;
}

Ceilings Peaks::ceilings_for(double working_set_bytes) const {
  return {fma_gflops, vector_gflops, bandwidth_at(working_set_bytes)};
}

Peaks Peaks::with_ceiling(const std::string& bound, double value) const {
  Peaks changed = *this;
  if (bound == "fma") changed.fma_gflops = value;
  if (bound == "vector") changed.vector_gflops = value;
  if (bound == "memory") changed.bandwidth = {{1, value}};
  return changed;
}

double Peaks::ceiling(const std::string& bound, double working_set_bytes) const {
  if (bound == "fma") return fma_gflops;
  if (bound == "vector") return vector_gflops;
  return bandwidth_at(working_set_bytes);
}

void Peaks::write_json(Json& json) const {
  Json points = Json::array();
  for (const BandwidthPoint& point : bandwidth) {
    points.push_back({{"working_set_bytes", point.working_set_bytes},
                      {"gbytes_per_second", point.gbytes_per_second}});
  }
  json["fma_gflops"] = fma_gflops;
  json["vector_gflops"] = vector_gflops;
  json["bandwidth"] = points;
  json["scope"] = scope == CeilingScope::kOneCore ? "one_core" : "whole_device";
  if (!narrow_matrix_gflops.empty()) json["narrow_matrix_gflops"] = narrow_matrix_gflops;
}

Peaks Peaks::from_json(const Json& json, CeilingScope scope) {
  Peaks peaks;
  std::string scope_name = json.value("scope", "");
  peaks.scope = scope_name == "one_core"       ? CeilingScope::kOneCore
                : scope_name == "whole_device" ? CeilingScope::kWholeDevice
                                               : scope;
  peaks.fma_gflops = json.value("fma_gflops", 0.0);
  peaks.vector_gflops = json.value("vector_gflops", 0.0);
  for (const Json& point : json.value("bandwidth", Json::array())) {
    peaks.bandwidth.push_back(
        {point.value("working_set_bytes", 0.0), point.value("gbytes_per_second", 0.0)});
  }
  Json narrow = json.value("narrow_matrix_gflops", Json::object());
  for (const auto& [dtype, gflops] : narrow.items()) {
    peaks.narrow_matrix_gflops[dtype] = gflops.get<double>();
  }
  return peaks;
}

kernel::RooflineScore score_roofline(const task::RooflineCounts& counts, const Peaks& peaks,
                                     double latency_seconds) {
  return score_roofline(counts, peaks.ceilings_for(counts.bytes), latency_seconds);
}

LatencyInterval derive_latency(double anchor_latency_seconds, const kernel::Timing& timing) {
  LatencyInterval latency;
  if (timing.speedup <= 0) return latency;
  latency.seconds = anchor_latency_seconds / timing.speedup;
  latency.low = timing.speedup_high > 0 ? anchor_latency_seconds / timing.speedup_high : 0;
  latency.high = timing.speedup_low > 0 ? anchor_latency_seconds / timing.speedup_low : 0;
  return latency;
}

ScoreInterval score_derived_latency(const task::RooflineCounts& counts, const Ceilings& ceilings,
                                    const LatencyInterval& latency) {
  ScoreInterval result;
  result.score = score_roofline(counts, ceilings, latency.seconds);
  if (latency.high > 0) result.percent_low = 100 * result.score.peak_seconds / latency.high;
  if (latency.low > 0) result.percent_high = 100 * result.score.peak_seconds / latency.low;
  return result;
}

}  // namespace accelopt::platform
