#include "platform/cuda/gpu_ceilings.h"

#include <fmt/format.h>

#include <sstream>

#include "common/error.h"

namespace accelopt::platform::cuda {
namespace {

[[noreturn]] void probe_error(int line_number, const std::string& line, const std::string& why) {
  throw UserError("accelopt-gpu-probe output, line " + std::to_string(line_number) + ": " + why +
                  "\n  " + line);
}

}  // namespace

Peaks GpuCeilings::to_peaks() const {
  Peaks peaks;
  peaks.scope = CeilingScope::kWholeDevice;
  peaks.fma_gflops = fp32_fma_gflops;
  peaks.vector_gflops = fp32_add_gflops;
  peaks.bandwidth = bandwidth;
  // Tensor cores meet a bfloat16 or float16 task's tolerance (FlashInfer-Bench's 1e-2), not a
  // float32 task's 2e-5 (TF32 stays out).
  for (const auto& [precision, dtype] : {std::pair{"bf16", "bfloat16"}, {"fp16", "float16"}}) {
    if (auto found = tensor_gflops.find(precision); found != tensor_gflops.end()) {
      peaks.narrow_matrix_gflops[dtype] = found->second;
    }
  }
  return peaks;
}

Json GpuCeilings::to_json() const {
  Json points = Json::array();
  for (const BandwidthPoint& point : bandwidth) {
    points.push_back({point.working_set_bytes, point.gbytes_per_second});
  }
  return {{"device", device},
          {"sm", sm},
          {"sms", sms},
          {"fp32_fma_gflops", fp32_fma_gflops},
          {"fp32_add_gflops", fp32_add_gflops},
          {"tensor_gflops", tensor_gflops},
          {"bandwidth", points}};
}

Json GpuCeilings::prompt_variables() const {
  Json points = Json::array();
  for (const BandwidthPoint& point : bandwidth) {
    points.push_back(
        {{"working_set", fmt::format("{:.0f} MiB", point.working_set_bytes / (1 << 20))},
         {"gbytes_per_second", fmt::format("{:.0f}", point.gbytes_per_second)}});
  }
  Json variables = {
      {"device", device},
      {"sm", sm},
      {"fp32_fma_gflops", fmt::format("{:.0f}", fp32_fma_gflops)},
      {"fp32_add_gflops", fmt::format("{:.0f}", fp32_add_gflops)},
      {"bandwidth_gbytes_per_second",
       fmt::format("{:.0f}", bandwidth.empty() ? 0.0 : bandwidth.back().gbytes_per_second)},
      {"bandwidth", points}};
  if (sms > 0) variables["sms"] = std::to_string(sms);
  return variables;
}

GpuCeilings parse_gpu_probe(const std::string& text) {
  GpuCeilings ceilings;
  std::istringstream lines(text);
  std::string line;
  int line_number = 0;
  bool header = false;
  while (std::getline(lines, line)) {
    ++line_number;
    if (line.empty()) continue;
    std::istringstream words(line);
    std::string key;
    words >> key;
    if (!header) {
      int version = 0;
      if (key != "accelopt-gpu-probe" || !(words >> version) || version != 1) {
        probe_error(line_number, line, "expected the header 'accelopt-gpu-probe 1'");
      }
      header = true;
      continue;
    }
    auto number = [&](double& value) {
      if (!(words >> value) || !(value > 0))
        probe_error(line_number, line, "expected a positive number");
    };
    if (key == "device") {
      std::getline(words >> std::ws, ceilings.device);
    } else if (key == "sm") {
      words >> ceilings.sm;
    } else if (key == "sms") {
      if (!(words >> ceilings.sms) || ceilings.sms <= 0) {
        probe_error(line_number, line, "expected a positive count");
      }
    } else if (key == "fp32_fma_gflops") {
      number(ceilings.fp32_fma_gflops);
    } else if (key == "fp32_add_gflops") {
      number(ceilings.fp32_add_gflops);
    } else if (key == "tensor_gflops") {
      std::string precision;
      double value = 0;
      if (!(words >> precision)) probe_error(line_number, line, "expected a precision");
      number(value);
      ceilings.tensor_gflops[precision] = value;
    } else if (key == "bandwidth") {
      BandwidthPoint point;
      number(point.working_set_bytes);
      number(point.gbytes_per_second);
      if (!ceilings.bandwidth.empty() &&
          point.working_set_bytes <= ceilings.bandwidth.back().working_set_bytes) {
        probe_error(line_number, line, "working sets must ascend");
      }
      ceilings.bandwidth.push_back(point);
    } else {
      probe_error(line_number, line, "unknown figure '" + key + "'");
    }
  }
  if (!header) throw UserError("accelopt-gpu-probe printed nothing");
  if (ceilings.fp32_fma_gflops <= 0 || ceilings.fp32_add_gflops <= 0 ||
      ceilings.bandwidth.empty()) {
    throw UserError("accelopt-gpu-probe output lacks the FP32 peaks or the bandwidth figures");
  }
  return ceilings;
}

}  // namespace accelopt::platform::cuda
