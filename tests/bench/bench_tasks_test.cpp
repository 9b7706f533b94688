// The CPU edition of NKIBench (bench/cpu/*): every task loads, has the workloads the suite relies
// on, counts its work, and declares its baseline's knobs in the form docs/knobs.md documents.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

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

struct Knob {
  std::string name;
  long value = 0;
  std::vector<long> allowed;
};

// The knob form of docs/knobs.md: `constexpr int NAME = VALUE;  // knob: V1 V2 ...` on one line.
std::vector<Knob> declared_knobs(const std::string& source) {
  static const std::regex kKnobLine(
      R"(^constexpr int ([A-Z][A-Z0-9_]*) = (-?[0-9]+); *// knob:((?: +-?[0-9]+)+) *$)");
  std::vector<Knob> knobs;
  std::istringstream lines(source);
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch match;
    if (!std::regex_match(line, match, kKnobLine)) continue;
    Knob knob;
    knob.name = match[1];
    knob.value = std::stol(match[2]);
    std::istringstream values(match[3].str());
    long allowed = 0;
    while (values >> allowed) knob.allowed.push_back(allowed);
    knobs.push_back(knob);
  }
  return knobs;
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

TEST(BenchTasks, EveryBaselineDeclaresKnobsWithTheirValueAmongTheAllowedOnes) {
  for (const auto& directory : task_directories()) {
    SCOPED_TRACE(directory.string());
    Task task = load_task(directory);
    std::vector<Knob> knobs = declared_knobs(read_text(task.baseline_path()));
    ASSERT_FALSE(knobs.empty()) << "no `constexpr int NAME = V;  // knob: ...` line";
    std::set<std::string> names;
    for (const Knob& knob : knobs) {
      SCOPED_TRACE(knob.name);
      EXPECT_TRUE(names.insert(knob.name).second) << "declared twice";
      EXPECT_FALSE(knob.allowed.empty());
      EXPECT_TRUE(std::find(knob.allowed.begin(), knob.allowed.end(), knob.value) !=
                  knob.allowed.end());
    }
  }
}

TEST(BenchTasks, TheKnobFormRejectsLinesThatOnlyLookLikeKnobs) {
  EXPECT_EQ(declared_knobs("constexpr int TILE = 64;  // knob: 32 64\n").size(), 1u);
  EXPECT_TRUE(declared_knobs("constexpr int tile = 64;  // knob: 32 64\n").empty());
  EXPECT_TRUE(declared_knobs("constexpr long TILE = 64;  // knob: 32 64\n").empty());
  EXPECT_TRUE(declared_knobs("constexpr int TILE = 64;  // knob:\n").empty());
  EXPECT_TRUE(declared_knobs("  constexpr int TILE = 64;  // knob: 32 64\n").empty());
}

}  // namespace
}  // namespace accelopt::task
