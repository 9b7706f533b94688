// The FLOP counts read from a Python reference: the fit over the axes with a counter written here
// (exact by construction), then the driver's counter on real NumPy and PyTorch references.
#include "platform/reference_flops.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "common/error.h"
#include "common/files.h"

namespace accelopt::platform {
namespace {

using Axes = std::map<std::string, int64_t>;

// A task of `axes`, with one workload of `values`, under `constraints`.
task::Task task_of(const std::string& axes, const std::string& values,
                   const std::string& constraints = "") {
  std::string text = R"({"name": "t", "op_type": "test", "axes": )" + axes +
                     R"(, "workloads": {"w": {"axes": )" + values + "}}" +
                     R"(, "inputs": {"x": {"dtype": "float32", "shape": []}},
      "outputs": {"out": {"dtype": "float32", "shape": []}},)" +
                     (constraints.empty() ? "" : R"("constraints": )" + constraints + ",") +
                     R"("roofline": {"bytes": "8"}})";
  return task::parse_task_definition(text, ".", "definition.json");
}

double at(const Axes& axes, const char* name) {
  return static_cast<double>(axes.at(name));
}

TEST(InferFlops, WritesProductsOfTheAxesAndRefusesWhatIsNotOne) {
  task::Task task = task_of(R"({"M": {"type": "var"}, "N": {"type": "var"}, "K": {"type": "var"}})",
                            R"({"M": 64, "N": 8, "K": 4})");
  std::vector<Axes> asked;
  FlopCounter count = [&](const Axes& axes) {
    asked.push_back(axes);
    MeasuredFlops measured;
    measured.mm_flops = 2 * at(axes, "M") * at(axes, "N") * at(axes, "K");
    measured.vec_flops = 3 * at(axes, "M") * at(axes, "N") + at(axes, "M");  // not a product
    measured.library = "torch";
    return measured;
  };
  InferredFlops inferred = infer_flops(task, {{"M", 64}, {"N", 8}, {"K", 4}}, count);
  ASSERT_TRUE(inferred.mm_flops.has_value());
  EXPECT_EQ(*inferred.mm_flops, "2*K*M*N");
  EXPECT_FALSE(inferred.vec_flops.has_value());
  ASSERT_EQ(inferred.notes.size(), 2u);
  EXPECT_NE(inferred.notes[1].find("not a power of two"), std::string::npos) << inferred.notes[1];
  // M cut to 16 for the base; each axis doubled once; all doubled to check: 5 shapes.
  ASSERT_EQ(asked.size(), 5u);
  EXPECT_EQ(asked[0], (Axes{{"M", 16}, {"N", 8}, {"K", 4}}));
  EXPECT_EQ(asked[4], (Axes{{"M", 32}, {"N", 16}, {"K", 8}}));
}

TEST(InferFlops, NamesConstAxesAndLetConstraintsDecideAxes) {
  task::Task task = task_of(
      R"({"H_qo": {"type": "var"}, "H_kv": {"type": "var"}, "H_r": {"type": "var"},
          "S": {"type": "var"}, "D": {"type": "const", "value": 128}})",
      R"({"H_qo": 8, "H_kv": 2, "H_r": 4, "S": 8})", R"(["H_qo == H_kv * H_r"])");
  FlopCounter count = [&](const Axes& axes) {
    EXPECT_EQ(axes.at("H_qo"), axes.at("H_kv") * axes.at("H_r")) << "the constraint holds";
    MeasuredFlops measured;
    measured.mm_flops = 4 * at(axes, "H_qo") * at(axes, "S") * at(axes, "S") * at(axes, "D");
    measured.vec_flops = 0;
    return measured;
  };
  InferredFlops inferred =
      infer_flops(task, {{"H_qo", 8}, {"H_kv", 2}, {"H_r", 4}, {"S", 8}, {"D", 128}}, count);
  ASSERT_TRUE(inferred.mm_flops && inferred.vec_flops);
  EXPECT_EQ(*inferred.mm_flops, "4*D*H_kv*H_r*S^2");
  EXPECT_EQ(*inferred.vec_flops, "0");
}

TEST(InferFlops, AReferenceThatFailsEverywhereSaysWhereAndWhy) {
  task::Task task = task_of(R"({"M": {"type": "var"}})", R"({"M": 100})");
  FlopCounter count = [&](const Axes& axes) -> MeasuredFlops {
    throw UserError("run raised at M=" + std::to_string(axes.at("M")));
  };
  try {
    infer_flops(task, {{"M", 100}}, count);
    FAIL() << "no error";
  } catch (const UserError& error) {
    std::string message = error.what();
    EXPECT_NE(message.find("at M=16: run raised at M=16"), std::string::npos) << message;
    EXPECT_NE(message.find("own shape: run raised at M=100"), std::string::npos) << message;
  }
}

// The driver's counter on real references, in the sandbox.
class CountedReference : public ::testing::Test {
 protected:
  InferredFlops infer(const std::string& source, const std::string& dtype = "float32") {
    std::string definition = R"json({"name": "mlp", "op_type": "test",
      "axes": {"M": {"type": "var"}, "N": {"type": "const", "value": 8}, "K": {"type": "var"}},
      "inputs": {"x": {"dtype": "DT", "shape": ["M", "K"]},
                 "w": {"dtype": "DT", "shape": ["N", "K"]}},
      "outputs": {"out": {"dtype": "DT", "shape": ["M", "N"]}},
      "workloads": {"small": {"axes": {"M": 4, "K": 16}}},
      "roofline": {"bytes": "4*(M*K + N*K + M*N)"}})json";
    for (size_t at = definition.find("DT"); at != std::string::npos; at = definition.find("DT")) {
      definition.replace(at, 2, dtype);
    }
    write_file_atomic(directory_.path() / "definition.json", definition);
    write_file_atomic(directory_.path() / "reference.py", source);
    write_file_atomic(directory_.path() / "baseline.cpp", "// none\n");
    task_ = task::load_task(directory_.path());
    PythonReferenceOptions options;
    options.cache_directory = cache_.path();
    return infer_flops(task_, task_.workload("small").axes, python_reference_flops(task_, options));
  }

  TempDir directory_{"accelopt-flops-task"};
  TempDir cache_{"accelopt-flops-cache"};
  task::Task task_;
};

bool has_torch() {
  return std::system("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1") == 0;
}

TEST_F(CountedReference, NumPyMatrixProductsReductionsAndElementwiseWork) {
  // x @ w.T: 2*M*N*K; exp and the division: 1 each per element of [M,N]; the sum reads M*N;
  // dividing by 2.0 (a constant scalar) is not counted.
  InferredFlops inferred = infer(
      "import numpy as np\n\ndef run(x, w):\n"
      "    y = np.exp(x @ w.T) / 2.0\n"
      "    return (y / y.sum(axis=1, keepdims=True)).astype(np.float32)\n");
  ASSERT_TRUE(inferred.mm_flops && inferred.vec_flops) << inferred.notes.front();
  EXPECT_EQ(*inferred.mm_flops, "2*K*M*N");
  EXPECT_EQ(*inferred.vec_flops, "3*M*N");
  EXPECT_NE(inferred.notes[0].find("NumPy's operations"), std::string::npos) << inferred.notes[0];
}

TEST_F(CountedReference, PyTorchOperationsAreCountedAtTheDispatcher) {
  if (!has_torch()) GTEST_SKIP() << "no python3-torch here (scripts/setup.sh --torch)";
  // einsum reaches the dispatcher as bmm; softmax counts 5 per element; silu 1.
  InferredFlops inferred = infer(
      "import torch\n\n@torch.no_grad()\ndef run(x, w):\n"
      "    y = torch.einsum('mk,nk->mn', x, w)\n"
      "    return torch.softmax(torch.nn.functional.silu(y) * 0.5, dim=-1)\n");
  ASSERT_TRUE(inferred.mm_flops && inferred.vec_flops) << inferred.notes.front();
  EXPECT_EQ(*inferred.mm_flops, "2*K*M*N");
  EXPECT_EQ(*inferred.vec_flops, "6*M*N");
}

TEST_F(CountedReference, AFloat16ProductTheCpuLacksIsTakenInFloat32) {
  if (!has_torch()) GTEST_SKIP() << "no python3-torch here (scripts/setup.sh --torch)";
  // FlashInfer-Bench's GEMM as written: Debian's PyTorch 1.13 has no float16 addmm on the CPU.
  std::string gemm = "import torch\n\ndef run(x, w):\n    return torch.matmul(x, w.T)\n";
  InferredFlops inferred = infer(gemm, "float16");
  ASSERT_TRUE(inferred.mm_flops) << inferred.notes.front();
  EXPECT_EQ(*inferred.mm_flops, "2*K*M*N");

  PythonReferenceOptions options;
  options.cache_directory = cache_.path();
  const task::Workload& small = task_.workload("small");
  PythonReference reference(task_, small, options);
  ReferenceCase reference_case;
  reference_case.label = "case 1";
  std::vector<float> x(4 * 16, 0.5f), w(8 * 16, 0.25f);
  reference_case.inputs = encode_inputs(task_, {x, w});
  reference.answer(reference_case);
  ASSERT_EQ(reference_case.outputs.size(), 1u);
  for (float value : reference_case.outputs[0]) EXPECT_FLOAT_EQ(value, 16 * 0.5f * 0.25f);
}

}  // namespace
}  // namespace accelopt::platform
