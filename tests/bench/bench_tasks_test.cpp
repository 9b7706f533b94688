// The CPU edition of NKIBench (bench/cpu/*): every task loads, has the workloads the suite relies
// on, counts its work, and declares its baseline's knobs in the form docs/knobs.md documents.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "kernel/knobs.h"
#include "task/task.h"

namespace accelopt::task {
namespace {

const std::filesystem::path kBenchDirectory =
    std::filesystem::path(ACCELOPT_SOURCE_DIR) / "bench" / "cpu";

const std::set<std::string> kTaskNames = {"adamw",
                                          "add_rmsnorm_matmul",
                                          "matmul_add_rmsnorm",
                                          "rmsnorm_matmul",
                                          "matmul",
                                          "transpose_matmul",
                                          "bmm",
                                          "bmm_softmax",
                                          "lora",
                                          "swiglu",
                                          "silu",
                                          "gqa_full",
                                          "rope_single_freq_apply",
                                          "mamba"};

// Tasks whose NKIBench counts have no matrix-unit work, and those with no other arithmetic.
const std::set<std::string> kNoMatmulFlops = {"adamw", "silu", "rope_single_freq_apply", "mamba"};
const std::set<std::string> kNoVectorFlops = {"matmul", "transpose_matmul", "bmm"};

std::vector<std::filesystem::path> task_directories() {
  std::vector<std::filesystem::path> directories;
  for (const auto& entry : std::filesystem::directory_iterator(kBenchDirectory)) {
    if (entry.is_directory()) directories.push_back(entry.path());
  }
  std::sort(directories.begin(), directories.end());
  return directories;
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream stream(path);
  std::stringstream buffer;
  buffer << stream.rdbuf();
  return buffer.str();
}

TEST(BenchTasks, TheSuiteHoldsExactlyTheFourteenNkiBenchTasks) {
  std::set<std::string> found;
  for (const auto& directory : task_directories()) found.insert(directory.filename().string());
  EXPECT_EQ(found, kTaskNames);
}

TEST(BenchTasks, EveryTaskLoadsWithCpuDefaultAndSmallWorkloads) {
  for (const auto& directory : task_directories()) {
    SCOPED_TRACE(directory.string());
    Task task = load_task(directory);
    EXPECT_EQ(task.name, directory.filename().string());
    EXPECT_TRUE(std::find(task.tags.begin(), task.tags.end(), "nkibench") != task.tags.end());
    EXPECT_FALSE(task.description.empty());
    EXPECT_EQ(task.default_workload().name, "cpu");
    EXPECT_NO_THROW(task.workload("small"));
    EXPECT_EQ(task.workloads.size(), 2u);
    EXPECT_EQ(task.threads, 1);
    EXPECT_DOUBLE_EQ(task.rel_l2_tolerance, task.name == "mamba" ? 3e-5 : 2e-5);
    for (const auto* tensors : {&task.inputs, &task.outputs}) {
      for (const TensorSpec& tensor : *tensors) EXPECT_EQ(tensor.dtype, DType::kFloat32);
    }
  }
}

TEST(BenchTasks, RooflineCountsArePositiveWhereNkiBenchCountsWork) {
  for (const auto& directory : task_directories()) {
    Task task = load_task(directory);
    for (const Workload& workload : task.workloads) {
      SCOPED_TRACE(task.name + " / " + workload.name);
      RooflineCounts counts = task.roofline_counts(workload);
      EXPECT_GT(counts.bytes, 0);
      if (kNoMatmulFlops.count(task.name)) {
        EXPECT_EQ(counts.mm_flops, 0);
      } else {
        EXPECT_GT(counts.mm_flops, 0);
      }
      if (kNoVectorFlops.count(task.name)) {
        EXPECT_EQ(counts.vec_flops, 0);
      } else {
        EXPECT_GT(counts.vec_flops, 0);
      }
      // Compulsory traffic is at least every input and output element once, 4 bytes each.
      double elements = 0;
      for (const auto* tensors : {&task.inputs, &task.outputs}) {
        for (const TensorSpec& tensor : *tensors) {
          elements += static_cast<double>(task.element_count(tensor, workload));
        }
      }
      EXPECT_EQ(counts.bytes, 4 * elements);
    }
  }
}

TEST(BenchTasks, TheMatmulCountsFollowNkiBench) {
  Task task = load_task(kBenchDirectory / "matmul");
  RooflineCounts counts = task.roofline_counts(task.workload("cpu"));
  EXPECT_DOUBLE_EQ(counts.mm_flops, 2.0 * 1024 * 3072 * 1024);
  EXPECT_DOUBLE_EQ(counts.bytes, 4.0 * (1024 * 3072 + 3072 * 1024 + 1024 * 1024));
}

// Read with the one knob parser (kernel/knobs.h). Every `// knob:` line must be a knob: a line the
// parser skips (a malformed form, a repeated name) would silently hide a knob from the tuner.
TEST(BenchTasks, EveryBaselineDeclaresKnobsWithTheirValueAmongTheAllowedOnes) {
  for (const auto& directory : task_directories()) {
    SCOPED_TRACE(directory.string());
    Task task = load_task(directory);
    std::string source = read_text(task.baseline_path());
    std::vector<kernel::Knob> knobs = kernel::parse_knobs(source);
    ASSERT_FALSE(knobs.empty()) << "no `constexpr int NAME = V;  // knob: ...` line";
    std::istringstream lines(source);
    size_t knob_lines = 0;
    for (std::string line; std::getline(lines, line);) {
      if (line.find("// knob:") != std::string::npos) ++knob_lines;
    }
    EXPECT_EQ(knobs.size(), knob_lines) << "a knob line is malformed or declares a name twice";
    for (const kernel::Knob& knob : knobs) EXPECT_GE(knob.index(), 0) << knob.name;
  }
}

}  // namespace
}  // namespace accelopt::task
