// NKIBench's NumPy references (bench/cpu/<task>/reference.py, written from NKIBench's definitions)
// against the C++ references beside them, on the same fresh cases of every input set: two
// independent writings of each task's meaning must agree within the task's own tolerance. Then one
// task whose only reference is reference.py, evaluated whole: checks, input sets and timed turns
// work as with a C++ reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "bench_cpu_fixture.h"
#include "common/files.h"
#include "platform/checker.h"
#include "platform/cpu/cpu_platform.h"
#include "platform/cpu/inputs.h"
#include "task/task.h"

namespace accelopt {
namespace {

class PythonReferenceTest : public BenchCpuTest {};

// How many elements differ by more than one float32 step and by more than 1e-10 of the output's
// RMS. Both sides compute in float64 and round once, so they agree to the bit but where float64's
// own rounding straddles a float32 boundary, or where an output is a cancellation far below its
// terms (mamba's cpu workload: an output of 3e-11 from terms of 5e-4, where the C++ side's fused
// multiply-adds land closer to an 80-bit recomputation than NumPy's). A stricter test than the
// tolerance, which lets float32 arithmetic through: NumPy's adamw, first written with a float32
// product, was 0.25 off on outputs of 1e6 and still within the tolerance.
size_t beyond_float64_noise(const std::vector<float>& a, const std::vector<float>& b) {
  double squares = 0;
  for (float value : b) squares += std::isfinite(value) ? double(value) * value : 0.0;
  double noise = 1e-10 * std::sqrt(squares / std::max<size_t>(b.size(), 1));
  size_t count = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) && std::isnan(b[i])) continue;
    bool close = a[i] == b[i] || std::nextafter(a[i], b[i]) == b[i] ||
                 std::fabs(double(a[i]) - b[i]) <= noise;
    count += close ? 0 : 1;
  }
  return count;
}

TEST_P(PythonReferenceTest, AgreesWithTheCppReference) {
  task::Task task = task::load_task(kBenchDirectory / GetParam());
  ASSERT_FALSE(task.python_reference) << "reference.cpp is the one a bench task runs";
  const char* chosen = std::getenv("ACCELOPT_CROSSCHECK_WORKLOAD");
  const task::Workload& workload = task.workload(chosen != nullptr ? chosen : "small");
  std::vector<platform::cpu::CaseSpec> specs = platform::cpu::correctness_cases(task);
  std::vector<platform::ReferenceCase> cpp = platform_->run_reference(task, workload, specs);
  task::Task numpy_task = task;
  numpy_task.python_reference = true;
  std::vector<platform::ReferenceCase> numpy =
      platform_->run_reference(numpy_task, workload, specs);

  for (size_t c = 0; c < specs.size(); ++c) {
    const task::InputSet* set = specs[c].set.empty() ? nullptr : &task.input_set(specs[c].set);
    ASSERT_EQ(numpy[c].outputs.size(), task.outputs.size());
    for (size_t o = 0; o < task.outputs.size(); ++o) {
      const std::string& name = task.outputs[o].name;
      task::Tolerance tolerance = task.tolerance(name, set);
      // Each side as the other's reference: agreement is not a direction.
      platform::OutputCheck numpy_vs_cpp =
          platform::check_output(name, numpy[c].outputs[o].data(), cpp[c].outputs[o].data(),
                                 cpp[c].outputs[o].size(), tolerance);
      platform::OutputCheck cpp_vs_numpy =
          platform::check_output(name, cpp[c].outputs[o].data(), numpy[c].outputs[o].data(),
                                 numpy[c].outputs[o].size(), tolerance);
      std::string where = task.name + " " + workload.name + " " + specs[c].label + " " + name;
      EXPECT_TRUE(numpy_vs_cpp.ok) << where << " (NumPy against C++): " << numpy_vs_cpp.message;
      EXPECT_TRUE(cpp_vs_numpy.ok) << where << " (C++ against NumPy): " << cpp_vs_numpy.message;
      EXPECT_EQ(beyond_float64_noise(numpy[c].outputs[o], cpp[c].outputs[o]), 0u)
          << where << ": elements apart by more than float64's rounding (max_abs "
          << numpy_vs_cpp.max_abs_error << ")";
      std::printf("%-24s %-44s rel_l2 %.2e of %.1e  max_abs %.2e\n", task.name.c_str(),
                  (specs[c].label + " " + name).c_str(), numpy_vs_cpp.rel_l2_error,
                  tolerance.rel_l2, numpy_vs_cpp.max_abs_error);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(BenchCpu, PythonReferenceTest,
                         testing::ValuesIn(bench_tasks_with("reference.py")),
                         [](const testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

TEST(PythonReferenceTask, ABaselineIsJudgedAgainstReferencePyAlone) {
  TempDir directory("accelopt-python-task");
  for (const char* file : {"definition.json", "baseline.cpp", "reference.py"}) {
    std::filesystem::copy_file(kBenchDirectory / "silu" / file, directory.path() / file);
  }
  task::Task task = task::load_task(directory.path());
  ASSERT_TRUE(task.python_reference);
  platform::cpu::CpuPlatformOptions options;
  options.compiler.cpus = platform::cpu::compile_cpus();
  platform::cpu::CpuPlatform platform(options,
                                      platform::cpu::load_or_probe_machine(false, nullptr));
  platform::EvalRequest request;
  request.task = &task;
  request.workload = "small";
  request.source = read_file(task.baseline_path());
  request.timing.budget_seconds = 2;
  request.timing.min_pairs = 4;
  request.timing.quiet_wait_seconds = 0;
  kernel::Verdict passed = platform.evaluate(request);
  EXPECT_EQ(passed.status, kernel::Status::kPassed) << passed.message;
  EXPECT_EQ(passed.correctness.seeds_checked, task.seeds + 2) << "every input set was checked";

  // A kernel off by a little more than the tolerance is refused against it.
  request.source.insert(request.source.rfind('}'), "  out[0] += 1.0f;\n");
  request.measure_time = false;
  kernel::Verdict refused = platform.evaluate(request);
  EXPECT_EQ(refused.status, kernel::Status::kIncorrectNumerical) << refused.message;
}

}  // namespace
}  // namespace accelopt
