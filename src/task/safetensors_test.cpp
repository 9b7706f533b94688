// The safetensors reader on files written here byte by byte, and a workload's file inputs as
// load_task and import take them.
#include "task/safetensors.h"

#include <gtest/gtest.h>

#include <cstring>

#include "common/error.h"
#include "common/files.h"
#include "task/flashinfer_import.h"
#include "task/task.h"

namespace accelopt::task {
namespace {

std::vector<unsigned char> float_bytes(const std::vector<float>& values) {
  std::vector<unsigned char> bytes(values.size() * sizeof(float));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

std::string message_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const UserError& error) {
    return error.what();
  }
  return "no error";
}

TEST(Safetensors, ReadsATensorItsHeaderNames) {
  TempDir scratch("accelopt-safetensors");
  std::filesystem::path file = scratch.path() / "w.safetensors";
  write_safetensors(file, {{"bias", DType::kFloat32, {2}, float_bytes({1, 2})},
                           {"weight", DType::kFloat32, {2, 3}, float_bytes({1, 2, 3, 4, 5, 6})}});
  SafetensorsEntry entry = safetensors_entry(file, "weight");
  EXPECT_EQ(entry.dtype, DType::kFloat32);
  EXPECT_EQ(entry.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(read_safetensors_tensor(file, "weight"), float_bytes({1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(read_safetensors_tensor(file, "bias"), float_bytes({1, 2}));
  EXPECT_NE(message_of([&] {
              safetensors_entry(file, "gate");
            }).find("holds no tensor 'gate' (it holds bias, weight)"),
            std::string::npos);
}

TEST(Safetensors, RefusesWhatItCannotRunOrHold) {
  TempDir scratch("accelopt-safetensors");
  auto written = [&](const std::string& header, size_t data_bytes) {
    std::string content(8, '\0');
    for (int i = 0; i < 8; ++i) content[i] = static_cast<char>((header.size() >> (8 * i)) & 0xFF);
    std::filesystem::path file = scratch.path() / "f.safetensors";
    write_file_atomic(file, content + header + std::string(data_bytes, '\0'));
    return file;
  };
  auto f64 = written(R"({"x": {"dtype": "F64", "shape": [2], "data_offsets": [0, 16]}})", 16);
  EXPECT_NE(message_of([&] { safetensors_entry(f64, "x"); }).find("dtype F64; the harness runs"),
            std::string::npos);
  auto short_file = written(R"({"x": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}})", 8);
  EXPECT_NE(
      message_of([&] { safetensors_entry(short_file, "x"); }).find("do not hold 4 elements of F32"),
      std::string::npos);
  write_file_atomic(scratch.path() / "text.safetensors", "not a tensor file at all");
  EXPECT_NE(message_of([&] {
              safetensors_entry(scratch.path() / "text.safetensors", "x");
            }).find("not a safetensors file"),
            std::string::npos);
}

// FlashInfer-Bench's workload form: an input "safetensors" with a path and a tensor_key.
TEST(Safetensors, ImportCopiesAWorkloadsFilesAndLoadChecksThem) {
  TempDir scratch("accelopt-safetensors");
  write_safetensors(scratch.path() / "weights.safetensors",
                    {{"w", DType::kFloat32, {4}, float_bytes({1, 2, 3, 4})}});
  std::string definition = R"({"name": "scale", "op_type": "test",
    "axes": {"N": {"type": "const", "value": 4}, "M": {"type": "var"}},
    "inputs": {"x": {"dtype": "float32", "shape": ["M", "N"]},
               "w": {"dtype": "float32", "shape": ["N"]}},
    "outputs": {"out": {"dtype": "float32", "shape": ["M", "N"]}},
    "reference": "def run(x, w):\n    return x * w\n"})";
  std::string workloads =
      R"({"axes": {"M": 2}, "inputs": {"x": {"type": "random"}, "w": {"type": "safetensors", )"
      R"("path": "weights.safetensors", "tensor_key": "w"}}})"
      "\n";
  ImportedTask imported = import_flashinfer(definition, "d.json", workloads,
                                            (scratch.path() / "workloads.jsonl").string());
  ASSERT_EQ(imported.files.size(), 1u);
  write_imported_task(imported, scratch.path() / "task");
  Task task = load_task(scratch.path() / "task");
  const FileInput& file = task.workload("w1").file_inputs.at("w");
  EXPECT_EQ(file.key, "w");
  EXPECT_EQ(read_safetensors_tensor(file.file, "w"), float_bytes({1, 2, 3, 4}));
  EXPECT_EQ(task.workload("small").file_inputs.count("w"), 1u);

  // A file whose tensor is not the input's shape is refused by name.
  write_safetensors(file.file, {{"w", DType::kFloat32, {3}, float_bytes({1, 2, 3})}});
  std::string refused = message_of([&] { load_task(scratch.path() / "task"); });
  EXPECT_NE(refused.find("workloads.w1.inputs.w: tensor 'w' of "), std::string::npos) << refused;
  EXPECT_NE(refused.find("is float32 3; the input is float32 4"), std::string::npos) << refused;
}

}  // namespace
}  // namespace accelopt::task
