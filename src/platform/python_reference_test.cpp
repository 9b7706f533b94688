// The Python reference, run for real: Debian's /usr/bin/python3 with NumPy, in its sandbox.
#include "platform/python_reference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "common/error.h"
#include "common/files.h"

namespace accelopt::platform {
namespace {

const char* kDefinition = R"json({
  "name": "scaled_sum", "op_type": "test",
  "axes": {"M": {"type": "var"}, "N": {"type": "const", "value": 4}},
  "inputs": {"x": {"dtype": "float32", "shape": ["M", "N"]},
             "y": {"dtype": "float32", "shape": ["M", "N"]}},
  "outputs": {"out": {"dtype": "float32", "shape": ["M", "N"]},
              "total": {"dtype": "float32", "shape": ["M"]}},
  "workloads": {"small": {"axes": {"M": 3}}},
  "roofline": {"bytes": "4*M*N"}
})json";

const char* kGood = R"py(import numpy as np


def run(x, y):
    out = 2.0 * x.astype(np.float64) + y
    return out.astype(np.float32), out.sum(axis=1).astype(np.float32)
)py";

class PythonReferenceTest : public ::testing::Test {
 protected:
  // A task whose reference.py is `source`, and a reference for it with its own cache.
  // `y_constant`: y is a constant input (weights, task.h).
  std::unique_ptr<PythonReference> reference(
      const std::string& source, std::chrono::milliseconds call_timeout = std::chrono::seconds(60),
      bool y_constant = false) {
    write_file_atomic(directory_.path() / "reference.py", source);
    task_ = task::parse_task_definition(kDefinition, directory_.path(), "definition.json");
    task_.python_reference = true;
    task_.inputs[1].constant = y_constant;
    PythonReferenceOptions options;
    options.call_timeout = call_timeout;
    options.cache_directory = cache_.path();
    return std::make_unique<PythonReference>(task_, task_.workload("small"), options);
  }

  ReferenceCase a_case(uint64_t seed = 7) {
    ReferenceCase reference_case;
    reference_case.seed = seed;
    reference_case.label = "case 1";
    std::vector<float> x(12), y(12);
    for (int i = 0; i < 12; ++i) {
      x[i] = 0.5f * static_cast<float>(i);
      y[i] = 1.0f - static_cast<float>(i);
    }
    task::Task task =
        task::parse_task_definition(kDefinition, directory_.path(), "definition.json");
    reference_case.inputs = encode_inputs(task, {x, y});
    return reference_case;
  }

  // The error the reference raises on a case, or "no error".
  std::string failure(const std::string& source,
                      std::chrono::milliseconds call_timeout = std::chrono::seconds(60)) {
    try {
      ReferenceCase reference_case = a_case();
      reference(source, call_timeout)->answer(reference_case, true);
    } catch (const UserError& error) {
      return error.what();
    }
    return "no error";
  }

  size_t cached_entries() const {
    size_t count = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(cache_.path())) {
      ++count;
    }
    return count;
  }

  TempDir directory_{"accelopt-python-task"};
  TempDir cache_{"accelopt-python-cache"};
  task::Task task_;
};

TEST_F(PythonReferenceTest, ComputesEveryOutputInItsSandbox) {
  auto python = reference(kGood);
  ReferenceCase reference_case = a_case();
  python->answer(reference_case);
  ASSERT_EQ(reference_case.outputs.size(), 2u);
  for (int i = 0; i < 12; ++i) {
    EXPECT_FLOAT_EQ(reference_case.outputs[0][i], 2.0f * 0.5f * i + 1.0f - i);
  }
  for (int row = 0; row < 3; ++row) {
    double sum = 0;
    for (int column = 0; column < 4; ++column) {
      int i = row * 4 + column;
      sum += 2.0 * 0.5 * i + 1.0 - i;
    }
    EXPECT_FLOAT_EQ(reference_case.outputs[1][row], static_cast<float>(sum));
  }
  EXPECT_GE(reference_case.reference_seconds, 0);
  Json measures = python->sandbox().at("measures");
  EXPECT_NE(std::find(measures.begin(), measures.end(), "seccomp"), measures.end())
      << python->sandbox().dump();
  EXPECT_EQ(cached_entries(), 0u) << "a secret seed's answer is never kept";
}

TEST_F(PythonReferenceTest, APublicSeedRunsOnceThenComesFromTheCache) {
  ReferenceCase first = a_case(11);
  reference(kGood)->answer(first, true);
  EXPECT_EQ(cached_entries(), 1u);
  auto again = reference(kGood);
  ReferenceCase second = a_case(11);
  again->answer(second, true);
  EXPECT_EQ(again->cache_hits(), 1);
  EXPECT_EQ(again->calls(), 0) << "the interpreter is not even started";
  EXPECT_EQ(second.outputs, first.outputs);
  // Another seed, or another source, is another entry.
  ReferenceCase other = a_case(12);
  again->answer(other, true);
  EXPECT_EQ(again->calls(), 1);
  ReferenceCase changed = a_case(11);
  auto edited = reference(std::string(kGood) + "\n# edited\n");
  edited->answer(changed, true);
  EXPECT_EQ(edited->calls(), 1);
  EXPECT_EQ(cached_entries(), 3u);
}

TEST_F(PythonReferenceTest, ARaisingReferenceNamesTaskAndLineAndKeepsNothing) {
  std::string message =
      failure("import numpy as np\n\ndef run(x, y):\n    return x / 0 + np.log(-1)[5]\n");

  EXPECT_NE(message.find("task scaled_sum"), std::string::npos) << message;
  EXPECT_NE(message.find("reference.py:4 in run"), std::string::npos) << message;
  EXPECT_NE(message.find("IndexError"), std::string::npos) << message;
  EXPECT_EQ(cached_entries(), 0u);
}

TEST_F(PythonReferenceTest, AWrongShapeOrDtypeIsRefusedWithRunsLine) {
  std::string shape =
      failure("import numpy as np\n\ndef run(x, y):\n    return x[:, :3].copy(), x.sum(axis=1)\n");
  EXPECT_NE(shape.find("reference.py:3 (def run): run returned out with shape (3, 3); the "
                       "definition says (3, 4)"),
            std::string::npos)
      << shape;
  std::string dtype = failure(
      "import numpy as np\n\ndef run(x, y):\n    return x.astype(np.float64), x.sum(axis=1)\n");
  EXPECT_NE(dtype.find("run returned out as float64; the definition says float32"),
            std::string::npos)
      << dtype;
  std::string count = failure("def run(x, y):\n    return x\n");
  EXPECT_NE(count.find("run returned one value; the definition has 2 outputs (out, total)"),
            std::string::npos)
      << count;
  EXPECT_EQ(cached_entries(), 0u);
}

TEST_F(PythonReferenceTest, AReferencePastItsDeadlineIsStopped) {
  std::string message =
      failure("import time\n\ndef run(x, y):\n    time.sleep(30)\n    return x, x[:, 0]\n",
              std::chrono::milliseconds(1500));
  EXPECT_NE(message.find("ran past its deadline (1500 ms) on case 1"), std::string::npos)
      << message;
  EXPECT_EQ(cached_entries(), 0u);
}

TEST_F(PythonReferenceTest, AReferenceThatReadsAFileIsRefusedAtItsLine) {
  std::string message = failure(
      "import numpy as np\n\ndef run(x, y):\n    secret = open('/etc/passwd').read()\n"
      "    return x, x[:, 0]\n");
  EXPECT_NE(message.find("reference.py:4 in run"), std::string::npos) << message;
  EXPECT_NE(message.find("may not open a file ('/etc/passwd')"), std::string::npos) << message;
  // At load time too, and through the os module.
  std::string at_load = failure("import os\nfd = os.open('reference.py', os.O_RDONLY)\n");
  EXPECT_NE(at_load.find("reference.py:2 in <module>"), std::string::npos) << at_load;
  EXPECT_NE(at_load.find("failed while loading"), std::string::npos) << at_load;
  // A module not loaded before the door closed is a file it would read.
  std::string late_import =
      failure("def run(x, y):\n    import json.tool\n    return x, x[:, 0]\n");
  EXPECT_NE(late_import.find("reference.py:2 in run"), std::string::npos) << late_import;
  EXPECT_EQ(cached_entries(), 0u);
}

TEST_F(PythonReferenceTest, AReferenceWithoutRunOrThatDoesNotParseSaysSo) {
  std::string missing = failure("import numpy as np\n\ndef compute(x, y):\n    return x\n");
  EXPECT_NE(missing.find("task scaled_sum"), std::string::npos) << missing;
  EXPECT_NE(missing.find("defines no run(): a Python reference is a function run(x, y)"),
            std::string::npos)
      << missing;
  std::string syntax = failure("def run(x, y):\n    return (x,\n\n");
  EXPECT_NE(syntax.find("does not parse"), std::string::npos) << syntax;
  EXPECT_NE(syntax.find("reference.py:"), std::string::npos) << syntax;
  EXPECT_EQ(cached_entries(), 0u);
  // Without python3-torch, a torch reference says how to get it (with it, it runs: below).
  std::string torch = failure("import torch\n\ndef run(x, y):\n    return x, x[:, 0]\n");
  if (torch != "no error") {
    EXPECT_NE(torch.find("python3-torch (scripts/setup.sh --torch)"), std::string::npos) << torch;
  }
}

// FlashInfer-Bench's own form: a torch function under @torch.no_grad(), tensors in and out.
TEST_F(PythonReferenceTest, ATorchReferenceGetsAndReturnsTensors) {
  if (std::system("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "no python3-torch here (scripts/setup.sh --torch)";
  }
  auto python = reference(
      "import torch\n\n@torch.no_grad()\ndef run(x, y):\n"
      "    assert isinstance(x, torch.Tensor) and x.dtype == torch.float32\n"
      "    out = 2.0 * x.to(torch.float64) + y\n"
      "    return out.to(torch.float32), out.sum(dim=1).to(torch.float32)\n");
  ReferenceCase reference_case = a_case();
  python->answer(reference_case);
  EXPECT_TRUE(python->sandbox().at("torch").get<bool>());
  ASSERT_EQ(reference_case.outputs.size(), 2u);
  for (int i = 0; i < 12; ++i) {
    EXPECT_FLOAT_EQ(reference_case.outputs[0][i], 2.0f * 0.5f * i + 1.0f - i);
  }
  std::string dtype =
      failure("import torch\n\ndef run(x, y):\n    return x.double(), x.sum(dim=1)\n");
  EXPECT_NE(dtype.find("run returned out as float64; the definition says float32"),
            std::string::npos)
      << dtype;
}

// A constant input is written to the driver once while the cases hold the same array, and anew
// (the driver dropping what it made of it) when one holds another; the reference sees it
// read-only.
TEST_F(PythonReferenceTest, AConstantInputIsWrittenOnceAndIsReadOnly) {
  auto python = reference(kGood, std::chrono::seconds(60), true);
  ReferenceCase first = a_case();
  ReferenceCase second = a_case();
  second.inputs[0] = task::TensorValues::encode(task::DType::kFloat32, std::vector<float>(12, 3));
  second.inputs[1] = first.inputs[1];  // the same array
  python->answer(first);
  python->answer(second);
  EXPECT_EQ(python->calls(), 2);
  EXPECT_EQ(python->constant_writes(), 1);
  for (int i = 0; i < 12; ++i) EXPECT_FLOAT_EQ(second.outputs[0][i], 6.0f + 1.0f - i);

  ReferenceCase other = second;
  other.inputs[1] = task::TensorValues::encode(task::DType::kFloat32, std::vector<float>(12, -5));
  python->answer(other);
  EXPECT_EQ(python->constant_writes(), 2);
  for (int i = 0; i < 12; ++i) EXPECT_FLOAT_EQ(other.outputs[0][i], 6.0f - 5.0f);

  std::string changed = failure(
      "import numpy as np\n\ndef run(x, y):\n    y += 1\n"
      "    return x.copy(), x.sum(axis=1)\n");
  EXPECT_EQ(changed, "no error") << "y is drawn per case in failure()'s task";
  try {
    ReferenceCase reference_case = a_case();
    reference(
        "import numpy as np\n\ndef run(x, y):\n    y += 1\n"
        "    return x.copy(), x.sum(axis=1)\n",
        std::chrono::seconds(60), true)
        ->answer(reference_case);
    ADD_FAILURE() << "a reference that changed a constant input in place was let through";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("read-only"), std::string::npos) << error.what();
  }
  if (std::system("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1") != 0) return;
  try {  // a torch tensor cannot be made read-only: it lies on a read-only mapping
    ReferenceCase reference_case = a_case();
    reference(
        "import torch\n\ndef run(x, y):\n    y.add_(1)\n"
        "    return x.clone(), x.sum(dim=1)\n",
        std::chrono::seconds(60), true)
        ->answer(reference_case);
    ADD_FAILURE() << "a reference that changed a constant input in place was let through";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("its constant inputs are read-only"),
              std::string::npos)
        << error.what();
  }
}

// Narrow and integer tensors: NumPy gets float16 and int32 as themselves and bfloat16 as float32
// values already rounded to it; a bfloat16 output comes back as float32 and is rounded by the
// harness; a wrong dtype is named.
TEST(PythonReferenceDTypes, NumPyGetsEachDTypeAndBFloat16AsFloat32) {
  TempDir directory("accelopt-python-task");
  TempDir cache("accelopt-python-cache");
  write_file_atomic(directory.path() / "reference.py", R"py(import numpy as np


def run(x, h, idx):
    assert x.dtype == np.float32, x.dtype
    assert h.dtype == np.float16, h.dtype
    assert idx.dtype == np.int32, idx.dtype
    assert (x.view(np.uint32) & 0xFFFF == 0).all(), "bfloat16 values in float32"
    y = x[idx] / np.float32(3)
    return y.astype(np.float32), (h * np.float16(2)).astype(np.float16)
)py");
  task::Task task = task::parse_task_definition(R"json({
    "name": "narrow", "op_type": "test", "axes": {"N": {"type": "var"}},
    "inputs": {"x": {"dtype": "bfloat16", "shape": ["N"]},
               "h": {"dtype": "float16", "shape": ["N"]},
               "idx": {"dtype": "int32", "shape": ["N"],
                       "distribution": {"kind": "integer", "low": 0, "high": 8}}},
    "outputs": {"y": {"dtype": "bfloat16", "shape": ["N"]},
                "g": {"dtype": "float16", "shape": ["N"]}},
    "workloads": {"small": {"axes": {"N": 8}}}, "roofline": {"bytes": "8*N"}})json",
                                                directory.path(), "definition.json");
  task.python_reference = true;
  PythonReferenceOptions options;
  options.call_timeout = std::chrono::seconds(60);
  options.cache_directory = cache.path();
  PythonReference python(task, task.workload("small"), options);
  ReferenceCase reference_case;
  reference_case.label = "case 1";
  // Encoded in the inputs' dtypes, as the harness holds them: the reference sees the kernel's
  // values.
  std::vector<float> x = {1.001f, -2.3f, 3.7f, 0.1f, 5.5f, -6.25f, 7.125f, 8.01f};
  std::vector<float> h = {0.5f, 1.5f, -2.0f, 3.0f, 0.25f, 100.0f, -0.125f, 7.0f};
  std::vector<float> idx = {7, 6, 5, 4, 3, 2, 1, 0};
  reference_case.inputs = encode_inputs(task, {x, h, idx});
  python.answer(reference_case);
  ASSERT_EQ(reference_case.outputs.size(), 2u);
  for (size_t i = 0; i < 8; ++i) {
    float seen = task::round_to_dtype(task::DType::kBFloat16, x[7 - i]);
    EXPECT_EQ(reference_case.outputs[0][i], task::round_to_dtype(task::DType::kBFloat16, seen / 3))
        << i;
    EXPECT_EQ(reference_case.outputs[1][i], 2 * h[i]) << i;
  }
}

TEST(PythonReferenceDTypes, AWrongOutputDTypeIsNamed) {
  TempDir directory("accelopt-python-task");
  TempDir cache("accelopt-python-cache");
  write_file_atomic(directory.path() / "reference.py",
                    "import numpy as np\n\ndef run(x):\n    return x.astype(np.float64)\n");
  task::Task task = task::parse_task_definition(R"json({
    "name": "narrow", "op_type": "test", "axes": {"N": {"type": "var"}},
    "inputs": {"x": {"dtype": "float32", "shape": ["N"]}},
    "outputs": {"y": {"dtype": "bfloat16", "shape": ["N"]}},
    "workloads": {"small": {"axes": {"N": 8}}}, "roofline": {"bytes": "6*N"}})json",
                                                directory.path(), "definition.json");
  task.python_reference = true;
  PythonReferenceOptions options;
  options.cache_directory = cache.path();
  PythonReference python(task, task.workload("small"), options);
  ReferenceCase reference_case;
  reference_case.label = "case 1";
  reference_case.inputs = encode_inputs(task, {std::vector<float>(8, 1.0f)});
  try {
    python.answer(reference_case);
    FAIL() << "a float64 output was taken for bfloat16";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what())
                  .find("run returned y as float64; the definition says bfloat16 (NumPy has no "
                        "bfloat16: return float32)"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace accelopt::platform
