// A GPU's ceilings, measured by accelopt-gpu-probe: FP32 FMA and FP32 add peaks, tensor-core peaks
// where the device has them, and device-memory bandwidth by working-set size. They convert into the
// same ceilings structure the CPU probe fills, so a task is scored the same way on either.
//
// The probe prints one figure per line, so its output reads plainly and parses without a library:
//
//   accelopt-gpu-probe 1
//   device NVIDIA H200
//   sm 9.0
//   sms 132                              (streaming multiprocessors; absent from older probes)
//   fp32_fma_gflops 59000.5
//   fp32_add_gflops 29500.1
//   tensor_gflops tf32 380000.0          (one line per precision, cuBLAS GEMM)
//   bandwidth <working-set bytes> <GB/s> (ascending working sets)
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/json.h"
#include "platform/roofline.h"

namespace accelopt::platform::cuda {

struct GpuCeilings {
  std::string device;
  std::string sm;  // compute capability, "9.0"
  int sms = 0;     // streaming multiprocessors; 0 when the probe did not say
  double fp32_fma_gflops = 0;
  double fp32_add_gflops = 0;
  std::map<std::string, double> tensor_gflops;  // by precision: "tf32", "fp16", "bf16"
  std::vector<BandwidthPoint> bandwidth;        // ascending working sets

  // The scoring structure. Float32 tasks have a 2e-5 tolerance, which TF32 tensor cores cannot
  // meet, so their matmul FLOPs are held to the FP32 FMA peak; a task with bfloat16 or float16
  // inputs is held to that precision's tensor-core peak (Peaks::for_task).
  Peaks to_peaks() const;
  Json to_json() const;
  // The `machine` variables of prompts/platform/cuda.mustache: device, sm, sms (when known),
  // fp32_fma_gflops, fp32_add_gflops, bandwidth_gbytes_per_second (the largest working set's),
  // bandwidth ([{working_set, gbytes_per_second}]), numbers as text.
  Json prompt_variables() const;
};

// Throws UserError naming the line for output that is not the probe's.
GpuCeilings parse_gpu_probe(const std::string& text);

}  // namespace accelopt::platform::cuda
