#include "platform/cuda/gpu_ceilings.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace accelopt::platform::cuda {
namespace {

const char* kH100Output =
    "accelopt-gpu-probe 1\n"
    "device NVIDIA H100 80GB HBM3\n"
    "sm 9.0\n"
    "fp32_fma_gflops 51200.5\n"
    "fp32_add_gflops 25600.0\n"
    "tensor_gflops tf32 378000.0\n"
    "tensor_gflops fp16 740000.0\n"
    "bandwidth 1048576 1800.0\n"
    "bandwidth 4194304 2900.5\n"
    "bandwidth 1073741824 2950.0\n";

TEST(GpuProbe, ParsesIntoTheSameCeilingsStructureAsTheCpuProbe) {
  GpuCeilings ceilings = parse_gpu_probe(kH100Output);
  EXPECT_EQ(ceilings.device, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(ceilings.sm, "9.0");
  EXPECT_EQ(ceilings.tensor_gflops.at("fp16"), 740000.0);
  ASSERT_EQ(ceilings.bandwidth.size(), 3u);
  Peaks peaks = ceilings.to_peaks();
  EXPECT_EQ(peaks.fma_gflops, 51200.5);  // FP32 tasks: the FMA peak, not TF32
  EXPECT_EQ(peaks.vector_gflops, 25600.0);
  EXPECT_EQ(peaks.scope, CeilingScope::kWholeDevice);  // no thread rule on a GPU
  EXPECT_NEAR(peaks.bandwidth_at(1073741824), 2950.0, 1e-6);
  EXPECT_EQ(ceilings.to_json()["tensor_gflops"]["tf32"], 378000.0);
}

TEST(GpuProbe, ScoresAMatmulAgainstTheFp32Peak) {
  Peaks peaks = parse_gpu_probe(kH100Output).to_peaks();
  task::RooflineCounts counts{2.0 * 4096 * 4096 * 4096, 0, 4.0 * 3 * 4096 * 4096};
  kernel::RooflineScore score = score_roofline(counts, peaks, 0.01);
  EXPECT_EQ(score.bound, "fma");
  EXPECT_NEAR(score.percent_of_peak, 100 * counts.mm_flops / 51200.5e9 / 0.01, 1e-6);
}

// A task with float16 inputs may use the tensor cores at float16 (its tolerance allows them); a
// float32 task stays on the FP32 FMAs, and no bf16 figure here means no bfloat16 ceiling.
TEST(GpuProbe, NarrowTasksMeetTheTensorCoresOfTheirPrecision) {
  Peaks peaks = parse_gpu_probe(kH100Output).to_peaks();
  EXPECT_EQ(peaks.narrow_matrix_gflops.at("float16"), 740000.0);
  EXPECT_EQ(peaks.narrow_matrix_gflops.count("bfloat16"), 0u);
  task::Task fp16 =
      task::load_task(ACCELOPT_SOURCE_DIR "/bench/flashinfer/gemm_n28672_k4096", ".cu");
  task::Task fp32 = task::load_task(ACCELOPT_SOURCE_DIR "/bench/cuda/matmul", ".cu");
  EXPECT_EQ(peaks.for_task(fp16).fma_gflops, 740000.0);
  EXPECT_EQ(peaks.for_task(fp32).fma_gflops, 51200.5);
}

TEST(GpuProbe, RejectsForeignOrIncompleteOutputNamingTheLine) {
  auto message = [](const std::string& text) -> std::string {
    try {
      parse_gpu_probe(text);
    } catch (const UserError& error) {
      return error.what();
    }
    return "accepted";
  };
  EXPECT_NE(message("hello\n").find("line 1"), std::string::npos);
  EXPECT_NE(message("accelopt-gpu-probe 2\n").find("header"), std::string::npos);
  EXPECT_NE(message("accelopt-gpu-probe 1\nfp32_fma_gflops fast\n").find("line 2"),
            std::string::npos);
  EXPECT_NE(message("accelopt-gpu-probe 1\nwatts 700\n").find("unknown figure 'watts'"),
            std::string::npos);
  EXPECT_NE(message("accelopt-gpu-probe 1\nbandwidth 4096 10\nbandwidth 1024 5\n").find("ascend"),
            std::string::npos);
  EXPECT_NE(message("accelopt-gpu-probe 1\nfp32_fma_gflops 10\n").find("lacks"), std::string::npos);
  EXPECT_NE(message("").find("printed nothing"), std::string::npos);
}

}  // namespace
}  // namespace accelopt::platform::cuda
