// nvcc on one representative baseline, a bfloat16 one, the header of a task of every dtype and a
// broken kernel, for an architecture named explicitly, so it runs on a machine with nvcc and no
// GPU. cuda_compile_all_test (slow) compiles the rest.
#include <gtest/gtest.h>

#include "common/files.h"
#include "platform/cuda/nvcc_compiler.h"
#include "task/abi.h"
#include "task/task.h"

namespace accelopt::platform::cuda {
namespace {

class CudaCompileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!find_nvcc()) GTEST_SKIP() << "no nvcc (scripts/setup.sh --cuda installs it)";
    NvccOptions options;
    options.arch = "sm_90";
    options.cache_directory = cache_.path();
    compiler_.emplace(options);
  }
  TempDir cache_{"accelopt-nvcc-cache"};
  std::optional<NvccCompiler> compiler_;
};

TEST_F(CudaCompileTest, TheSiluBaselineCompilesAndIsCachedByContent) {
  task::Task task = task::load_task(ACCELOPT_SOURCE_DIR "/bench/cuda/silu", ".cu");
  std::string header = task::generate_kernel_header(task, task.workload("small"));
  NvccResult first = compiler_->compile(read_file(task.baseline_path()), header);
  ASSERT_TRUE(first.ok) << first.diagnostics;
  EXPECT_FALSE(first.cached);
  EXPECT_TRUE(std::filesystem::exists(first.library));
  NvccResult second = compiler_->compile(read_file(task.baseline_path()), header);
  EXPECT_TRUE(second.ok && second.cached);
  EXPECT_EQ(second.library, first.library);
}

TEST_F(CudaCompileTest, TheRmsnormBFloat16BaselineCompiles) {
  task::Task task = task::load_task(ACCELOPT_SOURCE_DIR "/bench/flashinfer/rmsnorm_h128", ".cu");
  NvccResult result = compiler_->compile(
      read_file(task.baseline_path()), task::generate_kernel_header(task, task.workload("small")));
  EXPECT_TRUE(result.ok) << result.diagnostics;
}

// Every dtype the CUDA platform runs, in one prototype; the header's helpers and the implicit
// conversions used in device code and in the host stub.
TEST_F(CudaCompileTest, TheHeaderOfEveryDtypeCompilesInDeviceAndHostCode) {
  task::Task task = task::parse_task_definition(R"json({
    "name": "dtypes", "op_type": "test", "axes": {"N": {"type": "var"}},
    "inputs": {"a": {"dtype": "bfloat16", "shape": ["N"]},
               "b": {"dtype": "float16", "shape": ["N"]},
               "index": {"dtype": "int32", "shape": ["N"],
                         "distribution": {"kind": "integer", "low": 0, "high": 4}},
               "small": {"dtype": "int8", "shape": ["N"]},
               "scale": {"dtype": "float32", "shape": []}},
    "outputs": {"y": {"dtype": "bfloat16", "shape": ["N"]},
                "z": {"dtype": "float16", "shape": ["N"]}},
    "workloads": {"w": {"axes": {"N": 64}}}, "roofline": {"bytes": "12*N"}})json",
                                                "/t", "t");
  task.kernel_extension = ".cu";
  std::string header = task::generate_kernel_header(task, task.default_workload());
  std::string source = R"(#include "accelopt_task.h"
__global__ void body(const accelopt::bf16* a, const __half* b, const int32_t* index,
                     const int8_t* small, const float* scale, __nv_bfloat16* y, accelopt::fp16* z) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  float sum = accelopt::to_float(a[index[i]]) + float(b[i]) + small[i] * *scale;
  y[i] = accelopt::to_bf16(sum);
  z[i] = sum;
}
extern "C" void kernel(const __nv_bfloat16* __restrict a, const __half* __restrict b,
                       const int32_t* __restrict index, const int8_t* __restrict small,
                       const float* __restrict scale, __nv_bfloat16* __restrict y,
                       __half* __restrict z) {
  static_assert(sizeof(accelopt::bf16) == 2 && sizeof(accelopt::fp16) == 2);
  float host_side = accelopt::to_float(accelopt::to_bf16(1.5f)) +
                    accelopt::to_float(accelopt::to_fp16(2.0f));
  if (host_side != 3.5f) return;
  body<<<(N + 31) / 32, 32>>>(a, b, index, small, scale, y, z);
}
)";
  NvccResult result = compiler_->compile(source, header);
  EXPECT_TRUE(result.ok) << header << "\n" << result.diagnostics;
}

TEST_F(CudaCompileTest, ACompileErrorIsReportedAndCached) {
  std::string source =
      "#include \"accelopt_task.h\"\nextern \"C\" void kernel() { undefined_name; }\n";
  NvccResult first = compiler_->compile(source, "#pragma once\n");
  EXPECT_FALSE(first.ok);
  EXPECT_NE(first.diagnostics.find("undefined_name"), std::string::npos) << first.diagnostics;
  NvccResult second = compiler_->compile(source, "#pragma once\n");
  EXPECT_FALSE(second.ok);
  EXPECT_TRUE(second.cached);
}

}  // namespace
}  // namespace accelopt::platform::cuda
