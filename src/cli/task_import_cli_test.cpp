// `accelopt task import` and `accelopt task flops` on the real binary: FlashInfer-Bench's own GEMM
// definition (bench/flashinfer/gemm_n28672_k4096/original: float16, `torch.matmul(A, B.T)`) gets
// its FLOP counts from its reference, and a person's expression is kept over an inferred one.
#include <gtest/gtest.h>

#include <cstdlib>

#include "cli/cli_test_support.h"
#include "common/files.h"
#include "common/json.h"

namespace accelopt::cli {
namespace {

using testing::run_accelopt;

const std::filesystem::path kGemm =
    std::filesystem::path(ACCELOPT_SOURCE_DIR) / "bench/flashinfer/gemm_n28672_k4096/original";

bool has_torch() {
  return std::system("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1") == 0;
}

Json roofline_of(const std::filesystem::path& task) {
  return Json::parse(read_file(task / "definition.json")).at("roofline");
}

TEST(TaskImportCli, MeasuresTheFlopCountsFromTheReference) {
  if (!has_torch()) GTEST_SKIP() << "no python3-torch here (scripts/setup.sh --torch)";
  TempDir scratch("accelopt-import-cli");
  std::filesystem::path task = scratch.path() / "gemm";
  auto imported =
      run_accelopt("task import " + (kGemm / "definition.json").string() + " --workloads " +
                       (kGemm / "workloads.jsonl").string() + " --out " + task.string(),
                   scratch.path());
  ASSERT_EQ(imported.code, 0) << imported.output;
  EXPECT_NE(imported.output.find("roofline.mm_flops = \"2*K*M*N\""), std::string::npos)
      << imported.output;
  EXPECT_EQ(imported.output.find("cannot be read"), std::string::npos) << imported.output;
  EXPECT_EQ(roofline_of(task).at("mm_flops"), "2*K*M*N");
  EXPECT_EQ(roofline_of(task).at("vec_flops"), "0");

  // A person's expression wins: --write keeps it and says so.
  Json definition = Json::parse(read_file(task / "definition.json"));
  definition["roofline"]["mm_flops"] = "2*M*N*K";
  write_file_atomic(task / "definition.json", definition.dump(2));
  auto again = run_accelopt("task flops --write --task " + task.string(), scratch.path());
  ASSERT_EQ(again.code, 0) << again.output;
  EXPECT_NE(again.output.find("kept the definition's \"2*M*N*K\""), std::string::npos)
      << again.output;
  EXPECT_EQ(roofline_of(task).at("mm_flops"), "2*M*N*K");

  // Without the measurement the counts stay 0 and the note says how to set them.
  auto unmeasured = run_accelopt("task import " + (kGemm / "definition.json").string() +
                                     " --no-flops --out " + (scratch.path() / "plain").string(),
                                 scratch.path());
  ASSERT_EQ(unmeasured.code, 0) << unmeasured.output;
  EXPECT_EQ(roofline_of(scratch.path() / "plain").at("mm_flops"), "0");
  EXPECT_NE(unmeasured.output.find("roofline:"), std::string::npos) << unmeasured.output;
}

TEST(TaskImportCli, FlopsOnATaskWithACppReferenceSaysWhy) {
  TempDir scratch("accelopt-flops-cli");
  auto refused = run_accelopt(
      "task flops --task " + std::string(ACCELOPT_SOURCE_DIR) + "/tests/data/tasks/axpy",
      scratch.path());
  EXPECT_NE(refused.code, 0);
  EXPECT_NE(refused.output.find("measured from a Python reference"), std::string::npos)
      << refused.output;
}

}  // namespace
}  // namespace accelopt::cli
