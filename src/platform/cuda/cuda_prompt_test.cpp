// The agents' CUDA platform fragment (prompts/platform/cuda.mustache) renders with the GPU's
// figures, through the same prompt library the LLM agents use.
#include <gtest/gtest.h>

#include "agents/prompts.h"
#include "platform/cuda/gpu_ceilings.h"

namespace accelopt::platform::cuda {
namespace {

TEST(CudaPrompt, TheExecutorIsToldItWritesCudaForThisGpu) {
  GpuCeilings ceilings = parse_gpu_probe(
      "accelopt-gpu-probe 1\ndevice NVIDIA H200\nsm 9.0\nfp32_fma_gflops 60000\n"
      "fp32_add_gflops 30000\nbandwidth 1048576 2000\nbandwidth 1073741824 4200\n");
  agents::PromptLibrary library({}, ACCELOPT_SOURCE_DIR "/prompts", "cuda");
  Json variables = {{"platform", "cuda"},
                    {"machine", ceilings.prompt_variables()},
                    {"task", {{"entry_point", "kernel"}, {"rel_l2_tolerance", 2e-5}}}};
  std::string prompt = library.render("executor.system", variables);
  EXPECT_NE(prompt.find("an NVIDIA GPU (CUDA)"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("Device: NVIDIA H200, compute capability 9.0"), std::string::npos);
  EXPECT_NE(prompt.find("FP32 FMA 60000 GFLOP/s, device-memory bandwidth about 4200 GB/s"),
            std::string::npos);
  EXPECT_NE(prompt.find("extern \"C\" void kernel(...)"), std::string::npos);
  EXPECT_EQ(prompt.find("immintrin"), std::string::npos);  // nothing of the CPU fragment
}

}  // namespace
}  // namespace accelopt::platform::cuda
