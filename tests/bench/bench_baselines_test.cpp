// Every baseline of bench/cpu passes every input set of its task, on fresh secret seeds, at the
// small shape and at the CPU one (where sums are long enough for float32's rounding to approach a
// tolerance), with the margin its tolerance leaves printed: a tolerance too tight for honest
// float32 code fails here before it fails an agent's kernel.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "bench_cpu_fixture.h"
#include "common/files.h"
#include "platform/checker.h"
#include "platform/cpu/cpu_platform.h"
#include "platform/cpu/inputs.h"
#include "task/task.h"

namespace accelopt {
namespace {

class BaselineTest : public BenchCpuTest {};

// The smallest absolute allowance that would let `output` pass at `rtol`: in units of the one it
// has (atol + atol_rms * rms), and of the reference's root mean square (what atol_rms would need).
struct AllowanceUsed {
  double share = 0, of_rms = 0;
};

AllowanceUsed allowance_used(const std::vector<float>& output, const std::vector<float>& reference,
                             const task::Tolerance& tolerance) {
  double needed = 0, squares = 0;
  size_t finite = 0;
  for (size_t i = 0; i < output.size(); ++i) {
    double excess =
        std::fabs(double(output[i]) - reference[i]) - tolerance.rtol * std::fabs(reference[i]);
    needed = std::max(needed, excess);
    if (!std::isfinite(reference[i])) continue;  // as the checker's RMS leaves them out
    squares += double(reference[i]) * reference[i];
    ++finite;
  }
  double rms = finite == 0 ? 0 : std::sqrt(squares / static_cast<double>(finite));
  double allowance = tolerance.atol + tolerance.atol_rms * rms;
  return {needed / allowance, rms > 0 ? needed / rms : 0};
}

void expect_baseline_passes(platform::cpu::CpuPlatform& platform, const std::string& task_name,
                            const std::string& workload_name) {
  task::Task task = task::load_task(kBenchDirectory / task_name);
  const task::Workload& workload = task.workload(workload_name);
  std::vector<platform::cpu::CaseSpec> specs = platform::cpu::correctness_cases(task);
  std::vector<platform::ReferenceCase> reference = platform.run_reference(task, workload, specs);

  // The baseline's outputs on the same cases: run it in the reference's place.
  TempDir directory("accelopt-baseline");
  std::filesystem::copy_file(task.baseline_path(), directory.path() / "reference.cpp");
  task::Task as_reference = task;
  as_reference.directory = directory.path();
  std::vector<platform::ReferenceCase> baseline =
      platform.run_reference(as_reference, workload, specs);

  for (size_t c = 0; c < specs.size(); ++c) {
    const task::InputSet* set = specs[c].set.empty() ? nullptr : &task.input_set(specs[c].set);
    for (size_t o = 0; o < task.outputs.size(); ++o) {
      const std::string& name = task.outputs[o].name;
      task::Tolerance tolerance = task.tolerance(name, set);
      platform::OutputCheck check = platform::check_output(
          name, baseline[c].outputs[o].data(), reference[c].outputs[o].data(),
          reference[c].outputs[o].size(), tolerance);
      std::string where = task.name + " " + specs[c].label + " " + name;
      EXPECT_TRUE(check.ok) << where << ": " << check.message;
      AllowanceUsed used =
          allowance_used(baseline[c].outputs[o], reference[c].outputs[o], tolerance);
      std::printf(
          "%-22s %-40s rel_l2 %.2e (%.0f%% of %.1e)  allowance used %.2f (%.1e rms)  max_abs "
          "%.2e\n",
          task.name.c_str(), (specs[c].label + " " + name).c_str(), check.rel_l2_error,
          100 * check.rel_l2_error / tolerance.rel_l2, tolerance.rel_l2, used.share, used.of_rms,
          check.max_abs_error);
    }
  }
}

TEST_P(BaselineTest, PassesEveryInputSet) {
  expect_baseline_passes(*platform_, GetParam(), "small");
}

TEST_P(BaselineTest, PassesEveryInputSetAtTheCpuShape) {
  expect_baseline_passes(*platform_, GetParam(), "cpu");
}

INSTANTIATE_TEST_SUITE_P(Tasks, BaselineTest,
                         testing::ValuesIn(bench_tasks_with("definition.json")),
                         [](const testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace accelopt
